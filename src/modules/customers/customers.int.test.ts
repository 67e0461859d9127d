/** Customers and exchange rates through the HTTP app: create, edit, search, rates, access. */
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

const customer = (idEmpresa: number, documento = '214844360018') => ({ idEmpresa, tipoDocumento: 2, documento, razonSocial: 'Cliente SA', ciudad: 'Montevideo', email: 'compras@cliente.uy' });

describe('happy path', () => {
  test('customer create, edit, get, list, search by document', async () => {
    const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', customer(company.id));
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal(c.body.codPais, 'UY');
    const ed = await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: c.body.id, direccion: 'Av. 18 de Julio 1234' });
    assert.equal(ed.body.direccion, 'Av. 18 de Julio 1234');
    assert.equal((await t.call(admin, 'GET', `/api/v1/cliente/${c.body.id}`)).body.razonSocial, 'Cliente SA');
    const list = await t.call(admin, 'GET', `/api/v1/cliente/todos?idEmpresa=${company.id}&q=client`);
    assert.equal(list.body.total, 1);
    const found = await t.call(admin, 'GET', `/api/v1/cliente/buscarPorDocumento?idEmpresa=${company.id}&documento=214844360018`);
    assert.equal(found.body.length, 1);
    assert.equal((await t.modules.services.customers.findForCompany(t.db, other.id, c.body.id)), undefined);
  });

  test('exchange rates load, list and findRate', async () => {
    const load = await t.call(admin, 'POST', '/api/v1/empresa/cotizaciones/cargar', { idEmpresa: company.id, cotizaciones: [{ moneda: 'USD', fecha: '2026-03-02', tipoCambio: '39.123' }, { moneda: 'UYI', fecha: '2026-03-02', tipoCambio: 6.2 }] });
    assert.equal(load.status, 200, JSON.stringify(load.body));
    const list = await t.call(admin, 'GET', `/api/v1/empresa/cotizaciones?idEmpresa=${company.id}&moneda=USD`);
    assert.deepEqual(list.body.data, [{ moneda: 'USD', fecha: '2026-03-02', tipoCambio: '39.123000' }]);
    assert.equal(await t.modules.services.currencies.findRate(t.db, company.id, 'USD', '2026-03-02'), '39.123000');
    assert.equal(await t.modules.services.currencies.findRate(t.db, other.id, 'USD', '2026-03-02'), undefined);
    const cat = await t.call(admin, 'GET', '/api/v1/moneda/todas');
    assert.ok(cat.body.includes('UYI') && cat.body.includes('UYR') && cat.body.includes('USD'));
  });

  test('foreign documents: DNI of AR, passport with codPais 99; editing other fields keeps codPais', async () => {
    const dni = await t.call(admin, 'POST', '/api/v1/cliente/crear', { ...customer(company.id), tipoDocumento: 6, codPais: 'AR', documento: '30123456' });
    assert.equal(dni.status, 201, JSON.stringify(dni.body));
    const ed = await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: dni.body.id, razonSocial: 'Cliente Argentino SA' });
    assert.equal(ed.status, 200, JSON.stringify(ed.body));
    assert.equal(ed.body.codPais, 'AR');
    const pass = await t.call(admin, 'POST', '/api/v1/cliente/crear', { ...customer(company.id), tipoDocumento: 5, codPais: '99', documento: 'X1234567' });
    assert.equal(pass.status, 201, JSON.stringify(pass.body));
  });
});

describe('errors', () => {
  test('a rate DGI\'s TpoCambio cannot hold is refused when loaded, naming it (issue 28: EUR 12345.6789 failed every later receipt)', async () => {
    for (const tipoCambio of ['12345.6789', '10000', '39.5001', '0', 0.0001]) {
      const r = await t.call(admin, 'POST', '/api/v1/empresa/cotizaciones/cargar', { idEmpresa: company.id, cotizaciones: [{ moneda: 'EUR', fecha: '2026-03-02', tipoCambio }] });
      assert.deepEqual([r.status, r.body.code], [400, 'VALIDACION'], String(tipoCambio));
      assert.equal(r.body.campos[0].campo, 'cotizaciones.0.tipoCambio');
    }
    const edge = await t.call(admin, 'POST', '/api/v1/empresa/cotizaciones/cargar', { idEmpresa: company.id, cotizaciones: [{ moneda: 'EUR', fecha: '2026-03-03', tipoCambio: '9999.999' }, { moneda: 'EUR', fecha: '2026-03-04', tipoCambio: 0.001 }] });
    assert.equal(edge.status, 200, JSON.stringify(edge.body));
  });
  test('receiver fields beyond DGI\'s limits are refused when saved (RznSocType, DireccionType, CodPostalType)', async () => {
    for (const [field, value] of [['razonSocial', '   '], ['razonSocial', 'x'.repeat(151)], ['direccion', 'x'.repeat(71)], ['ciudad', 'x'.repeat(31)], ['codigoPostal', 'CP-11200'], ['codigoPostal', '123456'], ['codPais', 'ZZ']] as const) {
      const r = await t.call(admin, 'POST', '/api/v1/cliente/crear', { ...customer(company.id), [field]: value });
      assert.deepEqual([r.status, r.body.campos?.[0]?.campo], [400, field], `${field}=${value}: ${JSON.stringify(r.body)}`);
    }
  });

  test('documents emission would reject are refused on create and edit', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ tipoDocumento: 2, documento: '211000040010' }, /dígito verificador/],
      [{ tipoDocumento: 3, documento: '12345670' }, /cédula/],
      [{ tipoDocumento: 2, codPais: 'AR', documento: '214844360018' }, /codPais debe ser UY/],
      [{ tipoDocumento: 6, codPais: 'US', documento: '30123456' }, /AR, BR, CL o PY/],
    ];
    for (const [doc, message] of cases) {
      const res = await t.call(admin, 'POST', '/api/v1/cliente/crear', { ...customer(company.id), ...doc });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'CLIENTE_DOCUMENTO_INVALIDO');
      assert.match(res.body.error, message);
    }
    const ci = await t.call(admin, 'POST', '/api/v1/cliente/crear', { ...customer(company.id), tipoDocumento: 3, documento: '1.234.567-2' });
    assert.equal(ci.status, 201, JSON.stringify(ci.body));
    // Edit checks the stored fields together with the sent ones.
    const toRut = await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: ci.body.id, tipoDocumento: 2 });
    assert.equal(toRut.body.code, 'CLIENTE_DOCUMENTO_INVALIDO');
    const toAr = await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: ci.body.id, codPais: 'AR' });
    assert.equal(toAr.body.code, 'CLIENTE_DOCUMENTO_INVALIDO');
    const badCi = await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: ci.body.id, documento: '12345670' });
    assert.equal(badCi.body.code, 'CLIENTE_DOCUMENTO_INVALIDO');
    assert.equal((await t.call(admin, 'GET', `/api/v1/cliente/${ci.body.id}`)).body.documento, '1.234.567-2');
  });

  test('ids beyond the integer column are a 400 on the field', async () => {
    const create = await t.call(admin, 'POST', '/api/v1/cliente/crear', customer(3_000_000_000));
    assert.equal(create.status, 400, JSON.stringify(create.body));
    const edit = await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: 3_000_000_000, razonSocial: 'x' });
    assert.equal(edit.status, 400, JSON.stringify(edit.body));
  });

  test('duplicate customer, unknown currency, UYU rate', async () => {
    const dup = await t.call(admin, 'POST', '/api/v1/cliente/crear', customer(company.id));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'CLIENTE_DUPLICADO');
    const bad = await t.call(admin, 'POST', '/api/v1/empresa/cotizaciones/cargar', { idEmpresa: company.id, cotizaciones: [{ moneda: 'XXX', fecha: '2026-03-02', tipoCambio: '1' }] });
    assert.equal(bad.body.code, 'MONEDA_DESCONOCIDA');
    const uyu = await t.call(admin, 'POST', '/api/v1/empresa/cotizaciones/cargar', { idEmpresa: company.id, cotizaciones: [{ moneda: 'UYU', fecha: '2026-03-02', tipoCambio: '1' }] });
    assert.equal(uyu.body.code, 'COTIZACION_INVALIDA');
  });
});

describe('access', () => {
  test("another company's customers and rates are invisible", async () => {
    const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { ...customer(other.id), tipoDocumento: 3, documento: '12345672' });
    const user = await createUser(t, admin, `cli-${Date.now()}@test.uy`, [{ idEmpresa: company.id, rol: 'emisor' }]);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cliente/${c.body.id}`)).status, 404);
    assert.equal((await t.call(user.token, 'POST', '/api/v1/cliente/editar', { idCliente: c.body.id, razonSocial: 'x' })).status, 404);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cliente/todos?idEmpresa=${other.id}`)).status, 404);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/empresa/cotizaciones?idEmpresa=${other.id}`)).status, 404);
  });
});
