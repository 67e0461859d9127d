/**
 * Every PDF the service serves (issue 43 point 3), opened page by page: issued CFE (A4 and ticket,
 * one page and several), the preview, a received CFE (A4 and ticket) and a tax-benefit declaration.
 * None has a blank page, and page 1 shows the document. New PDF endpoints belong here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.js';
import { assertPdfPages, pdfPageTexts, requirePoppler } from '../../src/modules/cfe-documents/cfe-documents.test-helpers.js';
import { setUpDgiIssuer, simulatorOf, today } from '../../src/modules/dgi-submission/dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;
let a: { id: number; rut: string };
let b: { id: number; rut: string };

async function get(url: string): Promise<Buffer> {
  const r = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${admin}` } });
  assert.equal(r.statusCode, 200, `${url}: ${r.body.slice(0, 300)}`);
  assert.match(String(r.headers['content-type']), /^application\/pdf/);
  return r.rawPayload;
}
const line = (i: number) => ({ indicadorFacturacion: 3, nombreItem: `Artículo ${i}`, cantidad: 1, precioUnitario: '100' });
async function emit(body: Record<string, unknown>) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', { idEmpresa: a.id, codComercio: 'C1', codTerminal: 'T1', ...body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { id: number; numero: number };
}

before(async () => {
  requirePoppler();
  t = await createTestApp();
  admin = await t.adminToken();
  ({ company: a } = await setUpDgiIssuer(t, admin));
  ({ company: b } = await setUpDgiIssuer(t, admin));
});
after(async () => t?.close());

describe('happy path: no blank page, the document on page 1', () => {
  it('issued CFE: A4 and ticket80, one line and 120 lines (several pages)', async () => {
    const one = await emit({ cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [line(1)] } });
    const many = await emit({ cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: Array.from({ length: 120 }, (_, i) => line(i + 1)) } });
    for (const formato of ['A4', 'ticket80']) {
      assertPdfPages(await get(`/api/v1/cfeemitido/representacionImpresa?idCfe=${one.id}&formato=${formato}`), /e-Ticket/i);
      const long = await get(`/api/v1/cfeemitido/representacionImpresa?idCfe=${many.id}&formato=${formato}`);
      assertPdfPages(long, /e-Ticket/i);
      if (formato === 'A4') assert.ok(pdfPageTexts(long).length > 1, 'the 120-line A4 receipt spans several pages');
    }
  });

  it('the preview PDF', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/previsualizar', { idEmpresa: a.id, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [line(1)] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assertPdfPages(await get(r.body.url), /e-Ticket/i);
  });

  it('a received CFE: A4 and ticket80', async () => {
    const cust = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: b.rut, razonSocial: 'Empresa B', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true });
    assert.equal(cust.status, 201, JSON.stringify(cust.body));
    const issued = await emit({ cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: cust.body.id }, detalles: [line(1)] } });
    const w = t.modules.services.dgiSubmissionWorker;
    const env = await w.createEnvelope(a.id);
    if (env) assert.equal(await w.sendEnvelope(env.id), 'recibido');
    const sobre = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreReceptor', payload: { idEmpresa: a.id, idsCfe: [issued.id] }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(sobre.statusCode, 200, sobre.body);
    const imp = await t.call(admin, 'POST', '/api/v1/cferecibido/importar', { idEmpresa: b.id, xml: sobre.body });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
    for (const formato of ['A4', 'ticket80']) assertPdfPages(await get(`/api/v1/cferecibido/representacionImpresa?idCfe=${imp.body.cfes[0].id}&formato=${formato}`), /e-Factura/i);
  });

  it('a tax-benefit declaration', async () => {
    const sim = await simulatorOf(t);
    sim.control.setRate(9800, '2025-12-31', '6.2500');
    const d = await t.call(admin, 'POST', '/api/v1/empresa/beneficio-fiscal/declaracion', {
      idEmpresa: a.id, anioFiscal: 2026, regimen: 'decreto_206_019', fundamento: 'ingresos_hasta_750000_ui', ingresosAnioAnterior: '4687500.00',
      declarante: { nombre: 'Ana Pérez', documento: '1.234.567-8', cargo: 'Directora' }, aceptaDeclaracionJurada: true,
    });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    assertPdfPages(await get(`/api/v1/empresa/beneficio-fiscal/declaracion/pdf?id=${d.body.id}`), /Declaraci[oó]n jurada/i);
  });
});
