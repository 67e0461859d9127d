/**
 * Price books through the HTTP app on a real database (issue 34 point 1): versions, reads, the
 * version in force, closing a version; each rule's 4xx; another company's books invisible.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { uyToday } from '../../lib/dates.js';

let t: TestApp;
let admin: string;
let a: { id: number };
let b: { id: number };
/** administrador of A only, lectura of A only, administrador of B only. */
let adminA: string;
let readerA: string;
let adminB: string;

const tiers = [
  { desde: '0', hasta: '1000', precioUnitario: '1.00' },
  { desde: '1000', hasta: null, precioUnitario: '0.80' },
];
const book = (extra: Record<string, unknown> = {}) => ({
  codigo: 'API-2026', nombre: 'Plan API', moneda: 'UYU', vigenteDesde: '2026-01-01', vigenteHasta: '2026-06-30',
  minimoPeriodo: { monto: '500.00', indicadorFacturacion: 3, nombreItem: 'Compromiso mínimo mensual' },
  precios: [
    { metrica: 'api_calls', modelo: 'escalonado', tramos: tiers, indicadorFacturacion: 3, nombreItem: 'Llamadas API', unidadMedida: 'u' },
    { metrica: 'kwh', dimensiones: { region: 'norte' }, modelo: 'volumen', tramos: tiers, indicadorFacturacion: 3, nombreItem: 'Energía norte' },
    { metrica: 'kwh', modelo: 'estandar', precioUnitario: '2.123456', minimo: '10.00', indicadorFacturacion: 3, nombreItem: 'Energía' },
    { metrica: 'sms', modelo: 'paquete', paquete: { tamano: '1000', precio: '150' }, indicadorFacturacion: 1, nombreItem: 'SMS' },
  ],
  ...extra,
});
const create = (body: unknown, token = adminA, company = a.id) => t.call(token, 'POST', `/api/v1/price-books?idEmpresa=${company}`, body);
/** A price with a field replaced. */
const withPrice = (i: number, p: Record<string, unknown>) => book({ precios: book().precios.map((x, j) => (j === i ? { ...x, ...p } : x)) });

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  a = await insertCompany(t);
  b = await insertCompany(t);
  adminA = (await createUser(t, admin, 'pb-admin-a@test.uy', [{ idEmpresa: a.id, rol: 'administrador' }])).token;
  readerA = (await createUser(t, admin, 'pb-lector-a@test.uy', [{ idEmpresa: a.id, rol: 'lectura' }])).token;
  adminB = (await createUser(t, admin, 'pb-admin-b@test.uy', [{ idEmpresa: b.id, rol: 'administrador' }])).token;
});
after(async () => t?.close());

describe('happy path', () => {
  test('creates version 1 and answers every value exactly as written', async () => {
    const r = await create(book());
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.version, 1);
    assert.equal(r.body.idEmpresa, a.id);
    assert.deepEqual(r.body.tipoCambio, { modo: 'emision' });
    assert.deepEqual(r.body.precios.map((p: any) => p.modelo), ['escalonado', 'volumen', 'estandar', 'paquete']);
    assert.deepEqual(r.body.precios[0].tramos, tiers);
    assert.equal(r.body.precios[2].precioUnitario, '2.123456');
    assert.deepEqual(r.body.precios[1].dimensiones, { region: 'norte' });
    assert.deepEqual(r.body.precios[3].paquete, { tamano: '1000', precio: '150' });
    assert.deepEqual(r.body.minimoPeriodo, { monto: '500.00', indicadorFacturacion: 3, nombreItem: 'Compromiso mínimo mensual' });
  });
  test('the same code with a later validity is version 2; the code answers both, newest first', async () => {
    const r = await create(book({ vigenteDesde: '2026-07-01', vigenteHasta: null, nombre: 'Plan API 2' }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.version, 2);
    const code = await t.call(readerA, 'GET', `/api/v1/price-books/API-2026?idEmpresa=${a.id}`);
    assert.equal(code.status, 200);
    assert.deepEqual(code.body.versiones.map((v: any) => [v.version, v.vigenteDesde, v.vigenteHasta]), [[2, '2026-07-01', null], [1, '2026-01-01', '2026-06-30']]);
  });
  test('the version in force at a date, including both validity edges', async () => {
    const at = async (fecha: string) => (await t.call(readerA, 'GET', `/api/v1/price-books/API-2026/vigente?idEmpresa=${a.id}&fecha=${fecha}`));
    assert.equal((await at('2026-06-30')).body.version, 1);
    assert.equal((await at('2026-07-01')).body.version, 2);
    assert.equal((await at('2030-01-01')).body.version, 2);
    const none = await at('2025-12-31');
    assert.deepEqual([none.status, none.body.code], [404, 'LISTA_PRECIOS_NO_ENCONTRADA']);
  });
  test('one version by number', async () => {
    const r = await t.call(readerA, 'GET', `/api/v1/price-books/API-2026/versiones/1?idEmpresa=${a.id}`);
    assert.deepEqual([r.status, r.body.nombre, r.body.precios.length], [200, 'Plan API', 4]);
  });
  test('the list pages versions by code, with price counts, and filters by code and by day in force', async () => {
    assert.equal((await create(book({ codigo: 'OTRO', moneda: 'USD', tipoCambio: { modo: 'fijo', valor: '39.5' }, precios: [book().precios[2]] }))).status, 201);
    const all = await t.call(readerA, 'GET', `/api/v1/price-books?idEmpresa=${a.id}&length=2`);
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 3);
    assert.deepEqual(all.body.data.map((v: any) => [v.codigo, v.version, v.cantidadPrecios]), [['API-2026', 2, 4], ['API-2026', 1, 4]]);
    const page2 = await t.call(readerA, 'GET', `/api/v1/price-books?idEmpresa=${a.id}&length=2&start=2`);
    assert.deepEqual(page2.body.data.map((v: any) => [v.codigo, v.tipoCambio]), [['OTRO', { modo: 'fijo', valor: '39.5' }]]);
    const inForce = await t.call(readerA, 'GET', `/api/v1/price-books?idEmpresa=${a.id}&codigo=API-2026&vigenteEn=2026-03-01`);
    assert.deepEqual(inForce.body.data.map((v: any) => v.version), [1]);
  });
  test('closing an open version lets a new one follow; the caller\'s only company is used without idEmpresa', async () => {
    const today = uyToday();
    const open = await create(book({ codigo: 'CIERRE', vigenteDesde: '2026-01-01', vigenteHasta: null }));
    assert.equal(open.status, 201);
    const closed = await t.call(adminA, 'POST', '/api/v1/price-books/CIERRE/versiones/1/cerrar', { vigenteHasta: today });
    assert.deepEqual([closed.status, closed.body.vigenteHasta, closed.body.precios.length], [200, today, 4]);
    const next = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const v2 = await t.call(adminA, 'POST', '/api/v1/price-books', book({ codigo: 'CIERRE', vigenteDesde: next, vigenteHasta: null }));
    assert.deepEqual([v2.status, v2.body.version], [201, 2]);
  });
});

describe('errors', () => {
  const expect = async (body: unknown, status: number, code: string, token = adminA) => {
    const r = await create(body, token);
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.code, code, JSON.stringify(r.body));
    return r.body;
  };
  test('overlapping validity is 409 naming the other version; nothing is written', async () => {
    const body = await expect(book({ vigenteDesde: '2026-06-30', vigenteHasta: '2026-06-30' }), 409, 'LISTA_PRECIOS_SUPERPUESTA');
    assert.deepEqual(body.versiones.map((v: any) => v.version), [1]);
    await expect(book({ vigenteDesde: '2025-01-01', vigenteHasta: null }), 409, 'LISTA_PRECIOS_SUPERPUESTA');
    const code = await t.call(readerA, 'GET', `/api/v1/price-books/API-2026?idEmpresa=${a.id}`);
    assert.equal(code.body.versiones.length, 2);
  });
  test('concurrent versions of one new code: exactly one wins per validity, the rest are 409', async () => {
    const rs = await Promise.all([0, 1, 2, 3].map(() => create(book({ codigo: 'CARRERA' }))));
    assert.deepEqual(rs.map((r) => r.status).sort(), [201, 409, 409, 409]);
  });
  test('an unknown model is a 400 on its field', async () => {
    const body = await expect(withPrice(0, { modelo: 'lineal' }), 400, 'VALIDACION');
    assert.ok(JSON.stringify(body).includes('precios.0.modelo') || JSON.stringify(body).includes('precios[0].modelo'), JSON.stringify(body));
  });
  test('fields of another model, or missing ones, are PRECIO_MODELO_INVALIDO', async () => {
    await expect(withPrice(2, { tramos: tiers }), 400, 'PRECIO_MODELO_INVALIDO');
    await expect(withPrice(0, { tramos: undefined }), 400, 'PRECIO_MODELO_INVALIDO');
  });
  test('tiers that are not contiguous, do not start at 0 or do not end open are PRECIO_TRAMOS_INVALIDOS', async () => {
    for (const tramos of [
      [{ desde: '0', hasta: '1000', precioUnitario: '1' }, { desde: '1001', hasta: null, precioUnitario: '0.8' }],
      [{ desde: '1', hasta: null, precioUnitario: '1' }],
      [{ desde: '0', hasta: '1000', precioUnitario: '1' }],
      [{ desde: '0', hasta: null, precioUnitario: '1' }, { desde: '1000', hasta: null, precioUnitario: '0.8' }],
      [{ desde: '0', hasta: '0', precioUnitario: '1' }, { desde: '0', hasta: null, precioUnitario: '0.8' }],
    ]) await expect(withPrice(0, { tramos }), 400, 'PRECIO_TRAMOS_INVALIDOS');
  });
  test('an unknown currency is LISTA_PRECIOS_MONEDA_DESCONOCIDA', async () => {
    await expect(book({ codigo: 'X1', moneda: 'XXZ' }), 400, 'LISTA_PRECIOS_MONEDA_DESCONOCIDA');
  });
  test('decimals as JSON numbers are refused on their field (decimal strings only)', async () => {
    const body = await expect(withPrice(2, { precioUnitario: 2.5 }), 400, 'VALIDACION');
    assert.ok(JSON.stringify(body).includes('texto decimal'), JSON.stringify(body));
  });
  test('more decimals than DGI admits, negative prices and 0-sized packages are 400', async () => {
    await expect(withPrice(2, { precioUnitario: '1.1234567' }), 400, 'VALIDACION');
    await expect(withPrice(2, { precioUnitario: '-1' }), 400, 'VALIDACION');
    await expect(withPrice(3, { paquete: { tamano: '0', precio: '1' } }), 400, 'VALIDACION');
    await expect(withPrice(2, { minimo: '1.001' }), 400, 'VALIDACION');
  });
  test('dimension keys must agree per metric, and a price cannot repeat', async () => {
    await expect(book({ codigo: 'D1', precios: [...book().precios, { ...book().precios[1], dimensiones: { plan: 'pro' } }] }), 400, 'PRECIO_DIMENSIONES_INVALIDAS');
    await expect(book({ codigo: 'D2', precios: [...book().precios, book().precios[2]] }), 400, 'PRECIO_DUPLICADO');
  });
  test('IndFact outside the usage-billing set, and a blank item name, are 400', async () => {
    await expect(withPrice(0, { indicadorFacturacion: 4 }), 400, 'VALIDACION');
    await expect(withPrice(0, { nombreItem: '   ' }), 400, 'VALIDACION');
  });
  test('exchange rate rules: none in UYU, fijo needs valor, others take none; validity order', async () => {
    await expect(book({ codigo: 'T1', tipoCambio: { modo: 'emision' } }), 400, 'LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO');
    await expect(book({ codigo: 'T2', moneda: 'USD', tipoCambio: { modo: 'fijo' } }), 400, 'LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO');
    await expect(book({ codigo: 'T3', moneda: 'USD', tipoCambio: { modo: 'cierrePeriodo', valor: '40' } }), 400, 'LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO');
    await expect(book({ codigo: 'T4', moneda: 'USD', tipoCambio: { modo: 'fijo', valor: '40.0001' } }), 400, 'VALIDACION');
    await expect(book({ codigo: 'T5', vigenteDesde: '2026-02-01', vigenteHasta: '2026-01-31' }), 400, 'LISTA_PRECIOS_VIGENCIA_INVALIDA');
  });
  test('unknown fields are refused (strict body)', async () => {
    await expect(withPrice(0, { descuento: '1' }), 400, 'CAMPO_DESCONOCIDO');
  });
  test('closing cannot move an end into the past nor extend it', async () => {
    const past = await t.call(adminA, 'POST', `/api/v1/price-books/API-2026/versiones/1/cerrar?idEmpresa=${a.id}`, { vigenteHasta: '2026-05-31' });
    assert.deepEqual([past.status, past.body.code], [409, 'LISTA_PRECIOS_VERSION_CERRADA']);
    const missing = await t.call(adminA, 'POST', `/api/v1/price-books/API-2026/versiones/9/cerrar?idEmpresa=${a.id}`, { vigenteHasta: '2099-01-01' });
    assert.deepEqual([missing.status, missing.body.code], [404, 'LISTA_PRECIOS_NO_ENCONTRADA']);
  });
});

describe('access', () => {
  test('another company\'s price books are invisible: same 404 as a missing one, absent from lists', async () => {
    const other = await create(book({ codigo: 'SOLO-B' }), adminB, b.id);
    assert.equal(other.status, 201);
    const r = await t.call(adminA, 'GET', `/api/v1/price-books/SOLO-B?idEmpresa=${a.id}`);
    assert.deepEqual([r.status, r.body.code], [404, 'LISTA_PRECIOS_NO_ENCONTRADA']);
    const asB = await t.call(adminA, 'GET', `/api/v1/price-books/SOLO-B?idEmpresa=${b.id}`);
    assert.deepEqual([asB.status, asB.body.code], [404, 'EMPRESA_NO_ENCONTRADA']);
    const list = await t.call(adminA, 'GET', `/api/v1/price-books?idEmpresa=${a.id}`);
    assert.ok(!list.body.data.some((v: any) => v.codigo === 'SOLO-B'));
    // The same code in two companies is two books: B's API-2026 does not clash with A's.
    assert.equal((await create(book(), adminB, b.id)).status, 201);
  });
  test('creating and closing need administrador; lectura reads', async () => {
    const r = await create(book({ codigo: 'LECTOR' }), readerA);
    assert.deepEqual([r.status, r.body.code], [403, 'SIN_PERMISO']);
    const c = await t.call(readerA, 'POST', `/api/v1/price-books/API-2026/versiones/2/cerrar?idEmpresa=${a.id}`, { vigenteHasta: '2099-01-01' });
    assert.equal(c.status, 403);
    assert.equal((await t.call(readerA, 'GET', `/api/v1/price-books?idEmpresa=${a.id}`)).status, 200);
  });
  test('without a token: 401', async () => {
    assert.equal((await t.call(undefined, 'GET', `/api/v1/price-books?idEmpresa=${a.id}`)).status, 401);
  });
});
