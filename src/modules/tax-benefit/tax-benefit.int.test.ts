/**
 * Tax-benefit declarations (issue 35 points 2-5) through the HTTP app on a real database, with the
 * in-process simulator as DGI's registry and BCU: the start date (registry, company, neither), a
 * declaration saved and refused per rule, supersession and the list, the status with the month's
 * credit at a known UI value, the PDF read back with pdftotext, and access.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { companies } from '../companies/companies.tables.js';
import { pdfText, requirePoppler } from '../cfe-documents/cfe-documents.test-helpers.js';
import { setUpDgiIssuer, simulatorOf } from '../dgi-submission/dgi-submission.test-helpers.js';

const BASE = '/api/v1/empresa/beneficio-fiscal';
let t: TestApp;
let admin: string;
let a: { id: number; rut: string; razonSocial: string };
let c: { id: number; rut: string };
let d: { id: number; rut: string };

const declare = (body: Record<string, unknown>, token = admin) => t.call(token, 'POST', `${BASE}/declaracion`, body);
const declarante = { nombre: 'Ana Pérez', documento: '1.234.567-8', cargo: 'Directora' };
const d206 = (extra: Record<string, unknown> = {}) => ({
  idEmpresa: a.id, anioFiscal: 2026, regimen: 'decreto_206_019', fundamento: 'ingresos_hasta_750000_ui', ingresosAnioAnterior: '4687500.00', declarante, aceptaDeclaracionJurada: true, ...extra,
});
const d324 = (inversiones: unknown[], extra: Record<string, unknown> = {}) => ({ idEmpresa: a.id, anioFiscal: 2026, regimen: 'decreto_324_011', inversiones, declarante, aceptaDeclaracionJurada: true, ...extra });
const hw = (fecha: string) => ({ descripcion: 'Impresora fiscal', tipo: 'hardware', fecha, moneda: 'UYU', montoSinIva: '25000.00' });
async function pdf(token: string, id: number) {
  const r = await t.app.inject({ method: 'GET', url: `${BASE}/declaracion/pdf?id=${id}`, headers: { authorization: `Bearer ${token}` } });
  return { status: r.statusCode, raw: r.rawPayload, type: r.headers['content-type'], json: () => r.json() };
}

before(async () => {
  requirePoppler();
  t = await createTestApp();
  admin = await t.adminToken();
  const issuer = await setUpDgiIssuer(t, admin);
  a = issuer.company as typeof a;
  const sim = await simulatorOf(t);
  // DGI's registry: A is an electronic issuer since 01/03/2025 (the CAE the simulator issued would say today).
  sim.control.registry.set({ RUC: a.rut, DENOMINACION: 'EMPRESA A SA', FECHA_INICIO: '2025-03-01', FECHA_FIN_TRANSICION: '2025-09-01', FECHA_FIN: null, MAIL: 'cfe@empresa-a.uy' });
  sim.control.setRate(9800, '2025-12-31', '6.2500'); // UI at the close of 2025
  sim.control.setRate(9800, '2026-11-30', '6.4000'); // UI at the end of November 2026
  sim.control.setRate(2225, '2025-04-10', '40.000'); // USD on a SaaS invoice date
  c = await insertCompany(t);
  await t.db.update(companies).set({ fechaResolucion: '2024-05-20' }).where(eq(companies.id, c.id));
  d = await insertCompany(t);
});
after(async () => t?.close());

describe('happy path', () => {
  test('fecha-inicio: from DGI\'s registry (asked right away when not synced), else the company, with source and read time', async () => {
    const r = await t.call(admin, 'GET', `${BASE}/fecha-inicio?idEmpresa=${a.id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.fechaInicio, '2025-03-01');
    assert.equal(r.body.fuente, 'registro_dgi');
    assert.ok(Date.now() - Date.parse(r.body.leidoEn) < 60_000);
    assert.deepEqual(r.body.registro, { denominacion: 'EMPRESA A SA', fechaFinTransicion: '2025-09-01', fechaFin: null, mail: 'cfe@empresa-a.uy' });
    const fromCompany = await t.call(admin, 'GET', `${BASE}/fecha-inicio?idEmpresa=${c.id}`);
    assert.deepEqual({ ...fromCompany.body, idEmpresa: undefined }, { idEmpresa: undefined, rut: c.rut, fechaInicio: '2024-05-20', fuente: 'empresa', leidoEn: null, registro: null });
  });

  test('Decreto 206/019 by income at the UI of 31/12 of the prior year; a new one supersedes it; the list keeps both', async () => {
    const first = await declare(d206());
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.estado, 'vigente');
    assert.equal(first.body.hechos.ingresosAnioAnteriorUi, '750000.00');
    assert.equal(first.body.hechos.valorUiCierre, '6.2500');
    assert.equal(first.body.hechos.empresa.rut, a.rut);
    const second = await declare(d206({ ingresosAnioAnterior: '3000000.00' }));
    assert.equal(second.status, 201, JSON.stringify(second.body));
    const list = await t.call(admin, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}&regimen=decreto_206_019`);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 2);
    assert.deepEqual(list.body.data.map((x: any) => [x.id, x.estado, x.reemplazadaPor]), [[second.body.id, 'vigente', null], [first.body.id, 'reemplazada', second.body.id]]);
    const events = (await t.db.execute(sql`select data from outbox_events where company_id = ${a.id} and type = 'BeneficioFiscal.Declarada' order by id`)).rows as Array<{ data: { id: number; idReemplazada: number | null } }>;
    assert.deepEqual(events.map((e) => [e.data.id, e.data.idReemplazada]), [[first.body.id, null], [second.body.id, first.body.id]]);
    const paged = await t.call(admin, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}&length=1&start=1`);
    assert.equal(paged.body.total, 2);
    assert.deepEqual(paged.body.data.map((x: any) => x.id), [first.body.id]);
  });

  test('Decreto 324/011 with investments inside the window: exemption 50 % over 5 years', async () => {
    const r = await declare(d324([hw('2024-03-01'), { descripcion: 'Servicio CFE', tipo: 'saas', fecha: '2025-04-10', moneda: 'UYU', montoSinIva: '120000.00' }]));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.fechaInicioEmisor, '2025-03-01');
    assert.equal(r.body.fuenteFechaInicio, 'registro_dgi');
    assert.deepEqual(r.body.hechos.exoneracion, { porcentaje: 50, ejercicios: 5, topeImpuestoPorcentaje: 60, invertido: { UYU: '145000.00' }, exonerable: { UYU: '72500.00' } });
  });

  test('estado: in force, which, until when, and the month\'s credit 80 UI at the month\'s UI value', async () => {
    const r = await t.call(admin, 'GET', `${BASE}/estado?idEmpresa=${a.id}&fecha=2026-11-25`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.periodo, '2026-11');
    assert.equal(r.body.decreto_206_019.vigente, true);
    assert.equal(r.body.decreto_206_019.declaracion.hechos.ingresosAnioAnterior, '3000000.00', 'the superseding one');
    assert.equal(r.body.decreto_206_019.vigenteHasta, '2026-12-31');
    assert.deepEqual(r.body.decreto_206_019.creditoMensual, { topeUi: '80', valorUi: '6.4000', fechaValorUi: '2026-11-30', topePesos: '512.00' });
    assert.equal(r.body.decreto_324_011.vigente, true);
    const none = await t.call(admin, 'GET', `${BASE}/estado?idEmpresa=${a.id}&fecha=2025-06-10`);
    assert.equal(none.body.decreto_206_019.vigente, false);
    assert.equal(none.body.decreto_206_019.creditoMensual, null);
  });

  test('the PDF: dated, with the company, the regime, the facts and the declarant; a superseded one says so', async () => {
    const list = await t.call(admin, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}&regimen=decreto_206_019`);
    const [current, old] = list.body.data;
    const r = await pdf(admin, current.id);
    assert.equal(r.status, 200);
    assert.equal(r.type, 'application/pdf');
    const text = pdfText(r.raw);
    for (const expected of ['DECLARACIÓN JURADA', 'Decreto 206/019', a.razonSocial, `RUT: ${a.rut}`, 'Ingresos del ejercicio 2025', '480.000,00 UI', 'Ana Pérez', 'Directora', 'Declaro bajo juramento', 'Impreso el', `Declaración N° ${current.id}`]) {
      assert.ok(text.includes(expected), `PDF lacks "${expected}":\n${text}`);
    }
    assert.match(text, /Montevideo, \d{2}\/\d{2}\/\d{4}/);
    assert.doesNotMatch(text, /REEMPLAZADA/);
    assert.match(pdfText((await pdf(admin, old.id)).raw), new RegExp(`REEMPLAZADA por la declaración N° ${current.id}`));
  });
});

describe('errors: each rule gives 422 naming it', () => {
  const refused = async (body: Record<string, unknown>, code: string, campo?: string) => {
    const r = await declare(body);
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, code);
    assert.equal(r.body.regla, code);
    assert.ok(r.body.error.includes(code), 'the message names the rule');
    if (campo) assert.equal(r.body.campo, campo);
  };
  test('Decreto 206/019', async () => {
    await refused(d206({ ingresosAnioAnterior: '4687500.07' }), 'BENEFICIO_206_INGRESOS_SUPERAN_TOPE', 'ingresosAnioAnterior');
    await refused(d206({ fundamento: 'literal_e', ingresosAnioAnterior: undefined }), 'BENEFICIO_206_NO_LITERAL_E');
    await refused(d206({ anioFiscal: 2018 }), 'BENEFICIO_206_FUERA_DE_VIGENCIA', 'anioFiscal');
    await refused(d206({ fundamento: 'inicio_actividad', ingresosAnioAnterior: undefined, fechaInicioActividad: '2024-01-01' }), 'BENEFICIO_206_INICIO_FUERA_DE_PLAZO');
    await refused(d206({ fundamento: undefined }), 'BENEFICIO_DATO_REQUERIDO', 'fundamento');
  });
  test('Decreto 324/011', async () => {
    await refused(d324([hw('2024-02-29')]), 'BENEFICIO_324_INVERSION_FUERA_DE_PLAZO', 'inversiones.0.fecha');
    await refused(d324([hw('2025-07-02')]), 'BENEFICIO_324_INVERSION_FUERA_DE_PLAZO');
    await refused(d324([{ descripcion: 'Servicio CFE', tipo: 'saas', fecha: '2025-04-10', moneda: 'USD', montoSinIva: '3000.01' }]), 'BENEFICIO_324_SAAS_SUPERA_TOPE');
    await refused(d324([hw('2025-04-01')], { fechaInicioEmisor: '2025-04-01' }), 'BENEFICIO_FECHA_INICIO_DISTINTA');
    await refused(d324([]), 'BENEFICIO_DATO_REQUERIDO', 'inversiones');
    await refused({ ...d324([hw('2025-04-01')]), idEmpresa: d.id }, 'BENEFICIO_FECHA_INICIO_DESCONOCIDA');
  });
  test('nothing refused was saved; bad input is 400; fecha-inicio unknown is 404', async () => {
    const list = await t.call(admin, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}`);
    assert.equal(list.body.total, 3);
    const unknown = await declare({ ...d206(), extra: 1 });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'CAMPO_DESCONOCIDO');
    assert.equal((await declare(d206({ aceptaDeclaracionJurada: false }))).status, 400);
    assert.equal((await declare(d206({ ingresosAnioAnterior: '12.345' }))).status, 400);
    // Registry never synced: "not synced yet" (503), not "not in the registry" (issue 42 point 7).
    const early = await t.call(admin, 'GET', `${BASE}/fecha-inicio?idEmpresa=${d.id}`);
    assert.equal(early.status, 503, JSON.stringify(early.body));
    assert.equal(early.body.code, 'REGISTRO_EMISORES_NO_SINCRONIZADO');
    assert.match(early.body.error, /todavía no se sincronizó/);
    assert.equal((await t.modules.services.issuerRegistry.sync()).status, 'ok');
    const none = await t.call(admin, 'GET', `${BASE}/fecha-inicio?idEmpresa=${d.id}`);
    assert.equal(none.status, 404);
    assert.equal(none.body.code, 'FECHA_INICIO_NO_DISPONIBLE');
    assert.match(none.body.error, new RegExp(`el RUT ${d.rut} no figura en el registro de emisores de DGI \\(sincronizado el `));
    assert.equal((await pdf(admin, 999999)).status, 404);
  });
});

describe('access', () => {
  test('another company\'s declarations are invisible; reading needs lectura, declaring administrador', async () => {
    const list = await t.call(admin, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}`);
    const id = list.body.data[0].id;
    const other = await createUser(t, admin, 'otra@beneficio.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    assert.equal((await t.call(other.token, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}`)).status, 404);
    assert.equal((await t.call(other.token, 'GET', `${BASE}/estado?idEmpresa=${a.id}`)).status, 404);
    assert.equal((await t.call(other.token, 'GET', `${BASE}/fecha-inicio?idEmpresa=${a.id}`)).status, 404);
    const p = await pdf(other.token, id);
    assert.equal(p.status, 404);
    assert.equal(p.json().code, 'DECLARACION_NO_ENCONTRADA');
    assert.equal((await declare(d206(), other.token)).status, 404);
    const reader = await createUser(t, admin, 'lector@beneficio.uy', [{ idEmpresa: a.id, rol: 'lectura' }]);
    assert.equal((await t.call(reader.token, 'GET', `${BASE}/declaraciones?idEmpresa=${a.id}`)).status, 200);
    assert.equal((await pdf(reader.token, id)).status, 200);
    assert.equal((await declare(d206(), reader.token)).status, 403);
  });
});
