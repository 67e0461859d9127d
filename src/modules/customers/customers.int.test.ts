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

const customer = (idEmpresa: number, documento = '217080350013') => ({ idEmpresa, tipoDocumento: 2, documento, razonSocial: 'Cliente SA', ciudad: 'Montevideo', email: 'compras@cliente.uy' });

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
    const found = await t.call(admin, 'GET', `/api/v1/cliente/buscarPorDocumento?idEmpresa=${company.id}&documento=217080350013`);
    assert.equal(found.body.length, 1);
    assert.equal((await t.modules.services.customers.findForCompany(t.db, other.id, c.body.id)), undefined);
  });

  test('exchange rates load, list and findRate', async () => {
    const load = await t.call(admin, 'POST', '/api/v1/empresa/cotizaciones/cargar', { idEmpresa: company.id, cotizaciones: [{ moneda: 'USD', fecha: '2026-03-02', tipoCambio: '39.123456' }, { moneda: 'UYI', fecha: '2026-03-02', tipoCambio: 6.2 }] });
    assert.equal(load.status, 200, JSON.stringify(load.body));
    const list = await t.call(admin, 'GET', `/api/v1/empresa/cotizaciones?idEmpresa=${company.id}&moneda=USD`);
    assert.deepEqual(list.body.data, [{ moneda: 'USD', fecha: '2026-03-02', tipoCambio: '39.123456' }]);
    assert.equal(await t.modules.services.currencies.findRate(t.db, company.id, 'USD', '2026-03-02'), '39.123456');
    assert.equal(await t.modules.services.currencies.findRate(t.db, other.id, 'USD', '2026-03-02'), undefined);
    const cat = await t.call(admin, 'GET', '/api/v1/moneda/todas');
    assert.ok(cat.body.includes('UYI') && cat.body.includes('UYR') && cat.body.includes('USD'));
  });
});

describe('errors', () => {
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
    const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', customer(other.id, '12345672'));
    const user = await createUser(t, admin, `cli-${Date.now()}@test.uy`, [{ idEmpresa: company.id, rol: 'emisor' }]);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cliente/${c.body.id}`)).status, 404);
    assert.equal((await t.call(user.token, 'POST', '/api/v1/cliente/editar', { idCliente: c.body.id, razonSocial: 'x' })).status, 404);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cliente/todos?idEmpresa=${other.id}`)).status, 404);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/empresa/cotizaciones?idEmpresa=${other.id}`)).status, 404);
  });
});
