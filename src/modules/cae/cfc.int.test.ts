/** Contingency ranges (CFC) through the HTTP app: altaCfc, editarCfc, availability, reservation, access. */
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

const range = (idEmpresa: number, extra: Record<string, unknown> = {}) => ({ idEmpresa, tipoCFC: 201, serie: 'A', desde: 1, hasta: 100, constancia: '90110012345', fechaVencimiento: '2099-12-31', ...extra });
const available = (idEmpresa: number, tipoCFC: number, serie: string, numero: number) => t.call(admin, 'GET', `/api/v1/cae/numeroDisponibleContingencia?idEmpresa=${idEmpresa}&tipoCFC=${tipoCFC}&serie=${serie}&numero=${numero}`);
const reserve = (companyId: number, tipoCfc: number, serie: string, numero: number, fecha?: string) =>
  t.db.transaction((tx) => t.modules.services.cae.reserveContingencyNumber(tx, { companyId, tipoCfc, serie, numero, fecha }));

describe('happy path', () => {
  test('register, check, reserve, edit, list', async () => {
    const c = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id));
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal(c.body.tipoCFC, 201);
    assert.equal(c.body.utilizados, 0);
    const a = await available(company.id, 201, 'A', 50);
    assert.deepEqual({ d: a.body.disponible, id: a.body.rango.id }, { d: true, id: c.body.id });
    assert.equal((await available(company.id, 201, 'A', 101)).body.motivo, 'fuera_de_rango');
    assert.equal((await available(company.id, 201, 'B', 50)).body.motivo, 'fuera_de_rango');

    const r = await reserve(company.id, 201, 'A', 50);
    assert.equal(r.cfcRangeId, c.body.id);
    assert.equal(r.constancia, '90110012345');
    const used = await available(company.id, 201, 'A', 50);
    assert.deepEqual({ d: used.body.disponible, m: used.body.motivo, u: used.body.rango.utilizados }, { d: false, m: 'utilizado', u: 1 });

    // A second range of the same type and serie right after the first is not an overlap.
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { desde: 101, hasta: 200 }))).status, 201);
    const ed = await t.call(admin, 'POST', '/api/v1/cae/editarCfc', { idCfc: c.body.id, desde: 10, constancia: 'C-2' });
    assert.equal(ed.status, 200, JSON.stringify(ed.body));
    assert.deepEqual([ed.body.desde, ed.body.hasta, ed.body.constancia, ed.body.utilizados], [10, 100, 'C-2', 1]);
    const list = await t.call(admin, 'GET', `/api/v1/cae/cfc/todos?idEmpresa=${company.id}&tipoCFC=201`);
    assert.equal(list.body.total, 2);
    assert.equal(list.body.data[0].utilizados, 1);
  });

  test('an expired range: not available today, still reservable for a paper CFC issued before expiry', async () => {
    const c = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 211, fechaVencimiento: '2020-06-30' }));
    assert.equal(c.status, 201);
    assert.equal(c.body.vencido, true);
    assert.equal((await available(company.id, 211, 'A', 5)).body.motivo, 'vencido');
    await assert.rejects(reserve(company.id, 211, 'A', 5), (e: { code: string }) => e.code === 'CFC_NUMERO_NO_DISPONIBLE');
    assert.equal((await reserve(company.id, 211, 'A', 5, '2020-06-30')).numero, 5);
  });
});

describe('errors', () => {
  test('non-contingency type, inverted range, overlap', async () => {
    const tipo = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 101 }));
    assert.equal(tipo.status, 400);
    assert.equal(tipo.body.code, 'CFC_TIPO_INVALIDO');
    const inv = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 212, desde: 10, hasta: 5 }));
    assert.equal(inv.body.code, 'CFC_RANGO_INVALIDO');
    assert.equal(inv.status, 400);
    const bad = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { serie: 'a1', fechaVencimiento: 'mañana' }));
    assert.equal(bad.status, 400);
    const day = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 212, fechaVencimiento: '2026-02-30' }));
    assert.equal(day.status, 400);
    assert.equal(day.body.campos[0].campo, 'fechaVencimiento');
    await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 281, serie: 'Z', desde: 1, hasta: 10 }));
    const over = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 281, serie: 'Z', desde: 10, hasta: 20 }));
    assert.equal(over.status, 409);
    assert.equal(over.body.code, 'CFC_SUPERPUESTO');
    // The same numbers in another serie or another company are fine.
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 281, serie: 'Y', desde: 1, hasta: 10 }))).status, 201);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(other.id, { tipoCFC: 281, serie: 'Z', desde: 1, hasta: 10 }))).status, 201);
    const q = await available(company.id, 101, 'A', 1);
    assert.equal(q.body.code, 'CFC_TIPO_INVALIDO');
  });

  test('edit: overlap, used numbers, unknown id; reservation refusals', async () => {
    const a = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 224, desde: 1, hasta: 10 }));
    const b = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 224, desde: 11, hasta: 20 }));
    const over = await t.call(admin, 'POST', '/api/v1/cae/editarCfc', { idCfc: b.body.id, desde: 5 });
    assert.equal(over.body.code, 'CFC_SUPERPUESTO');
    await reserve(company.id, 224, 'A', 15);
    await assert.rejects(reserve(company.id, 224, 'A', 15), (e: { code: string }) => e.code === 'CFC_NUMERO_NO_DISPONIBLE');
    await assert.rejects(reserve(company.id, 224, 'A', 21), (e: { code: string }) => e.code === 'CFC_NUMERO_NO_DISPONIBLE');
    await assert.rejects(reserve(company.id, 124, 'A', 2), (e: { code: string }) => e.code === 'CFC_TIPO_INVALIDO');
    const shrink = await t.call(admin, 'POST', '/api/v1/cae/editarCfc', { idCfc: b.body.id, hasta: 14 });
    assert.equal(shrink.status, 409);
    assert.equal(shrink.body.code, 'CFC_NUMEROS_UTILIZADOS');
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/editarCfc', { idCfc: b.body.id, serie: 'B' })).body.code, 'CFC_NUMEROS_UTILIZADOS');
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/editarCfc', { idCfc: a.body.id, serie: 'B' })).status, 200);
    const none = await t.call(admin, 'POST', '/api/v1/cae/editarCfc', { idCfc: 999999, serie: 'B' });
    assert.deepEqual([none.status, none.body.code], [404, 'CFC_NO_ENCONTRADO']);
  });

  test('the same paper number reserved concurrently is used once', async () => {
    await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(company.id, { tipoCFC: 282, desde: 1, hasta: 5 }));
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => reserve(company.id, 282, 'A', 3)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  });
});

describe('access', () => {
  test("another company's CFC ranges are invisible", async () => {
    const c = await t.call(admin, 'POST', '/api/v1/cae/altaCfc', range(other.id, { tipoCFC: 213 }));
    const user = await createUser(t, admin, `cfc-${Date.now()}@test.uy`, [{ idEmpresa: company.id, rol: 'administrador' }]);
    const ed = await t.call(user.token, 'POST', '/api/v1/cae/editarCfc', { idCfc: c.body.id, constancia: 'x' });
    assert.deepEqual([ed.status, ed.body.code], [404, 'CFC_NO_ENCONTRADO']);
    assert.equal((await t.call(user.token, 'POST', '/api/v1/cae/altaCfc', range(other.id, { tipoCFC: 213, desde: 500, hasta: 600 }))).status, 404);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cae/numeroDisponibleContingencia?idEmpresa=${other.id}&tipoCFC=213&serie=A&numero=5`)).status, 404);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cae/cfc/todos?idEmpresa=${other.id}`)).status, 404);
    // The own company does not see the other company's range either.
    assert.equal((await t.call(user.token, 'GET', `/api/v1/cae/numeroDisponibleContingencia?idEmpresa=${company.id}&tipoCFC=213&serie=A&numero=5`)).body.motivo, 'fuera_de_rango');
    await assert.rejects(reserve(company.id, 213, 'A', 5), (e: { code: string }) => e.code === 'CFC_NUMERO_NO_DISPONIBLE');
  });
});
