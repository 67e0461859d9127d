/** CAE endpoints through the HTTP app: the real DGI sample files, refusals, counters and access. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { addDays, uyToday } from '../../lib/dates.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../../../shared/dgi/samples/cae');
const sample = (name: string) => fs.readFileSync(path.join(SAMPLES, name), 'utf8');
const files = fs.readdirSync(SAMPLES).filter((f) => f.endsWith('.xml'));

let t: TestApp;
let admin: string;
let dgiTest: { id: number };
let other: { id: number };

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  dgiTest = await insertCompany(t, { rut: '219999830019' });
  await insertCompany(t, { rut: '215071660012' });
  other = await insertCompany(t);
});
after(async () => t.close());

function manual(idEmpresa: number, over: Record<string, unknown> = {}) {
  return { idEmpresa, tipoCfe: 101, serie: 'B', desde: 1, hasta: 100, numeroCae: String(90260000000 + Math.floor(Math.random() * 1e6)), fechaAutorizacion: uyToday(), fechaVencimiento: addDays(uyToday(), 60), ...over };
}

describe('happy path', () => {
  test('the five real DGI CAE files import (the 2012 ones without <TA> too)', async () => {
    for (const f of files) {
      const rut = /CAE_(\d{12})_/.exec(f)![1];
      const company = rut === '219999830019' ? dgiTest.id : (await t.call(admin, 'GET', '/api/v1/usuario/empresas')).body.find((c: { rut: string }) => c.rut === rut).idEmpresa;
      const res = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: company, xml: sample(f) });
      assert.equal(res.status, 201, `${f}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.origen, 'xml');
      assert.equal(res.body.numeroCae, /_(\d{11})_/.exec(f)![1]);
    }
    const list = await t.call(admin, 'GET', `/api/v1/cae/todos?idEmpresa=${dgiTest.id}&tipoCfe=113&vencidos=1`);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 2);
    assert.equal(list.body.data[0].estado, 'vencido');
    assert.equal(list.body.data[0].disponibles, 0);
  });

  test('validar reports the contents without storing', async () => {
    const res = await t.call(admin, 'POST', '/api/v1/cae/validar', { xml: sample(files[1]) });
    assert.equal(res.status, 200);
    assert.equal(res.body.valido, true);
    assert.equal(res.body.datos.rucE, '219999830019');
    assert.match(res.body.firmante.subject, /serialNumber=RUC219999830019/);
    assert.equal(res.body.advertencias.length, 1);
  });

  test('manual import, adjust forward, void remainder, availability', async () => {
    const created = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(other.id));
    assert.equal(created.status, 201);
    const id = created.body.id;
    await t.db.transaction((tx) => t.modules.services.cae.reserveNumber(tx, { companyId: other.id, branchId: null, tipoCfe: 101 }));
    const avail = await t.call(admin, 'GET', `/api/v1/cae/obtenerDisponibilidad?idEmpresa=${other.id}`);
    assert.equal(avail.status, 200);
    assert.equal(avail.body[0].numerosDisponibles, 99);
    assert.equal(avail.body[0].usoUltimos30Dias, 1);
    assert.ok(avail.body[0].fechaEstimadaAgotamiento);
    const back = await t.call(admin, 'POST', '/api/v1/cae/ajustar-proximo-numero', { idCae: id, proximoNumero: 2 });
    assert.equal(back.status, 400);
    assert.equal(back.body.code, 'CAE_NUMERO_INVALIDO');
    const adj = await t.call(admin, 'POST', '/api/v1/cae/ajustar-proximo-numero', { idCae: id, proximoNumero: 11 });
    assert.equal(adj.status, 200);
    assert.deepEqual([adj.body.proximoNumero, adj.body.utilizados, adj.body.anulados, adj.body.disponibles], [11, 1, 9, 90]);
    const voided = await t.modules.services.cae.voidedNumbersOn(t.db, other.id, uyToday());
    assert.deepEqual(voided.map((v) => [v.desde, v.hasta, v.motivo]), [[2, 10, 'ajuste']]);
    const annul = await t.call(admin, 'POST', '/api/v1/cae/anular-completo', { idCae: id });
    assert.equal(annul.status, 200);
    assert.deepEqual([annul.body.estado, annul.body.anulados, annul.body.disponibles, annul.body.proximoNumero], ['anulado', 99, 0, null]);
    await assert.rejects(t.db.transaction((tx) => t.modules.services.cae.reserveNumber(tx, { companyId: other.id, branchId: null, tipoCfe: 101 })));
  });
});

describe('errors', () => {
  test('a tampered file is refused with CAE_FIRMA_INVALIDA', async () => {
    const xml = sample(files[0]).replace('<ns0:HNro>1000</ns0:HNro>', '<ns0:HNro>9000</ns0:HNro>');
    const res = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: (await companyByRut('215071660012')), xml });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'CAE_FIRMA_INVALIDA');
  });

  test('a CAE of another RUT is refused with CAE_RUT_DISTINTO', async () => {
    const res = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: other.id, xml: sample(files[1]) });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'CAE_RUT_DISTINTO');
  });

  test('the same CAE twice is refused; garbage is a 400; bad manual range is a 400', async () => {
    const again = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: dgiTest.id, xml: sample(files[1]) });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'CAE_DUPLICADO');
    const junk = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: dgiTest.id, xml: '<hola/>' });
    assert.equal(junk.status, 400);
    assert.equal(junk.body.code, 'CAE_XML_INVALIDO');
    const missing = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: dgiTest.id });
    assert.equal(missing.status, 400);
    const bad = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(other.id, { desde: 50, hasta: 10 }));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'CAE_RANGO_INVALIDO');
  });
});

describe('access', () => {
  test("another company's ranges are invisible and untouchable", async () => {
    const mine = await insertCompany(t);
    const user = await createUser(t, admin, `cae-admin-${Date.now()}@test.uy`, [{ idEmpresa: mine.id, rol: 'administrador' }]);
    const foreign = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(other.id, { serie: 'C' }));
    const list = await t.call(user.token, 'GET', `/api/v1/cae/todos?idEmpresa=${other.id}`);
    assert.equal(list.status, 404);
    for (const [url, body] of [
      ['/api/v1/cae/ajustar-proximo-numero', { idCae: foreign.body.id, proximoNumero: 5 }],
      ['/api/v1/cae/anular-completo', { idCae: foreign.body.id }],
      ['/api/v1/cae/modificarSucursal', { idCae: foreign.body.id, idSucursal: null }],
    ] as const) {
      const res = await t.call(user.token, 'POST', url, body);
      assert.equal(res.status, 404, url);
      assert.equal(res.body.code, 'CAE_NO_ENCONTRADO');
    }
    const imp = await t.call(user.token, 'POST', '/api/v1/cae/importar', { idEmpresa: other.id, xml: sample(files[0]) });
    assert.equal(imp.status, 404);
  });
});

async function companyByRut(rut: string): Promise<number> {
  const res = await t.call(admin, 'GET', '/api/v1/usuario/empresas');
  return res.body.find((c: { rut: string }) => c.rut === rut).idEmpresa;
}
