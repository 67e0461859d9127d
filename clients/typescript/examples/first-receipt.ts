/**
 * A first receipt with the typed client: log in, choose the company, issue an e-Ticket (with an
 * Idempotency-Key), read it back and list the latest ones.
 * CFE_API_URL, CFE_USUARIO, CFE_CLAVE and, for a user of several companies, CFE_EMPRESA (id or RUT).
 */
import { ApiError, createCfeClient, paginate } from '../src/index.js';

const client = createCfeClient({ baseUrl: process.env.CFE_API_URL ?? 'http://127.0.0.1:3000', usuario: process.env.CFE_USUARIO, clave: process.env.CFE_CLAVE });
const empresa = process.env.CFE_EMPRESA;
await client.selectCompany(empresa && /^\d+$/.test(empresa) && empresa.length < 10 ? Number(empresa) : empresa);

try {
  const cfe = await client.emitir({
    codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 101, fechaEmision: new Date().toISOString().slice(0, 10) }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba mate 1 kg', cantidad: 2, precioUnitario: '189.90' }] },
  }, { idempotencyKey: `venta-${Date.now()}` });
  console.log(`emitido: ${cfe.tipoCfe} ${cfe.serie}-${cfe.numero}, total ${String(cfe.totales.MntTotal)}, código de seguridad ${cfe.codigoSeguridad}`);

  const { data } = await client.api.GET('/api/v1/cfeemitido/{id}', { params: { path: { id: cfe.id } } });
  console.log(`estado: ${data?.estado}`);

  let n = 0;
  for await (const c of paginate((start, length) => client.api.GET('/api/v1/cfeemitido/buscar', { params: { query: { idEmpresa: client.idEmpresa, start, length } } }))) n += c ? 1 : 0;
  console.log(`comprobantes de la empresa: ${n}`);
} catch (err) {
  if (err instanceof ApiError) console.error(`error ${err.status} ${err.code}: ${err.message}`, err.campos ?? '');
  throw err;
}
