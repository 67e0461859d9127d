/**
 * POST /api/v1/usage-events through the HTTP app on a real database (issue 33 points 2 and 5): each
 * aggregation against an expectation computed here, retries and conflicts, concurrent retries of one
 * batch counted once, every rejection reason, late events within and beyond the grace, access.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Decimal } from 'decimal.js';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser } from '../../../test/support/factories.js';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { foldSlots } from './ingestion.repository.js';
import { zonedMonthStart } from './usage.rules.js';
import { ago, HOUR, ok, send, usageCompany } from './usage.test-helpers.js';

let t: TestApp;
let admin: string;
let a: Awaited<ReturnType<typeof usageCompany>>;
let b: Awaited<ReturnType<typeof usageCompany>>;
let ca: { id: number; idExterno: string };
let cb: { id: number };
let emisorA: string;

const METRICS = [
  { codigo: 'calls', nombre: 'Llamadas', unidad: 'llamadas', agregacion: 'count', clavesAgrupacion: ['region', 'plan'] },
  { codigo: 'bytes', nombre: 'Bytes', unidad: 'B', agregacion: 'sum', propiedad: 'bytes', clavesAgrupacion: ['region'] },
  { codigo: 'peak', nombre: 'Pico', unidad: 'conexiones', agregacion: 'max', propiedad: 'conns', clavesAgrupacion: ['region'] },
  { codigo: 'users', nombre: 'Usuarios', unidad: 'usuarios', agregacion: 'unique_count', propiedad: 'user', clavesAgrupacion: ['region'] },
  { codigo: 'level', nombre: 'Nivel', unidad: 'u', agregacion: 'latest', propiedad: 'level' },
];
const REGIONS = ['norte', 'sur', 'este'];
// The range every query here reads: from 60 h ago (whole hour) to the next whole hour.
const range = () => {
  const start = new Date(Math.floor((Date.now() - 60 * HOUR) / HOUR) * HOUR).toISOString();
  const end = new Date(Math.ceil((Date.now() + 1) / HOUR) * HOUR).toISOString();
  return `start=${start}&end=${end}`;
};
async function usage(contractId: number, extra = '', token = admin) {
  return ok(t.call(token, 'GET', `/api/v1/contracts/${contractId}/usage?${range()}${extra}`), 200);
}
const byGroup = (body: any, metric: string) => Object.fromEntries(body.datos.filter((d: any) => d.metrica === metric).map((d: any) => [d.grupo.region ?? '-', d.cantidad]));

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  a = await usageCompany(t, admin, METRICS);
  b = await usageCompany(t, admin, METRICS);
  ca = await a.contract('CTR-A', METRICS.map((m) => m.codigo));
  cb = await b.contract('CTR-B', ['calls']);
  emisorA = (await createUser(t, admin, 'emisor-uso@test.uy', [{ idEmpresa: a.companyId, rol: 'emisor' }])).token;
});
after(() => t.close());

describe('happy path', () => {
  test('every aggregation equals the expectation computed from what was sent, grouped by region', async () => {
    const expected = { calls: {} as Record<string, number>, bytes: {} as Record<string, Decimal>, peak: {} as Record<string, Decimal>, users: {} as Record<string, Set<string>> };
    let latest = { at: 0, level: '' };
    const events: any[] = [];
    for (let i = 0; i < 240; i++) {
      const region = REGIONS[i % 3];
      const at = ago(48 - (i % 48) - 0.25 + (i % 7) / 100);
      const bytes = `${(i * 37) % 1000}.${i % 100}`;
      const conns = String((i * 13) % 97);
      const user = `u${(i * 7) % 11}`;
      const level = `${i}.5`;
      const metric = METRICS[i % 5].codigo;
      const props: Record<string, unknown> = { region, plan: i % 2 ? 'pro' : 'base', bytes, conns, user, level };
      events.push({ idTransaccion: `ev-${i}`, idExternoContrato: 'CTR-A', metrica: metric, fechaHora: at, propiedades: props });
      if (metric === 'calls') expected.calls[region] = (expected.calls[region] ?? 0) + 1;
      if (metric === 'bytes') expected.bytes[region] = (expected.bytes[region] ?? new Decimal(0)).plus(bytes);
      if (metric === 'peak') expected.peak[region] = Decimal.max(expected.peak[region] ?? new Decimal(-1), conns);
      if (metric === 'users') (expected.users[region] ??= new Set()).add(user);
      if (metric === 'level' && new Date(at).getTime() >= latest.at) latest = { at: new Date(at).getTime(), level };
    }
    for (let i = 0; i < events.length; i += 100) {
      const r = await send(t, emisorA, undefined, events.slice(i, i + 100));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.aceptados, Math.min(100, events.length - i));
    }
    // group_by must be declared by every metric queried: one query per metric.
    const q = async (m: string) => byGroup(await usage(ca.id, `&group_by=region&metrica=${m}`), m);
    const body = await usage(ca.id);
    assert.deepEqual(await q('calls'), Object.fromEntries(Object.entries(expected.calls).map(([k, v]) => [k, String(v)])));
    assert.deepEqual(await q('bytes'), Object.fromEntries(Object.entries(expected.bytes).map(([k, v]) => [k, v.toFixed()])));
    assert.deepEqual(await q('peak'), Object.fromEntries(Object.entries(expected.peak).map(([k, v]) => [k, v.toFixed()])));
    assert.deepEqual(await q('users'), Object.fromEntries(Object.entries(expected.users).map(([k, v]) => [k, String(v.size)])));
    assert.equal(body.final, false);
    // latest has no group keys: it is queried on its own (group_by must be declared by every metric queried).
    const lvl = await usage(ca.id, '&metrica=level');
    assert.deepEqual(lvl.datos.map((d: any) => d.cantidad), [latest.level]);
    // Ungrouped unique_count is the distinct count over all regions, not the sum of the groups.
    const users = await usage(ca.id, '&metrica=users');
    assert.equal(users.datos[0].cantidad, String(new Set(Object.values(expected.users).flatMap((s) => [...s])).size));
  });
});

describe('retries and conflicts', () => {
  test('a retry is a duplicate, other content under the same id a conflict; neither is counted', async () => {
    const ev = (id: string, region: string, at = ago(2)) => ({ idTransaccion: id, idContrato: ca.id, metrica: 'calls', fechaHora: at, propiedades: { region } });
    const before = (await usage(ca.id, '&metrica=calls')).datos[0]?.cantidad ?? '0';
    const at = ago(3);
    const first = await send(t, emisorA, undefined, [ev('r-1', 'oeste', at), ev('r-2', 'oeste', at)]);
    assert.equal(first.status, 200);
    const again = await send(t, emisorA, undefined, [ev('r-1', 'oeste', at), ev('r-2', 'centro', at), ev('r-3', 'oeste', at), ev('r-3', 'oeste', at), ev('r-4', 'oeste', at), ev('r-4', 'sur', at)]);
    assert.equal(again.status, 207);
    assert.deepEqual(again.body.resultados.map((r: any) => r.estado), ['duplicado', 'conflicto', 'aceptado', 'duplicado', 'aceptado', 'conflicto']);
    assert.equal(again.body.resultados[1].codigo, 'conflicto');
    const after = (await usage(ca.id, '&metrica=calls')).datos[0].cantidad;
    assert.equal(Number(after) - Number(before), 4);
  });

  test('the same batch sent 8 times at once is counted once', async () => {
    const batch = Array.from({ length: 60 }, (_, i) => ({ idTransaccion: `conc-${i}`, idContrato: cb.id, metrica: 'calls', fechaHora: ago(1 + (i % 5)), propiedades: { region: REGIONS[i % 3] } }));
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(t, admin, b.companyId, batch)));
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(answers.reduce((n, r) => n + r.body.aceptados, 0), 60);
    assert.equal(answers.reduce((n, r) => n + r.body.duplicados, 0), 60 * 7);
    const total = await usage(cb.id);
    assert.equal(total.datos[0].cantidad, '60');
    // Concurrent batches write to different rollup slots; folding them into slot 0 keeps every figure
    // (here a copy of each row in slot 7 stands for a second batch: 120 events in all).
    await t.db.execute(sql`insert into usage_rollups select contract_id, metric_id, bucket, group_key, 7, company_id, groups, event_count, value_sum, value_max, latest_at, latest_transaction_id, latest_value from usage_rollups where contract_id = ${cb.id}`);
    const slots = async () => (await t.db.execute(sql`select array_agg(distinct slot) as slots, sum(event_count)::int as events from usage_rollups where contract_id = ${cb.id}`)).rows[0];
    assert.equal((await usage(cb.id)).datos[0].cantidad, '120');
    while (await foldSlots(t.db, new Date(Date.now() + 2 * HOUR)) > 0);
    assert.deepEqual(await slots(), { slots: [0], events: 120 });
    assert.equal((await usage(cb.id)).datos[0].cantidad, '120');
  });
});

describe('rejections', () => {
  test('every reason is reported per event, and the good events of the batch are counted', async () => {
    const draft = await a.contract('CTR-DRAFT', ['calls'], { estado: 'borrador' });
    const later = await a.contract('CTR-LATER', ['calls'], { inicio: new Date(Math.ceil(Date.now() / HOUR) * HOUR + HOUR).toISOString() });
    const e = (id: string, over: Record<string, unknown>) => ({ idTransaccion: id, idContrato: ca.id, metrica: 'bytes', fechaHora: ago(1), propiedades: { bytes: '10', region: 'norte' }, ...over });
    const batch = [
      e('rej-ok-1', {}),
      { idContrato: ca.id, metrica: 'bytes', fechaHora: ago(1) },
      e('rej-unknown-field', { cantidad: 3 }),
      e('rej-both-refs', { idExternoContrato: 'CTR-A' }),
      e('rej-bad-date', { fechaHora: '2026-13-01' }),
      e('rej-no-contract', { idContrato: 2_000_000_000 }),
      e('rej-no-external', { idContrato: undefined, idExternoContrato: 'NOPE' }),
      e('rej-draft', { idContrato: draft.id, metrica: 'calls' }),
      e('rej-before-start', { idContrato: later.id, metrica: 'calls' }),
      e('rej-no-metric', { metrica: 'nope' }),
      e('rej-not-metered', { idContrato: cb.id }),
      e('rej-missing-prop', { propiedades: { region: 'norte' } }),
      e('rej-not-number', { propiedades: { bytes: 'diez' } }),
      e('rej-float', { propiedades: { bytes: 1e20 } }),
      e('rej-future', { fechaHora: new Date(Date.now() + 10 * 60_000).toISOString() }),
      e('rej-too-old', { fechaHora: new Date(zonedMonthStart(new Date(Date.now() - 200 * HOUR)).getTime() - HOUR).toISOString() }),
      e('rej-ok-2', { propiedades: { bytes: 2.5 } }),
    ];
    const r = await send(t, emisorA, undefined, batch);
    assert.equal(r.status, 207);
    assert.deepEqual(r.body.resultados.map((x: any) => x.codigo ?? x.estado), [
      'aceptado', 'formato_invalido', 'formato_invalido', 'formato_invalido', 'formato_invalido', 'contrato_desconocido', 'contrato_desconocido',
      'contrato_no_vigente', 'contrato_no_vigente', 'metrica_desconocida', 'contrato_desconocido', 'propiedad_faltante', 'propiedad_no_numerica',
      'propiedad_no_numerica', 'fecha_futura', 'fecha_fuera_de_plazo', 'aceptado',
    ]);
    assert.equal(r.body.resultados[1].idTransaccion, null);
    for (const x of r.body.resultados.filter((x: any) => x.estado === 'rechazado')) assert.ok(x.error, JSON.stringify(x));
    assert.deepEqual([r.body.aceptados, r.body.rechazados], [2, 15]);
    // metrica_no_contratada: the metric exists in the company but the contract does not meter it.
    const c2 = await a.contract('CTR-CALLS-ONLY', ['calls']);
    const nm = await send(t, emisorA, undefined, [e('rej-not-metered-2', { idContrato: c2.id })]);
    assert.equal(nm.body.resultados[0].codigo, 'metrica_no_contratada');
    // A rejected event does not reserve its id: corrected, it is accepted.
    const fixed = await send(t, emisorA, undefined, [e('rej-not-number', {})]);
    assert.equal(fixed.body.resultados[0].estado, 'aceptado');
  });

  test('more than 100 events: 400 and nothing stored', async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ idTransaccion: `big-${i}`, idContrato: ca.id, metrica: 'calls', fechaHora: ago(1), propiedades: {} }));
    const r = await send(t, emisorA, undefined, batch);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'USO_LOTE_EXCEDIDO');
    const one = await send(t, emisorA, undefined, [batch[0]]);
    assert.equal(one.body.resultados[0].estado, 'aceptado');
  });

  test('late events: the last period is open while the grace lasts, and closed after it', async () => {
    const lastHourOfPrevious = new Date(zonedMonthStart(new Date()).getTime() - HOUR).toISOString();
    const ev = (id: string) => ({ idTransaccion: id, idContrato: ca.id, metrica: 'calls', fechaHora: lastHourOfPrevious, propiedades: {} });
    await ok(t.call(admin, 'PUT', `/api/v1/usage-settings${a.q}`, { graciaHoras: 24 * 31 }), 200);
    assert.equal((await send(t, emisorA, undefined, [ev('late-1')])).body.resultados[0].estado, 'aceptado');
    await ok(t.call(admin, 'PUT', `/api/v1/usage-settings${a.q}`, { graciaHoras: 0 }), 200);
    const refused = await send(t, emisorA, undefined, [ev('late-2')]);
    assert.equal(refused.body.resultados[0].codigo, 'fecha_fuera_de_plazo');
    assert.deepEqual(await ok(t.call(emisorA, 'GET', '/api/v1/usage-settings'), 200), { idEmpresa: a.companyId, graciaHoras: 0, usoTardio: 'marcar' });
    await ok(t.call(admin, 'PUT', `/api/v1/usage-settings${a.q}`, { graciaHoras: 72 }), 200);
  });
});

describe('definitions kept between batches (batch-defs.ts)', () => {
  test('a new metric and contract, a cancellation, and a change made by another process are seen by the next batch', async () => {
    const ev = (id: string, extra: Record<string, unknown> = {}) => ({ idTransaccion: id, idExternoContrato: 'CTR-DEFS', metrica: 'defs', fechaHora: ago(1), propiedades: {}, ...extra });
    const first = await send(t, emisorA, undefined, [ev('defs-1'), ev('defs-2', { idExternoContrato: 'CTR-A' })]);
    assert.deepEqual(first.body.resultados.map((x: any) => x.codigo), ['contrato_desconocido', 'metrica_desconocida']);
    await ok(t.call(admin, 'POST', `/api/v1/metrics${a.q}`, { codigo: 'defs', nombre: 'Defs', unidad: 'u', agregacion: 'count' }));
    const contract = await a.contract('CTR-DEFS', ['defs']);
    assert.deepEqual((await send(t, emisorA, undefined, [ev('defs-1')])).body.resultados.map((x: any) => x.estado), ['aceptado']);
    await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${contract.id}`, { estado: 'cancelado' }), 200);
    assert.equal((await send(t, emisorA, undefined, [ev('defs-3')])).body.resultados[0].codigo, 'contrato_no_vigente');
    // Another process (psql, a second API instance): heard through LISTEN, within milliseconds.
    const other = new pg.Client({ connectionString: t.database.url });
    await other.connect();
    await other.query(`update usage_contracts set state = 'activo' where id = $1`, [contract.id]).finally(() => other.end());
    let estado = '';
    for (let i = 0; i < 50 && estado !== 'aceptado'; i++) {
      estado = (await send(t, emisorA, undefined, [ev(`defs-4-${i}`)])).body.resultados[0].estado;
      if (estado !== 'aceptado') await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(estado, 'aceptado');
  });
});

describe('access', () => {
  test("an event naming another company's contract is rejected and not counted there", async () => {
    const before = (await usage(cb.id)).datos[0]?.cantidad ?? '0';
    const r = await send(t, emisorA, undefined, [
      { idTransaccion: 'x-1', idContrato: cb.id, metrica: 'calls', fechaHora: ago(1), propiedades: {} },
      { idTransaccion: 'x-2', idExternoContrato: 'CTR-B', metrica: 'calls', fechaHora: ago(1), propiedades: {} },
    ]);
    assert.deepEqual(r.body.resultados.map((x: any) => x.codigo), ['contrato_desconocido', 'contrato_desconocido']);
    assert.equal((await usage(cb.id)).datos[0]?.cantidad ?? '0', before);
    // Sending for B at all is refused: A's user cannot name B.
    const forB = await send(t, emisorA, b.companyId, [{ idTransaccion: 'x-3', idContrato: cb.id, metrica: 'calls', fechaHora: ago(1) }]);
    assert.equal(forB.status, 404);
  });

  test("another company's contracts, metrics and usage are invisible; lectura cannot send events", async () => {
    for (const path of [`/api/v1/contracts/${cb.id}`, `/api/v1/contracts/${cb.id}/usage`]) {
      const r = await t.call(emisorA, 'GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body.code, 'CONTRATO_NO_ENCONTRADO');
    }
    const bMetrics = await ok(t.call(admin, 'GET', `/api/v1/metrics${b.q}`), 200);
    const m = await t.call(emisorA, 'GET', `/api/v1/metrics/${bMetrics.data[0].id}`);
    assert.equal(m.body.code, 'METRICA_NO_ENCONTRADA');
    const list = await ok(t.call(emisorA, 'GET', '/api/v1/contracts'), 200);
    assert.ok(list.data.every((c: any) => c.idEmpresa === a.companyId) && list.total > 0);
    const reader = (await createUser(t, admin, 'lectura-uso@test.uy', [{ idEmpresa: a.companyId, rol: 'lectura' }])).token;
    const r = await send(t, reader, undefined, [{ idTransaccion: 'l-1', idContrato: ca.id, metrica: 'calls', fechaHora: ago(1) }]);
    assert.equal(r.status, 403);
    assert.equal((await t.call(reader, 'GET', `/api/v1/contracts/${ca.id}/usage?${range()}`)).status, 200);
  });
});
