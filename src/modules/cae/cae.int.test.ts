/** CAE endpoints through the HTTP app: the real DGI sample files, refusals, counters and access. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/test-ca.js';
import { addDays, uyToday } from '../../lib/dates.js';
import { signEnveloped } from '../dgi/simulator/xmldsig.js';
import * as repo from './cae.repository.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../../test/fixtures/dgi/cae');
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
    assert.equal(res.body.advertencias.length, 2);
    assert.ok(res.body.advertencias.some((w: string) => /venció el 2014-08-24/.test(w)), 'an expired CAE is reported');
  });

  test("the DGI simulator's CAE files are trusted in simulator mode (demo, tests)", async () => {
    const company = await insertCompany(t);
    const sim = (await t.modules.services.lookups.simulator())!;
    const { xml } = sim.control.issueCae({ rucEmisor: company.rut, tipoCfe: 101, serie: 'A', desde: 1, hasta: 500, fechaVencimiento: addDays(uyToday(), 365) });
    const res = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: company.id, xml });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.origen, 'xml');
  });

  test('a range after a voided one may reuse its span; ranges next to each other are fine', async () => {
    const company = await insertCompany(t);
    const first = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 111, serie: 'A', desde: 1, hasta: 100 }));
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/anular-completo', { idCae: first.body.id })).status, 200);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 111, serie: 'A', desde: 50, hasta: 150 }))).status, 201);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 111, serie: 'A', desde: 151, hasta: 200 }))).status, 201);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 111, serie: 'B', desde: 1, hasta: 200 }))).status, 201);
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

  test('an overlapping range (manual or file) is a 409 CAE_SUPERPUESTO and numbering goes on without repeats', async () => {
    const company = await insertCompany(t);
    const base = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 111, serie: 'A', desde: 1, hasta: 10_000 }));
    assert.equal(base.status, 201);
    const cae = t.modules.services.cae;
    for (let i = 0; i < 3; i++) await t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 111 }));
    for (const [desde, hasta] of [[1, 100], [9_000, 20_000], [500, 600]]) {
      const res = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 111, serie: 'A', desde, hasta, fechaVencimiento: addDays(uyToday(), 5) }));
      assert.equal(res.status, 409, `${desde}-${hasta}`);
      assert.equal(res.body.code, 'CAE_SUPERPUESTO');
    }
    const sim = (await t.modules.services.lookups.simulator())!;
    const { xml } = sim.control.issueCae({ rucEmisor: company.rut, tipoCfe: 111, serie: 'A', desde: 10_000, hasta: 10_500, fechaVencimiento: addDays(uyToday(), 5) });
    const fromFile = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: company.id, xml });
    assert.equal(fromFile.status, 409);
    assert.equal(fromFile.body.code, 'CAE_SUPERPUESTO');
    const next = await t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 111 }));
    assert.deepEqual([next.caeRangeId, next.numero], [base.body.id, 4]);
  });

  test('concurrent overlapping imports: exactly one is stored', async () => {
    const company = await insertCompany(t);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 101, serie: 'A', desde: 1 + i * 10, hasta: 1000 + i * 10, numeroCae: String(90260100000 + i) }))),
    );
    assert.deepEqual(results.map((r) => r.status).filter((s) => s !== 409), [201]);
    assert.ok(results.filter((r) => r.status === 409).every((r) => r.body.code === 'CAE_SUPERPUESTO'));
  });

  test('an import waits for a concurrent import of the same type and serie, then sees its range', async () => {
    const company = await insertCompany(t);
    let release!: () => void;
    let locked!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const isLocked = new Promise<void>((r) => (locked = r));
    // An import in flight: series locked and its range inserted, not yet committed.
    const inFlight = t.db.transaction(async (tx) => {
      await repo.lockSeries(tx, { companyId: company.id, tipoCfe: 101, serie: 'A' });
      await repo.insertRange(tx, { companyId: company.id, tipoCfe: 101, serie: 'A', dNro: 1, hNro: 1000, nextNumber: 1, caeNumber: '90260200001', fa: uyToday(), fvd: addDays(uyToday(), 30), origin: 'manual' });
      locked();
      await held;
    });
    await isLocked;
    const second = t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(company.id, { tipoCfe: 101, serie: 'A', desde: 900, hasta: 1900 }));
    await new Promise((r) => setTimeout(r, 150));
    release();
    await inFlight;
    const res = await second;
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'CAE_SUPERPUESTO');
  });

  test('a CAE file signed by a look-alike of DGI is CAE_FIRMANTE_NO_CONFIABLE', async () => {
    const evilCa = createTestCa({ name: 'Correo Uruguayo - CA' });
    const forged = issueTestCertificate(evilCa, { rut: '214844360018', name: 'DIRECCION GENERAL IMPOSITIVA' });
    const company = await insertCompany(t);
    const da = `<ns0:RucE>${company.rut}</ns0:RucE><ns0:TCFE>111</ns0:TCFE><ns0:Serie>A</ns0:Serie><ns0:DNro>1</ns0:DNro><ns0:HNro>1000</ns0:HNro><ns0:TA>E</ns0:TA><ns0:NA>90260000013</ns0:NA><ns0:FA>${uyToday()}</ns0:FA><ns0:FVD>${addDays(uyToday(), 300)}</ns0:FVD>`;
    const xml = signEnveloped(`<ns0:CAE xmlns:ns0="http://cfe.dgi.gub.uy" version="1.0"><ns0:TmstFrma>${new Date().toISOString().slice(0, 19)}-00:00</ns0:TmstFrma><ns0:DA>${da}</ns0:DA></ns0:CAE>`, forged.keyPem, forged.certPem);
    const check = await t.call(admin, 'POST', '/api/v1/cae/validar', { idEmpresa: company.id, xml });
    assert.equal(check.status, 200);
    assert.equal(check.body.valido, false);
    assert.deepEqual(check.body.problemas.map((p: { codigo: string }) => p.codigo), ['CAE_FIRMANTE_NO_CONFIABLE']);
    const imp = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: company.id, xml });
    assert.equal(imp.status, 400);
    assert.equal(imp.body.code, 'CAE_FIRMANTE_NO_CONFIABLE');
  });

  test('validar answers incomplete files with valido false, not 500', async () => {
    for (const xml of ['<CAE><DA><RucE>1</RucE></DA></CAE>', '<CAE><DA><RucE>1</RucE><RucE>2</RucE></DA></CAE>']) {
      const res = await t.call(admin, 'POST', '/api/v1/cae/validar', { idEmpresa: other.id, xml });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.valido, false);
      assert.equal(res.body.datos, null);
      assert.ok(res.body.problemas.every((p: { codigo: string }) => p.codigo === 'CAE_XML_INVALIDO'));
    }
  });

  test('manual data breaking DGI rules: impossible dates and out-of-range numbers on the field, rules with their code', async () => {
    const field = async (over: Record<string, unknown>, campo: string) => {
      const res = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(other.id, { serie: 'Z', ...over }));
      assert.equal(res.status, 400, JSON.stringify(over));
      assert.ok(res.body.campos?.some((c: { campo: string }) => c.campo === campo), JSON.stringify(res.body));
    };
    await field({ fechaAutorizacion: '2026-02-30' }, 'fechaAutorizacion');
    await field({ fechaVencimiento: '2026-13-01' }, 'fechaVencimiento');
    await field({ hasta: 900_000_000 }, 'hasta');
    await field({ hasta: 3_000_000_000 }, 'hasta');
    await field({ idEmpresa: 3_000_000_000 }, 'idEmpresa');
    const rule = async (over: Record<string, unknown>, code: string) => {
      const res = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual(other.id, { serie: 'Z', ...over }));
      assert.equal(res.status, 400, JSON.stringify(over));
      assert.equal(res.body.code, code, JSON.stringify(over));
    };
    await rule({ tipoCfe: 999 }, 'CAE_TIPO_INVALIDO');
    await rule({ tipoCfe: 211 }, 'CAE_TIPO_INVALIDO');
    await rule({ desde: 1, hasta: 1_000_001 }, 'CAE_RANGO_INVALIDO');
    await rule({ fechaVencimiento: addDays(uyToday(), 800) }, 'CAE_RANGO_INVALIDO');
    await rule({ fechaAutorizacion: addDays(uyToday(), 1), fechaVencimiento: addDays(uyToday(), 30) }, 'CAE_RANGO_INVALIDO');
    const list = await t.call(admin, 'GET', `/api/v1/cae/todos?idEmpresa=${other.id}&serie=Z`);
    assert.equal(list.body.total, 0);
  });

  test('numbers beyond the column types are a 400, not a database error', async () => {
    for (const url of [`/api/v1/cae/todos?idEmpresa=${other.id}&tipoCfe=-3000000000`, '/api/v1/cae/todos?idEmpresa=3000000000', '/api/v1/cae/obtenerDisponibilidad?idEmpresa=3000000000']) {
      assert.equal((await t.call(admin, 'GET', url)).status, 400, url);
    }
    for (const [url, body] of [
      ['/api/v1/cae/anular-completo', { idCae: 3_000_000_000 }],
      ['/api/v1/cae/ajustar-proximo-numero', { idCae: 1, proximoNumero: 3_000_000_000 }],
      ['/api/v1/cae/modificarSucursal', { idCae: 1, idSucursal: 3_000_000_000 }],
    ] as const) {
      assert.equal((await t.call(admin, 'POST', url, body)).status, 400, url);
    }
    // A company id beyond integer cannot exist: tenancy answers like any unknown company, without a query.
    const company = await t.call(admin, 'POST', '/api/v1/cae/importar', { idEmpresa: 3_000_000_000, xml: '<CAE/>' });
    assert.equal(company.status, 404);
    assert.equal(company.body.code, 'EMPRESA_NO_ENCONTRADA');
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
