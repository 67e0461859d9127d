/**
 * Metrics, contracts and the usage query through the HTTP app (issue 33 points 1, 3 and 5): windows
 * and group_by across the February → March boundary in Montevideo time (events ingested by the
 * service with a clock set on 2 March 2026), CSV, `final`, the query's errors, the metric freeze and
 * the contract's manual states.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import type { Actor } from '../../platform/http/actor.js';
import { sql } from 'drizzle-orm';
import { maintain } from './ingestion.repository.js';
import { ago, ok, send, usageCompany } from './usage.test-helpers.js';

let t: TestApp;
let admin: string;
let co: Awaited<ReturnType<typeof usageCompany>>;
let contract: { id: number };
const SYSTEM: Actor = { userId: 0, email: 'test', isOperator: true, companies: new Map() };

// Montevideo is UTC−3: e2 is 1 March in UTC but still 28 February in Montevideo; e5 is 2 March in UTC, 1 March there.
const EVENTS = [
  { id: 'e1', at: '2026-02-28T20:30:00-03:00', region: 'norte' },
  { id: 'e2', at: '2026-02-28T23:30:00-03:00', region: 'sur' },
  { id: 'e3', at: '2026-03-01T00:30:00-03:00', region: 'norte' },
  { id: 'e4', at: '2026-03-01T10:00:00-03:00', region: 'norte' },
  { id: 'e5', at: '2026-03-02T01:00:00Z', region: 'sur' },
];
const get = (path: string, token = admin) => t.call(token, 'GET', path);
const rows = (body: any) => body.datos.map((d: any) => [d.inicio, d.fin, ...Object.values(d.grupo), d.cantidad].join(' '));

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  co = await usageCompany(t, admin, [
    { codigo: 'msgs', nombre: 'Mensajes', unidad: 'mensajes', agregacion: 'count', clavesAgrupacion: ['region'] },
    { codigo: 'kwh', nombre: 'Energía', unidad: 'kWh', agregacion: 'sum', propiedad: 'kwh' },
  ]);
  contract = await co.contract('MVD-1', ['msgs']);
  const r = await t.modules.services.usageIngestion.ingest(SYSTEM, co.companyId,
    EVENTS.map((e) => ({ idTransaccion: e.id, idContrato: contract.id, metrica: 'msgs', fechaHora: e.at, propiedades: { region: e.region } })),
    new Date('2026-03-02T12:00:00Z'));
  assert.equal(r.aceptados, 5, JSON.stringify(r));
});
after(() => t.close());

describe('windows and groups across a month boundary in Montevideo', () => {
  const base = () => `/api/v1/contracts/${contract.id}/usage?start=2026-02-28T03:00:00Z&end=2026-03-03T03:00:00Z`;

  test('day windows follow Montevideo days, not UTC days', async () => {
    const body = await ok(get(`${base()}&ventana=dia`), 200);
    assert.deepEqual(rows(body), [
      '2026-02-28T03:00:00.000Z 2026-03-01T03:00:00.000Z 2',
      '2026-03-01T03:00:00.000Z 2026-03-02T03:00:00.000Z 3',
    ]);
    assert.equal(body.zona, 'America/Montevideo');
    assert.equal(body.final, true);
  });

  test('month windows (English alias window=month) and group_by', async () => {
    const body = await ok(get(`/api/v1/contracts/${contract.id}/usage?start=2026-02-01T03:00:00Z&end=2026-04-01T03:00:00Z&window=month&group_by=region`), 200);
    assert.deepEqual(rows(body), [
      '2026-02-01T03:00:00.000Z 2026-03-01T03:00:00.000Z norte 1',
      '2026-02-01T03:00:00.000Z 2026-03-01T03:00:00.000Z sur 1',
      '2026-03-01T03:00:00.000Z 2026-04-01T03:00:00.000Z norte 2',
      '2026-03-01T03:00:00.000Z 2026-04-01T03:00:00.000Z sur 1',
    ]);
  });

  test('day windows grouped, hour windows, and the whole range in one row; windows are clipped to the range', async () => {
    const grouped = await ok(get(`${base()}&ventana=dia&group_by=region`), 200);
    assert.deepEqual(grouped.datos.map((d: any) => `${d.inicio.slice(0, 10)} ${d.grupo.region} ${d.cantidad}`), ['2026-02-28 norte 1', '2026-02-28 sur 1', '2026-03-01 norte 2', '2026-03-01 sur 1']);
    const hours = await ok(get(`${base()}&ventana=hora`), 200);
    assert.deepEqual(hours.datos.map((d: any) => d.inicio), ['2026-02-28T23:00:00.000Z', '2026-03-01T02:00:00.000Z', '2026-03-01T03:00:00.000Z', '2026-03-01T13:00:00.000Z', '2026-03-02T01:00:00.000Z']);
    const range = `/api/v1/contracts/${contract.id}/usage?start=2026-03-01T00:00:00Z&end=2026-03-01T12:00:00Z`;
    assert.deepEqual(rows(await ok(get(range), 200)), ['2026-03-01T00:00:00.000Z 2026-03-01T12:00:00.000Z 2']);
    assert.deepEqual(rows(await ok(get(`${range}&ventana=mes`), 200)), ['2026-03-01T00:00:00.000Z 2026-03-01T03:00:00.000Z 1', '2026-03-01T03:00:00.000Z 2026-03-01T12:00:00.000Z 1']);
  });

  test('CSV on request, by formato or Accept', async () => {
    for (const [query, headers] of [['&formato=csv', {}], ['', { accept: 'text/csv' }]] as const) {
      const r = await t.app.inject({ method: 'GET', url: `${base()}&ventana=dia&group_by=region${query}`, headers: { authorization: `Bearer ${admin}`, ...headers } });
      assert.equal(r.statusCode, 200);
      assert.match(String(r.headers['content-type']), /^text\/csv/);
      assert.deepEqual(r.body.trim().split('\r\n'), [
        'metrica,unidad,inicio,fin,region,cantidad,final',
        'msgs,mensajes,2026-02-28T03:00:00.000Z,2026-03-01T03:00:00.000Z,norte,1,true',
        'msgs,mensajes,2026-02-28T03:00:00.000Z,2026-03-01T03:00:00.000Z,sur,1,true',
        'msgs,mensajes,2026-03-01T03:00:00.000Z,2026-03-02T03:00:00.000Z,norte,2,true',
        'msgs,mensajes,2026-03-01T03:00:00.000Z,2026-03-02T03:00:00.000Z,sur,1,true',
      ]);
    }
  });

  test('a range that events can still reach is not final', async () => {
    const body = await ok(get(`/api/v1/contracts/${contract.id}/usage`), 200);
    assert.equal(body.final, false);
    assert.ok(new Date(body.admiteEventosDesde) <= new Date(body.desde));
  });
});

describe('query errors', () => {
  test('unaligned, inverted, too long, undeclared keys and unmetered metrics are 400', async () => {
    const base = `/api/v1/contracts/${contract.id}/usage`;
    for (const q of [
      'start=2026-03-01T00:30:00Z&end=2026-03-02T00:00:00Z',
      'start=2026-03-02T00:00:00Z&end=2026-03-01T00:00:00Z',
      'start=2026-01-01T00:00:00Z&end=2026-03-01T00:00:00Z&ventana=hora',
      'start=2025-01-01T00:00:00Z&end=2026-03-01T00:00:00Z',
      'group_by=plan',
      'metrica=kwh',
    ]) {
      const r = await get(`${base}?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'USO_CONSULTA_INVALIDA', q);
    }
    assert.equal((await get(`${base}?ventana=semana`)).status, 400);
    assert.equal((await get(`${base}?start=ayer`)).status, 400);
    assert.equal((await get('/api/v1/contracts/999999/usage')).body.code, 'CONTRATO_NO_ENCONTRADO');
  });
});

describe('metrics', () => {
  test('definition checks, unique code, and the freeze once usage exists', async () => {
    const m = await ok(get(`/api/v1/metrics${co.q}`), 200);
    const msgs = m.data.find((x: any) => x.codigo === 'msgs');
    const post = (body: Record<string, unknown>) => t.call(admin, 'POST', `/api/v1/metrics${co.q}`, { nombre: 'N', unidad: 'u', ...body });
    assert.equal((await post({ codigo: 'c1', agregacion: 'count', propiedad: 'x' })).body.code, 'METRICA_INVALIDA');
    assert.equal((await post({ codigo: 'c2', agregacion: 'sum' })).body.code, 'METRICA_INVALIDA');
    assert.equal((await post({ codigo: 'msgs', agregacion: 'count' })).body.code, 'METRICA_DUPLICADA');
    assert.equal((await post({ codigo: 'c3', agregacion: 'avg' })).status, 400);
    assert.equal((await post({ codigo: 'c4', agregacion: 'count', color: 'rojo' })).body.code, 'CAMPO_DESCONOCIDO');
    const frozen = await t.call(admin, 'PATCH', `/api/v1/metrics/${msgs.id}`, { agregacion: 'sum', propiedad: 'n' });
    assert.equal(frozen.status, 409);
    assert.equal(frozen.body.code, 'METRICA_EN_USO');
    assert.equal((await ok(t.call(admin, 'PATCH', `/api/v1/metrics/${msgs.id}`, { nombre: 'Mensajes enviados' }), 200)).nombre, 'Mensajes enviados');
    assert.equal((await t.call(admin, 'DELETE', `/api/v1/metrics/${msgs.id}`)).body.code, 'METRICA_EN_USO');
    const kwh = m.data.find((x: any) => x.codigo === 'kwh');
    assert.equal((await ok(t.call(admin, 'PATCH', `/api/v1/metrics/${kwh.id}`, { agregacion: 'max' }), 200)).agregacion, 'max');
    assert.equal((await t.call(admin, 'DELETE', `/api/v1/metrics/${kwh.id}`)).status, 204);
  });
});

describe('contracts', () => {
  test('checks, manual states, and what a cancelled contract meters', async () => {
    const post = (body: Record<string, unknown>) => t.call(admin, 'POST', `/api/v1/contracts${co.q}`, { idCliente: co.customerId, inicio: '2026-01-01T00:00:00Z', metricas: ['msgs'], ...body });
    assert.equal((await post({ idExterno: 'MVD-1' })).body.code, 'CONTRATO_DUPLICADO');
    assert.equal((await post({ idExterno: 'X-1', metricas: ['nada'] })).body.code, 'CONTRATO_INVALIDO');
    assert.equal((await post({ idExterno: 'X-2', fin: '2025-12-31T00:00:00Z' })).body.code, 'CONTRATO_INVALIDO');
    assert.equal((await post({ idExterno: 'X-3', idCliente: 2_000_000_000 })).status, 404);
    const draft = await ok(post({ idExterno: 'X-4', estado: 'borrador' }));
    assert.equal(draft.estado, 'borrador');
    const active = await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${draft.id}`, { estado: 'activo' }), 200);
    assert.equal(active.estado, 'activo');
    const back = await t.call(admin, 'PATCH', `/api/v1/contracts/${draft.id}`, { estado: 'borrador' });
    assert.equal(back.body.code, 'CONTRATO_TRANSICION_INVALIDA');
    assert.equal((await t.call(admin, 'DELETE', `/api/v1/contracts/${draft.id}`)).body.code, 'CONTRATO_TRANSICION_INVALIDA');
    assert.equal((await t.call(admin, 'PATCH', `/api/v1/contracts/${contract.id}`, { metricas: [] })).body.code, 'CONTRATO_METRICA_CON_USO');
    const ev = { idTransaccion: 'after-cancel', idContrato: draft.id, metrica: 'msgs', fechaHora: ago(0.1), propiedades: {} };
    assert.equal((await send(t, admin, co.companyId, [ev])).body.resultados[0].estado, 'aceptado');
    await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${draft.id}`, { estado: 'cancelado' }), 200);
    const refused = await send(t, admin, co.companyId, [{ ...ev, idTransaccion: 'after-cancel-2' }]);
    assert.equal(refused.body.resultados[0].codigo, 'contrato_no_vigente');
    const list = await ok(get(`/api/v1/contracts${co.q}&estado=cancelado`), 200);
    assert.deepEqual(list.data.map((c: any) => c.idExterno), ['X-4']);
    const other = await ok(post({ idExterno: 'X-5', estado: 'borrador' }));
    assert.equal((await t.call(admin, 'DELETE', `/api/v1/contracts/${other.id}`)).status, 204);
  });
});

describe('maintenance', () => {
  test('partitions are made ahead (taking over what the default partition caught), old ones dropped, old dedup keys pruned', async () => {
    const one = async (q: ReturnType<typeof sql>) => (await t.db.execute(q)).rows[0] as Record<string, unknown>;
    await t.db.execute(sql`insert into usage_events (company_id, contract_id, metric_id, transaction_id, occurred_at, properties) values (${co.companyId}, ${contract.id}, 1, 'far', '2031-05-10T00:00:00Z', '{}')`);
    assert.equal((await one(sql`select count(*)::int as n from usage_events_default where occurred_at >= '2031-01-01'`)).n, 1);
    assert.equal((await one(sql`select usage_events_ensure_partitions('2031-05-01T00:00:00Z', '2031-05-02T00:00:00Z') as n`)).n, 1);
    assert.deepEqual(await one(sql`select (select count(*)::int from usage_events_default where occurred_at >= '2031-01-01') as d, (select count(*)::int from usage_events_p203105) as p`), { d: 0, p: 1 });
    await t.db.execute(sql`select usage_events_ensure_partitions('2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z')`);
    await t.db.execute(sql`insert into usage_event_keys (company_id, transaction_id, content_hash, received_at) values (${co.companyId}, 'viejo', 'h', now() - interval '41 days'), (${co.companyId}, 'reciente', 'h', now() - interval '39 days')`);
    const r = await maintain(t.db, { dedupDays: 40, rawRetentionDays: 400 });
    assert.ok(r.dropped.includes('usage_events_p202001'), JSON.stringify(r));
    assert.equal(r.dropped.some((n) => n >= 'usage_events_p2026'), false);
    assert.equal((await one(sql`select to_regclass('usage_events_p202001') is null as gone`)).gone, true);
    assert.deepEqual((await t.db.execute(sql`select transaction_id from usage_event_keys where transaction_id in ('viejo', 'reciente')`)).rows, [{ transaction_id: 'reciente' }]);
  });
});
