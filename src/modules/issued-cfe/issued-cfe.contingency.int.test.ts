/** Transcription of paper contingency CFCs (BRIEF 10) through POST /api/v1/comprobante/transcribirContingencia. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { verifyXmlSignature } from '../emission/index.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let certPem: string;
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

const body = (numero: number, extra: { tipoCfe?: number; serie?: string; idEmpresa?: number } = {}) => ({
  idEmpresa: extra.idEmpresa ?? company.id, codComercio: 'C1', codTerminal: 'T1',
  cfe: {
    idDoc: { tipoCfe: extra.tipoCfe ?? 211, fechaEmision: today, serie: extra.serie ?? 'XA', numero },
    receptor: { documento: '219999830019', tipoDocumento: 2, razonSocial: 'Cliente de Prueba S.A.' },
    detalles: [{ indicadorFacturacion: 3, nombreItem: 'Servicio', cantidad: 1, precioUnitario: '1000.00' }],
  },
});
const transcribe = (b: unknown, token = admin, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/v1/comprobante/transcribirContingencia', payload: b as object, headers: { authorization: `Bearer ${token}`, ...headers } })
    .then((r) => ({ status: r.statusCode, body: r.json() }));

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  ({ certPem } = await setUpIssuer(t.db, t.call, admin, company));
  const alta = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', { idEmpresa: company.id, tipoCFC: 211, serie: 'XA', desde: 953001, hasta: 953100, constancia: '90160134272', fechaVencimiento: '2099-12-31' });
  assert.equal(alta.status, 201, JSON.stringify(alta.body));
});
after(async () => t.close());

describe('happy path', () => {
  test('a paper e-Factura CFC is signed with its printed serie and number, CAEData from the CFC range, state firmado', async () => {
    const r = await transcribe(body(953001));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.tipoCfe, 211);
    assert.equal(r.body.serie, 'XA');
    assert.equal(r.body.numero, 953001);
    assert.equal(r.body.estado, 'firmado');
    assert.deepEqual(r.body.cae, { numero: '90160134272', desde: 953001, hasta: 953100, fechaVencimiento: '2099-12-31' });
    assert.match(r.body.urlQr, new RegExp(`\\?${company.rut},211,XA,953001,`));
    const xml = await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } });
    assert.deepEqual(validateXml('CFE', xml.body), { ok: true });
    assert.equal(verifyXmlSignature(xml.body, { certificate: certPem }).valid, true);
    assert.match(xml.body, /<TipoCFE>211<\/TipoCFE><Serie>XA<\/Serie><Nro>953001<\/Nro>/);
    const avail = await t.call(admin, 'GET', `/api/v1/cae/numeroDisponibleContingencia?idEmpresa=${company.id}&tipoCFC=211&serie=XA&numero=953001`);
    assert.equal(avail.body.disponible, false, JSON.stringify(avail.body));
  });

  test('Idempotency-Key replays the transcription instead of refusing the used number', async () => {
    const first = await transcribe(body(953010), admin, { 'idempotency-key': 'cfc-953010' });
    const again = await transcribe(body(953010), admin, { 'idempotency-key': 'cfc-953010' });
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
  });
});

describe('errors', () => {
  test('the same paper number twice, a number outside any range, an electronic type: 4xx with codes, nothing stored', async () => {
    assert.equal((await transcribe(body(953002))).status, 200);
    const twice = await transcribe(body(953002));
    assert.equal(twice.body.code, 'CFC_NUMERO_NO_DISPONIBLE');
    const outside = await transcribe(body(999999));
    assert.equal(outside.body.code, 'CFC_NUMERO_NO_DISPONIBLE');
    const electronic = await transcribe(body(953003, { tipoCfe: 111 }));
    assert.equal(electronic.status, 422);
    assert.equal(electronic.body.code, 'TIPO_CFE_INVALIDO');
    // The refused 953003 was not consumed.
    assert.equal((await transcribe(body(953003))).status, 200);
  });

  test('emitir refuses contingency types', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', { ...body(1), cfe: { ...body(1).cfe, idDoc: { tipoCfe: 211, fechaEmision: today } } });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'TIPO_CFE_INVALIDO');
  });
});

describe('access', () => {
  test('another company cannot transcribe into this company, nor use its CFC range; lectura cannot transcribe', async () => {
    const outsider = await createUser(t, admin, 'cfc-outsider@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    assert.equal((await transcribe(body(953020), outsider.token)).status, 404);
    await setUpIssuer(t.db, t.call, admin, other);
    const foreignRange = await transcribe(body(953020, { idEmpresa: other.id }));
    assert.equal(foreignRange.body.code, 'CFC_NUMERO_NO_DISPONIBLE');
    const reader = await createUser(t, admin, 'cfc-reader@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    assert.equal((await transcribe(body(953020), reader.token)).status, 403);
  });
});
