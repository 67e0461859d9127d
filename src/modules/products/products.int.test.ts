/** Products, variants, lots and serials through the HTTP app, and checkLines (spec 2.4 rule 3). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

let t: TestApp;
let admin: string;
let company: { id: number };
let other: { id: number };

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
});
after(async () => t.close());

let seq = 0;
async function product(idEmpresa: number, extra: Record<string, unknown> = {}) {
  const p = await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa, codigo: `P-${++seq}`, nombre: `Producto ${seq}`, unidadMedida: 'unid', ...extra });
  assert.equal(p.status, 201, JSON.stringify(p.body));
  const v = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.body.id, codigo: 'V1', nombre: `Variante ${seq}`, precioUnitario: '10.5' });
  assert.equal(v.status, 201, JSON.stringify(v.body));
  return { product: p.body, variant: v.body };
}
const check = (companyId: number, lines: Array<{ idVariante: number; datosTrazabilidad?: { id_lote?: number; id_serie?: number } }>) =>
  t.modules.services.products.checkLines(t.db, companyId, lines);
const code = (c: string) => (e: { code: string }) => e.code === c;

describe('happy path', () => {
  test('product, variants, lots, serials: create, edit, get, list', async () => {
    const p = await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: 'CAFE-1', nombre: 'Café molido', unidadMedida: 'kg', requiereLote: true });
    assert.equal(p.status, 201, JSON.stringify(p.body));
    assert.deepEqual([p.body.requiereLote, p.body.requiereSerie, p.body.habilitado], [true, false, true]);
    const ed = await t.call(admin, 'POST', '/api/v1/producto/editar', { idProducto: p.body.id, descripcion: 'Tostado medio', requiereSerie: true });
    assert.deepEqual([ed.body.descripcion, ed.body.requiereSerie, ed.body.codigo], ['Tostado medio', true, 'CAFE-1']);
    assert.equal((await t.call(admin, 'GET', `/api/v1/producto/${p.body.id}`)).body.nombre, 'Café molido');
    const byName = await t.call(admin, 'GET', `/api/v1/producto/todos?idEmpresa=${company.id}&nombre=CAFÉ`);
    assert.equal(byName.body.total, 1);
    assert.equal((await t.call(admin, 'GET', `/api/v1/producto/todos?idEmpresa=${company.id}&codigo=fe-1`)).body.total, 1);
    assert.equal((await t.call(admin, 'GET', `/api/v1/producto/todos?idEmpresa=${company.id}&codigo=nada`)).body.total, 0);

    const v1 = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.body.id, codigo: '500G', nombre: 'Café 500 g', precioUnitario: 250.75 });
    assert.equal(v1.status, 201, JSON.stringify(v1.body));
    assert.deepEqual([v1.body.precioUnitario, v1.body.unidadMedida, v1.body.unidadMedidaPropia], ['250.75', 'kg', null]);
    const v2 = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.body.id, codigo: '1KG', nombre: 'Café 1 kg', unidadMedida: 'unid' });
    assert.equal(v2.body.unidadMedida, 'unid');
    const ve = await t.call(admin, 'POST', '/api/v1/producto/variante/editar', { idVariante: v1.body.id, precioUnitario: '0.123456' });
    assert.equal(ve.body.precioUnitario, '0.123456');
    assert.equal((await t.call(admin, 'GET', `/api/v1/producto/variante/${v1.body.id}`)).body.nombre, 'Café 500 g');
    const vs = await t.call(admin, 'GET', `/api/v1/producto/${p.body.id}/variantes?length=1`);
    assert.deepEqual([vs.body.total, vs.body.data.length], [2, 1]);

    const lot = await t.call(admin, 'POST', `/api/v1/producto/variante/${v1.body.id}/lotes`, { codigo: 'L-2026-01', fechaVencimiento: '2027-01-31' });
    assert.equal(lot.status, 201, JSON.stringify(lot.body));
    const ser = await t.call(admin, 'POST', `/api/v1/producto/variante/${v1.body.id}/series`, { numeroSerie: 'SN-0001', idLote: lot.body.id });
    assert.equal(ser.status, 201, JSON.stringify(ser.body));
    assert.equal(ser.body.idLote, lot.body.id);
    assert.equal((await t.call(admin, 'GET', `/api/v1/producto/variante/${v1.body.id}/lotes`)).body.total, 1);
    assert.equal((await t.call(admin, 'GET', `/api/v1/producto/variante/${v1.body.id}/series?q=0001`)).body.data[0].numeroSerie, 'SN-0001');

    const lines = await check(company.id, [{ idVariante: v1.body.id, datosTrazabilidad: { id_lote: lot.body.id, id_serie: ser.body.id } }]);
    assert.deepEqual(lines[0], {
      idVariante: v1.body.id, idProducto: p.body.id, codigo: '500G', nombre: 'Café 500 g', unidadMedida: 'kg', precioUnitario: '0.123456',
      indicadorFacturacion: null, descripcion: 'Tostado medio', lote: { id: lot.body.id, codigo: 'L-2026-01', fechaVencimiento: '2027-01-31' }, serie: { id: ser.body.id, numeroSerie: 'SN-0001' },
    });
  });

  test('checkLines: no traceability, lot only, serial only', async () => {
    const plain = await product(company.id);
    const byLot = await product(company.id, { requiereLote: true });
    const bySerial = await product(company.id, { requiereSerie: true });
    const lot = (await t.call(admin, 'POST', `/api/v1/producto/variante/${byLot.variant.id}/lotes`, { codigo: 'L1' })).body;
    const ser = (await t.call(admin, 'POST', `/api/v1/producto/variante/${bySerial.variant.id}/series`, { numeroSerie: 'S1' })).body;
    const out = await check(company.id, [
      { idVariante: plain.variant.id },
      { idVariante: byLot.variant.id, datosTrazabilidad: { id_lote: lot.id } },
      { idVariante: bySerial.variant.id, datosTrazabilidad: { id_serie: ser.id } },
      { idVariante: plain.variant.id },
    ]);
    assert.deepEqual(out.map((l) => [l.idVariante, l.lote?.id ?? null, l.serie?.id ?? null]), [[plain.variant.id, null, null], [byLot.variant.id, lot.id, null], [bySerial.variant.id, null, ser.id], [plain.variant.id, null, null]]);
    assert.deepEqual(await check(company.id, []), []);
  });
});

describe('errors', () => {
  test('duplicates and bad input', async () => {
    const { product: p, variant: v } = await product(company.id);
    const dup = await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: p.codigo, nombre: 'x' });
    assert.deepEqual([dup.status, dup.body.code], [409, 'PRODUCTO_DUPLICADO']);
    assert.equal((await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: other.id, codigo: p.codigo, nombre: 'x' })).status, 201);
    const vdup = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.id, codigo: 'V1', nombre: 'x' });
    assert.deepEqual([vdup.status, vdup.body.code], [409, 'VARIANTE_DUPLICADA']);
    // DGI PrecioUnitarioType (issue 28 point 3): 6 decimals, 17 digits, not negative; refused when saved, naming the field.
    for (const precioUnitario of ['abc', '-1', '1.1234567', '1e20', '123456789012']) {
      const bad = await t.call(admin, 'POST', '/api/v1/producto/variante/editar', { idVariante: v.id, precioUnitario });
      assert.deepEqual([bad.status, bad.body.code, bad.body.campos?.[0]?.campo], [400, 'VALIDACION', 'precioUnitario'], precioUnitario);
    }
    for (const [field, value] of [['nombre', '   '], ['nombre', 'x'.repeat(81)], ['unidadMedida', 'kilos'], ['indicadorFacturacion', 18], ['codigo', 'x'.repeat(36)]] as const) {
      const bad = await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: `Z${field}`, nombre: 'x', [field]: value });
      assert.deepEqual([bad.status, bad.body.campos?.[0]?.campo], [400, field], `${field}: ${JSON.stringify(bad.body)}`);
    }
    await t.call(admin, 'POST', `/api/v1/producto/variante/${v.id}/lotes`, { codigo: 'L' });
    assert.equal((await t.call(admin, 'POST', `/api/v1/producto/variante/${v.id}/lotes`, { codigo: 'L' })).body.code, 'LOTE_DUPLICADO');
    await t.call(admin, 'POST', `/api/v1/producto/variante/${v.id}/series`, { numeroSerie: 'S' });
    assert.equal((await t.call(admin, 'POST', `/api/v1/producto/variante/${v.id}/series`, { numeroSerie: 'S' })).body.code, 'SERIE_DUPLICADA');
    const otherVariant = await product(company.id);
    const foreignLot = (await t.call(admin, 'POST', `/api/v1/producto/variante/${otherVariant.variant.id}/lotes`, { codigo: 'X' })).body;
    const badLot = await t.call(admin, 'POST', `/api/v1/producto/variante/${v.id}/series`, { numeroSerie: 'S2', idLote: foreignLot.id });
    assert.deepEqual([badLot.status, badLot.body.code], [422, 'LOTE_INVALIDO']);
    assert.equal((await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: '', nombre: 'x' })).status, 400);
    assert.equal((await t.call(admin, 'POST', `/api/v1/producto/variante/${v.id}/lotes`, { codigo: 'L9', fechaVencimiento: '31/01/2027' })).status, 400);
    assert.equal((await t.call(admin, 'GET', '/api/v1/producto/999999')).body.code, 'PRODUCTO_NO_ENCONTRADO');
    assert.equal((await t.call(admin, 'GET', '/api/v1/producto/variante/999999/lotes')).body.code, 'VARIANTE_NO_ENCONTRADA');
  });

  test('a missing variant is one code and status on the product routes and on emission lines', async () => {
    const route = await t.call(admin, 'GET', '/api/v1/producto/variante/999999');
    assert.deepEqual([route.status, route.body.code], [404, 'VARIANTE_NO_ENCONTRADA']);
    await assert.rejects(check(company.id, [{ idVariante: 999999 }]), (e: { code: string; status: number }) => e.code === 'VARIANTE_NO_ENCONTRADA' && e.status === 404);
  });

  test('ids beyond the integer column are a 400 on the field', async () => {
    const v = (await product(company.id)).variant;
    for (const [url, body] of [
      ['/api/v1/producto/crear', { idEmpresa: 3_000_000_000, codigo: 'BIG', nombre: 'x' }],
      ['/api/v1/producto/editar', { idProducto: 3_000_000_000, nombre: 'x' }],
      ['/api/v1/producto/variante/crear', { idProducto: 3_000_000_000, codigo: 'V', nombre: 'x' }],
      ['/api/v1/producto/variante/editar', { idVariante: 3_000_000_000, nombre: 'x' }],
      [`/api/v1/producto/variante/${v.id}/series`, { numeroSerie: 'BIG', idLote: 3_000_000_000 }],
    ] as const) {
      const res = await t.call(admin, 'POST', url, body);
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDACION');
    }
  });

  test('checkLines refusals (distinct codes; 422 except the missing variant, 404)', async () => {
    const both = await product(company.id, { requiereLote: true, requiereSerie: true });
    const lot = (await t.call(admin, 'POST', `/api/v1/producto/variante/${both.variant.id}/lotes`, { codigo: 'L1' })).body;
    const lot2 = (await t.call(admin, 'POST', `/api/v1/producto/variante/${both.variant.id}/lotes`, { codigo: 'L2' })).body;
    const ser = (await t.call(admin, 'POST', `/api/v1/producto/variante/${both.variant.id}/series`, { numeroSerie: 'S1', idLote: lot.id })).body;
    const plain = await product(company.id);
    const plainLot = (await t.call(admin, 'POST', `/api/v1/producto/variante/${plain.variant.id}/lotes`, { codigo: 'PL' })).body;
    const foreign = await product(other.id);

    await assert.rejects(check(company.id, [{ idVariante: 999999 }]), code('VARIANTE_NO_ENCONTRADA'));
    await assert.rejects(check(company.id, [{ idVariante: plain.variant.id }, { idVariante: foreign.variant.id }]), (e: { code: string; message: string }) => e.code === 'VARIANTE_NO_ENCONTRADA' && e.message.startsWith('Línea 2'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id }]), code('TRAZABILIDAD_REQUERIDA'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id, datosTrazabilidad: { id_lote: lot.id } }]), code('TRAZABILIDAD_REQUERIDA'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id, datosTrazabilidad: { id_serie: ser.id } }]), code('TRAZABILIDAD_REQUERIDA'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id, datosTrazabilidad: { id_lote: plainLot.id, id_serie: ser.id } }]), code('LOTE_INVALIDO'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id, datosTrazabilidad: { id_lote: 999999, id_serie: ser.id } }]), code('LOTE_INVALIDO'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id, datosTrazabilidad: { id_lote: lot.id, id_serie: 999999 } }]), code('SERIE_INVALIDA'));
    await assert.rejects(check(company.id, [{ idVariante: both.variant.id, datosTrazabilidad: { id_lote: lot2.id, id_serie: ser.id } }]), code('SERIE_INVALIDA'));
    // An id sent for a product without the flag is still checked.
    await assert.rejects(check(company.id, [{ idVariante: plain.variant.id, datosTrazabilidad: { id_lote: lot.id } }]), code('LOTE_INVALIDO'));
    await t.call(admin, 'POST', '/api/v1/producto/editar', { idProducto: plain.product.id, habilitado: false });
    await assert.rejects(check(company.id, [{ idVariante: plain.variant.id }]), code('VARIANTE_DESHABILITADA'));
    const err = await check(company.id, [{ idVariante: both.variant.id }]).catch((e) => e);
    assert.equal(err.status ?? err.statusCode ?? 422, 422);
  });
});

describe('access', () => {
  test("another company's products, variants, lots and serials are invisible", async () => {
    const { product: p, variant: v } = await product(other.id, { requiereLote: true });
    const user = await createUser(t, admin, `prod-${Date.now()}@test.uy`, [{ idEmpresa: company.id, rol: 'emisor' }]);
    const as = (method: string, url: string, body?: unknown) => t.call(user.token, method, url, body);
    assert.equal((await as('GET', `/api/v1/producto/${p.id}`)).body.code, 'PRODUCTO_NO_ENCONTRADO');
    assert.equal((await as('GET', `/api/v1/producto/${p.id}/variantes`)).status, 404);
    assert.equal((await as('POST', '/api/v1/producto/editar', { idProducto: p.id, nombre: 'x' })).status, 404);
    assert.equal((await as('POST', '/api/v1/producto/variante/crear', { idProducto: p.id, codigo: 'Z', nombre: 'x' })).status, 404);
    assert.equal((await as('POST', '/api/v1/producto/variante/editar', { idVariante: v.id, nombre: 'x' })).body.code, 'VARIANTE_NO_ENCONTRADA');
    assert.equal((await as('GET', `/api/v1/producto/variante/${v.id}`)).status, 404);
    assert.equal((await as('POST', `/api/v1/producto/variante/${v.id}/lotes`, { codigo: 'L' })).status, 404);
    assert.equal((await as('GET', `/api/v1/producto/variante/${v.id}/lotes`)).status, 404);
    assert.equal((await as('POST', `/api/v1/producto/variante/${v.id}/series`, { numeroSerie: 'S' })).status, 404);
    assert.equal((await as('GET', `/api/v1/producto/variante/${v.id}/series`)).status, 404);
    assert.equal((await as('GET', `/api/v1/producto/todos?idEmpresa=${other.id}`)).status, 404);
    assert.equal((await as('POST', '/api/v1/producto/crear', { idEmpresa: other.id, codigo: 'Q', nombre: 'x' })).status, 404);
    const own = await as('GET', `/api/v1/producto/todos?idEmpresa=${company.id}&codigo=${p.codigo}`);
    assert.equal(own.body.data.some((x: { id: number }) => x.id === p.id), false);
  });

  test('lectura can read but not write', async () => {
    const { product: p } = await product(company.id);
    const reader = await createUser(t, admin, `prod-r-${Date.now()}@test.uy`, [{ idEmpresa: company.id, rol: 'lectura' }]);
    assert.equal((await t.call(reader.token, 'GET', `/api/v1/producto/${p.id}`)).status, 200);
    assert.equal((await t.call(reader.token, 'POST', '/api/v1/producto/editar', { idProducto: p.id, nombre: 'x' })).status, 403);
  });
});

describe('openapi', () => {
  test('every product and CFC endpoint is published, none is a stub', async () => {
    const res = await t.call(undefined as unknown as string, 'GET', '/openapi.json');
    const paths = res.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [method, path] of [
      ['post', '/api/v1/producto/crear'], ['post', '/api/v1/producto/editar'], ['get', '/api/v1/producto/{id}'], ['get', '/api/v1/producto/todos'],
      ['get', '/api/v1/producto/{id}/variantes'], ['post', '/api/v1/producto/variante/crear'], ['post', '/api/v1/producto/variante/editar'],
      ['get', '/api/v1/producto/variante/{id}'], ['post', '/api/v1/producto/variante/{id}/lotes'], ['get', '/api/v1/producto/variante/{id}/lotes'],
      ['post', '/api/v1/producto/variante/{id}/series'], ['get', '/api/v1/producto/variante/{id}/series'],
      ['post', '/api/v1/cae/altaCfc'], ['post', '/api/v1/cae/editarCfc'], ['get', '/api/v1/cae/numeroDisponibleContingencia'], ['get', '/api/v1/cae/cfc/todos'],
    ]) {
      assert.ok(paths[path]?.[method], `${method} ${path} missing`);
      assert.ok(!paths[path][method].responses['501'], `${method} ${path} is still a stub`);
    }
  });
});
