/** emitir lines with idVariante (spec 2.1; issue 28 point 4): filled from the variant where left out, what is sent wins. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let variant: number;
let noPrice: number;
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

const req = (detalles: unknown[], idEmpresa = company.id) => ({ idEmpresa, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles } });
const emit = (body: unknown) => t.call(admin, 'POST', '/api/v1/comprobante/emitir', body);
const xmlOf = async (id: number) => (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
const itemOf = (xml: string) => /<(?:\w+:)?Item>([\s\S]*?)<\/(?:\w+:)?Item>/.exec(xml)![1].replace(/<(\/?)\w+:/g, '<$1');

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  const p = await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: 'CAFE', nombre: 'Café', unidadMedida: 'kg', indicadorFacturacion: 2 });
  assert.equal(p.status, 201, JSON.stringify(p.body));
  const v = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.body.id, codigo: 'CAFE-500', nombre: 'Café 500 g', precioUnitario: '189.9' });
  assert.equal(v.status, 201, JSON.stringify(v.body));
  variant = v.body.id;
  const w = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.body.id, codigo: 'CAFE-SUELTO', nombre: 'Café suelto' });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  noPrice = w.body.id;
});
after(async () => t.close());

describe('happy path', () => {
  test('a line with only idVariante and cantidad takes name, unit, price, billing indicator and code from the variant', async () => {
    const r = await emit(req([{ idVariante: variant, cantidad: 2 }]));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const xml = await xmlOf(r.body.id);
    assert.deepEqual(validateXml('CFE', xml), { ok: true });
    const item = itemOf(xml);
    assert.match(item, /<CodItem><TpoCod>INT1<\/TpoCod><Cod>CAFE-500<\/Cod><\/CodItem><IndFact>2<\/IndFact><NomItem>Café 500 g<\/NomItem><Cantidad>2<\/Cantidad><UniMed>kg<\/UniMed><PrecioUnitario>189.9<\/PrecioUnitario>/);
    assert.equal(r.body.totales.MntNetoIvaTasaMin, '379.80');
  });

  test('what the line sends wins over the variant', async () => {
    const r = await emit(req([{ idVariante: variant, cantidad: 1, nombreItem: 'Café de la casa', unidadMedida: 'paq', precioUnitario: 150, indicadorFacturacion: 3, codigoItem: [{ tpoCod: 'INT2', cod: 'X1' }] }]));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const item = itemOf(await xmlOf(r.body.id));
    assert.match(item, /<CodItem><TpoCod>INT2<\/TpoCod><Cod>X1<\/Cod><\/CodItem><IndFact>3<\/IndFact><NomItem>Café de la casa<\/NomItem><Cantidad>1<\/Cantidad><UniMed>paq<\/UniMed><PrecioUnitario>150<\/PrecioUnitario>/);
  });
});

describe('errors', () => {
  test('the field actually missing is named (cantidad, not "nombreItem y cantidad")', async () => {
    const r = await emit(req([{ idVariante: variant }]));
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'LINEA_INCOMPLETA');
    assert.equal(r.body.campo, 'cfe.detalles.0.cantidad');
    assert.match(r.body.error, /falta cantidad/);
  });

  test('a variant without price and no precioUnitario on the line names precioUnitario', async () => {
    const r = await emit(req([{ indicadorFacturacion: 3, nombreItem: 'Otro', cantidad: 1, precioUnitario: 1 }, { idVariante: noPrice, cantidad: 1 }]));
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'LINEA_INCOMPLETA');
    assert.equal(r.body.campo, 'cfe.detalles.1.precioUnitario');
  });

  test('a manual line without nombreItem names nombreItem', async () => {
    const r = await emit(req([{ indicadorFacturacion: 3, cantidad: 1, precioUnitario: 1 }]));
    assert.equal(r.body.code, 'LINEA_INCOMPLETA');
    assert.equal(r.body.campo, 'cfe.detalles.0.nombreItem');
  });
});

describe('access', () => {
  test("another company's variant is not found, like one that does not exist", async () => {
    const r = await emit(req([{ idVariante: variant, cantidad: 1 }], other.id));
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.equal(r.body.code, 'VARIANTE_NO_ENCONTRADA');
  });
});
