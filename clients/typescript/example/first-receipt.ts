/**
 * A first receipt with the typed client, on a new service in simulator mode:
 * `API=http://127.0.0.1:3000 USUARIO=admin@localhost.localdomain CLAVE=… npm run example`.
 */
import { createCfeClient, unwrap } from '../src/index.js';

const cfe = createCfeClient({ baseUrl: process.env.API ?? 'http://127.0.0.1:3000', usuario: process.env.USUARIO!, clave: process.env.CLAVE! });
const { api } = cfe;

const empresa = unwrap(await api.POST('/api/v1/empresa/crear', { body: { rut: process.env.RUT ?? '219999830019', razonSocial: 'Almacén La Estrella S.A.', domicilioFiscal: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo' } }));
cfe.selectCompany(empresa.id);
const sucursal = unwrap(await api.POST('/api/v1/sucursal/crear', { body: { idEmpresa: empresa.id, codComercio: 'CENTRAL', nombre: 'Casa Central', CodigoCasaDgi: 1 } }));
unwrap(await api.POST('/api/v1/puntoemision/crear', { body: { idSucursal: sucursal.id, codTerminal: 'CAJA1' } }));

// Test certificate and CAE range from the simulated DGI (in real mode: your CA's PKCS#12 and DGI's CAE file).
const certificado = unwrap(await api.POST('/api/v1/sandbox/dgi/certificado', { body: { idEmpresa: empresa.id } }));
unwrap(await api.POST('/api/v1/empresa/importarCertificado', { body: certificado } as never));
const cae = unwrap(await api.POST('/api/v1/sandbox/dgi/cae', { body: { idEmpresa: empresa.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 1000 } }));
unwrap(await api.POST('/api/v1/cae/importar', { body: cae } as never));

const hoy = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
const recibo = await cfe.emitir({
  codComercio: 'CENTRAL', codTerminal: 'CAJA1',
  cfe: { idDoc: { tipoCfe: 101, fechaEmision: hoy, mntBruto: 1 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba mate 1 kg', cantidad: 2, precioUnitario: '189.90' }] },
});
console.log(`${recibo.nombreTipoCfe} ${recibo.serie}-${recibo.numero}: total ${recibo.totales?.MntPagar}, código de seguridad ${recibo.codigoSeguridad}`);
