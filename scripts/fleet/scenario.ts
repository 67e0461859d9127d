/**
 * Issue 45's fleet scenario on a running topology (topology.ts): companies set up through the API,
 * emission with Idempotency-Key replays sent to another API process, usage events sent twice to
 * different processes, webhooks to a local receiver, recurring ticks and the once-a-day jobs queued
 * concurrently on both workers, token revocation seen by the other processes, and the close of
 * contract periods (periods.ts: usage contracts three periods behind, their last period's usage
 * posted through the API processes; mid-load `startClose` makes the periods due and queues the close
 * on both workers, and `closeUnderWay` waits until it is issuing CFEs); optionally one API process
 * and one worker killed with SIGKILL mid-load, while the close runs. `audit` then reads the
 * invariants back from the database and the API. Shared by test/platform/fleet.int.test.ts and
 * `npm run fleet`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { connectDatabase, type Database } from '../../src/platform/db/client.js';
import { setUpIssuer } from '../../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { usageCompany } from '../../src/modules/usage/usage.test-helpers.js';
import { planBody } from '../../src/modules/recurring/recurring.test-helpers.js';
import { insertCompany } from '../../test/support/factories.js';
import type { TestApp } from '../../test/support/app.js';
import type { Fleet, FleetProcess } from './topology.js';
import { auditPeriods, periodsSettled, setUpPeriods, type PeriodsSetup } from './periods.js';
import { auditCompanyKeys } from './company-keys.js';

type Reply = { status: number; body: any; headers: Headers };

export async function callApi(api: FleetProcess, token: string | undefined, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(api.url + url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any = text;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

const today = () => new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

export interface Setup {
  database: Database;
  token: string;
  issuers: Array<{ id: number; rut: string }>;
  usage: { companyId: number; contractId: number; cacheContractId: number };
  plans: number[];
  receiver: { url: string; ids: string[]; close(): Promise<void> };
  /** The usage contracts whose periods the close bills mid-load (periods.ts). */
  periods: PeriodsSetup;
  /** A request to the API processes, round-robin (the set-up's and startClose's). */
  call: (token: string | undefined, method: string, url: string, body?: unknown) => Promise<Reply>;
}

/** A webhook receiver answering 200 to everything and remembering each `webhook-id`. */
async function startReceiver(): Promise<Setup['receiver']> {
  const ids: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, ids, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * `companies` issuing companies (certificate, CAE, webhook, a daily recurring plan), one usage
 * company, and a billing company with `contracts` usage contracts whose periods the close bills.
 */
export async function setUp(fleet: Fleet, companies: number, opts: { contracts?: number } = {}): Promise<Setup> {
  const database = connectDatabase(fleet.env.DATABASE_URL!, { max: 4 });
  let rr = 0;
  const call = (token: string | undefined, method: string, url: string, body?: unknown) => {
    const live = fleet.apis.filter((a) => a.alive());
    return callApi(live[rr++ % live.length]!, token, method, url, body);
  };
  const login = await call(undefined, 'POST', '/api/auth/login', fleet.admin);
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const token = login.body.accessToken as string;
  const t = { db: database.db, call } as unknown as TestApp;
  const receiver = await startReceiver();
  const issuers = [];
  const plans = [];
  const day = today();
  for (let i = 0; i < companies; i++) {
    const company = await insertCompany(t);
    await setUpIssuer(database.db, call, token, company, { ca: fleet.ca });
    const hook = await call(token, 'POST', `/api/v1/webhooks?idEmpresa=${company.id}`, { url: receiver.url, events: ['Cfe.Emitido'] });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    const plan = await call(token, 'POST', '/api/v1/facturacionrecurrente/crear', planBody(company.id, { frecuencia: { unidad: 'dia' }, anclaje: undefined, fechaInicio: day, horaEmision: '00:00' }));
    if (plan.status !== 201) throw new Error(`plan: ${plan.status} ${JSON.stringify(plan.body)}`);
    const act = await call(token, 'POST', `/api/v1/facturacionrecurrente/activar/${plan.body.id}`);
    if (act.status !== 200) throw new Error(`activar: ${act.status} ${JSON.stringify(act.body)}`);
    plans.push(plan.body.id as number);
    issuers.push({ id: company.id, rut: company.rut });
  }
  const u = await usageCompany(t, token, [{ codigo: 'calls', nombre: 'Llamadas', unidad: 'llamadas', agregacion: 'count' }]);
  const contract = await u.contract('CTR-FLEET', ['calls']);
  const cacheContract = await u.contract('CTR-CACHE', ['calls']);
  const periods = await setUpPeriods(database.db, call, token, fleet.ca, opts.contracts ?? 40);
  return { database, token, issuers, usage: { companyId: u.companyId, contractId: contract.id, cacheContractId: cacheContract.id }, plans, receiver, periods, call };
}

export interface LoadResult {
  receipts: number;
  seconds: number;
  replays: { sent: number; same: number };
  usageEvents: number;
  retriedOnAnotherApi: number;
  killedAt?: number;
}

export const ticket = (idEmpresa: number, i: number) => ({
  idEmpresa, codComercio: 'C1', codTerminal: 'T1',
  cfe: { idDoc: { tipoCfe: 101, fechaEmision: today() }, detalles: [{ indicadorFacturacion: 3, nombreItem: `Item ${i}`, cantidad: 1 + (i % 3), precioUnitario: '189.90' }] },
});

/**
 * `receipts` emissions over `concurrency` connections, round-robin across the live API processes; a
 * request whose process died is sent again, same Idempotency-Key, to the next one (what a load
 * balancer's retry does). Every 4th key is replayed on another process. One usage batch of 10
 * events every 5 receipts, sent twice (two processes). `onProgress(done)` may kill processes;
 * `hold`: receipts from number `from` on wait for `until` (the kill), so that the kill is mid-load.
 */
export async function drive(fleet: Fleet, s: Setup, opts: { receipts: number; concurrency: number; tag: string; onProgress?: (done: number) => Promise<void> | void; hold?: { from: number; until: Promise<unknown> } }): Promise<LoadResult> {
  let next = 0;
  let done = 0;
  let rr = 0;
  let retried = 0;
  const replays = { sent: 0, same: 0 };
  let usageEvents = 0;
  const live = () => fleet.apis.filter((a) => a.alive());
  async function send(method: string, url: string, body: unknown, headers: Record<string, string> = {}, avoid?: FleetProcess): Promise<{ r: Reply; api: FleetProcess }> {
    for (let attempt = 0; ; attempt++) {
      const others = live().filter((a) => a !== avoid);
      const apis = others.length ? others : live();
      const api = apis[rr++ % apis.length]!;
      try {
        return { r: await callApi(api, s.token, method, url, body, headers), api };
      } catch (err) {
        if (attempt > 5) throw err;
        retried++;
      }
    }
  }
  const t0 = Date.now();
  const lane = async () => {
    while (next < opts.receipts) {
      const i = next++;
      if (opts.hold && i >= opts.hold.from) await opts.hold.until;
      const company = s.issuers[i % s.issuers.length]!;
      const key = `${opts.tag}-${i}`;
      const body = ticket(company.id, i);
      const { r, api } = await send('POST', '/api/v1/comprobante/emitir', body, { 'idempotency-key': key });
      if (r.status !== 200) throw new Error(`emitir: ${r.status} ${JSON.stringify(r.body)}`);
      if (i % 4 === 0) {
        replays.sent++;
        const again = await send('POST', '/api/v1/comprobante/emitir', body, { 'idempotency-key': key }, api);
        if (again.r.status === 200 && again.r.body.id === r.body.id && again.r.body.numero === r.body.numero && again.r.headers.get('idempotent-replayed') === 'true') replays.same++;
      }
      if (i % 5 === 0) {
        const eventos = Array.from({ length: 10 }, (_, k) => ({ idTransaccion: `${key}-u${k}`, idExternoContrato: 'CTR-FLEET', metrica: 'calls', fechaHora: new Date().toISOString(), propiedades: {} }));
        const first = await send('POST', '/api/v1/usage-events', { idEmpresa: s.usage.companyId, eventos });
        if (first.r.status >= 300) throw new Error(`usage-events: ${first.r.status} ${JSON.stringify(first.r.body)}`);
        await send('POST', '/api/v1/usage-events', { idEmpresa: s.usage.companyId, eventos }, {}, first.api);
        usageEvents += 10;
      }
      done++;
      await opts.onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, lane));
  return { receipts: done, seconds: (Date.now() - t0) / 1000, replays, usageEvents, retriedOnAnotherApi: retried };
}

/** Queues `name` `times` times at once (no job key), so both workers may run it together. */
export async function queueJobs(s: Setup, name: string, times: number) {
  for (let i = 0; i < times; i++) await s.database.db.execute(sql`select graphile_worker.add_job(${name}, '{}'::json)`);
}

export async function waitUntil<T>(what: string, check: () => Promise<T | undefined | false | null>, deadlineMs: number, explain?: () => Promise<string>): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}${explain ? `: ${await explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The issuing companies (webhooks, recurring plans, daily reports). */
const ids = (s: Setup) => `{${s.issuers.map((c) => c.id).join(',')}}`;
/** Every company that issues CFEs: the issuing companies and the billing company (the period CFEs). */
const cfeIds = (s: Setup) => `{${[...s.issuers.map((c) => c.id), s.periods.companyId].join(',')}}`;

/** Waits until every due contract period is issued, every receipt and daily report has DGI's answer and every webhook delivery is settled. */
export async function settle(s: Setup, deadlineMs = 90_000) {
  const states = async () => JSON.stringify((await s.database.db.execute(sql`
    select 'cfe' as what, estado, count(*)::int as n from issued_cfes where company_id = any(${cfeIds(s)}::int[]) group by 2
    union all select 'envelope', estado, count(*)::int from dgi_envelopes where company_id = any(${cfeIds(s)}::int[]) group by 2
    union all select 'period', status, count(*)::int from contract_periods where company_id = ${s.periods.companyId} group by 2
    union all select 'delivery', status, count(*)::int from webhook_deliveries where company_id = any(${ids(s)}::int[]) group by 2
    union all select 'daily report', estado, count(*)::int from daily_reports where company_id = any(${ids(s)}::int[]) group by 2`)).rows);
  await waitUntil('every due contract period issued', () => periodsSettled(s.database.db, s.periods), deadlineMs, states);
  await waitUntil('every CFE answered by DGI', async () => {
    const r = await s.database.db.execute<{ n: number }>(sql`select count(*)::int as n from issued_cfes where company_id = any(${cfeIds(s)}::int[]) and estado not in ('aceptado', 'rechazado')`);
    return r.rows[0]!.n === 0;
  }, deadlineMs, states);
  // A report whose sender was killed is taken over once its 20 s lease runs out.
  await waitUntil('every daily report answered by DGI', async () => {
    const r = await s.database.db.execute<{ n: number }>(sql`select count(*)::int as n from daily_reports where company_id = any(${ids(s)}::int[]) and estado in ('pendiente', 'enviando')`);
    return r.rows[0]!.n === 0;
  }, deadlineMs, states);
  await waitUntil('every webhook delivered', async () => {
    const r = await s.database.db.execute<{ n: number }>(sql`
      select (select count(*) from webhook_deliveries where company_id = any(${ids(s)}::int[]) and status <> 'entregado')
           + (select count(*) from outbox_events where company_id = any(${ids(s)}::int[]) and fanned_out_at is null)::int as n`);
    return Number(r.rows[0]!.n) === 0;
  }, deadlineMs, states);
}

export interface Invariant { name: string; ok: boolean; detail: string }

/** The invariants of issue 45, read from the database and the API; `killedAt`: when a worker was killed (Date.now()). */
export async function audit(fleet: Fleet, s: Setup, load: { usageEvents: number; replays: { sent: number; same: number }; killedAt?: number }): Promise<Invariant[]> {
  const q = async <T>(query: ReturnType<typeof sql>) => (await s.database.db.execute(query)).rows as T[];
  const out: Invariant[] = [];
  const series = await q<{ company_id: number; tipo_cfe: number; serie: string; n: number; distinct_n: number; lo: number; hi: number }>(sql`
    select company_id, tipo_cfe, serie, count(*)::int as n, count(distinct numero)::int as distinct_n, min(numero) as lo, max(numero) as hi
    from issued_cfes where company_id = any(${cfeIds(s)}::int[]) group by 1, 2, 3`);
  const badSeries = series.filter((r) => r.n !== r.distinct_n || r.lo !== 1 || r.hi !== r.n);
  out.push({ name: 'numbering contiguous from 1, no duplicate, per serie', ok: series.length > 0 && !badSeries.length, detail: `${series.length} series, ${series.reduce((a, r) => a + r.n, 0)} receipts${badSeries.length ? `; bad: ${JSON.stringify(badSeries)}` : ''}` });
  out.push({ name: 'Idempotency-Key replays answered by another API process', ok: load.replays.sent > 0 && load.replays.same === load.replays.sent, detail: `${load.replays.same}/${load.replays.sent} same receipt, Idempotent-Replayed: true` });
  const [env] = await q<{ cfes: number; in_one: number; none: number }>(sql`
    select count(*)::int as cfes, count(*) filter (where live = 1)::int as in_one, count(*) filter (where live = 0)::int as none from (
      select c.id, (select count(*) from dgi_envelope_items i where i.issued_cfe_id = c.id and i.live)::int as live
      from issued_cfes c where c.company_id = any(${cfeIds(s)}::int[])) x`);
  const [acc] = await q<{ n: number }>(sql`select count(*)::int as n from issued_cfes where company_id = any(${cfeIds(s)}::int[]) and estado = 'aceptado'`);
  out.push({ name: 'each CFE in exactly one live DGI envelope, accepted', ok: env!.cfes === env!.in_one && acc!.n === env!.cfes, detail: `${env!.in_one}/${env!.cfes} in one envelope, ${acc!.n} aceptado` });
  const [ev] = await q<{ events: number; delivered: number }>(sql`
    select count(*)::int as events, count(*) filter (where exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'entregado'))::int as delivered
    from outbox_events e where e.company_id = any(${ids(s)}::int[]) and e.type = 'Cfe.Emitido'`);
  const received = s.receiver.ids.length;
  const distinct = new Set(s.receiver.ids).size;
  out.push({ name: 'webhooks at least once, no event lost', ok: ev!.events > 0 && ev!.delivered === ev!.events && distinct >= ev!.events, detail: `${ev!.events} Cfe.Emitido events, ${distinct} distinct received, ${received - distinct} duplicates` });
  const recurring = await q<{ plan: string; n: number; keys: number }>(sql`
    select split_part(idempotency_key, '-', 2) as plan, count(*)::int as n, count(distinct substring(idempotency_key from '^recurrente-[0-9]+-([0-9]{4}-[0-9]{2}-[0-9]{2})'))::int as keys
    from issued_cfes where company_id = any(${ids(s)}::int[]) and idempotency_key like 'recurrente-%' group by 1`);
  // Each plan runs at 00:00 of today (Montevideo), so its first run is due whenever the fleet starts (at the default
  // 06:00 a fleet started between midnight and 06:00 had nothing due). A fleet that crosses midnight may also issue
  // the next day's run: a plan may hold more than one run, never one period twice (a re-issue key,
  // recurrente-<plan>-<periodoDesde>-reemision-N, counts as the same period).
  out.push({ name: 'each recurring run issued once', ok: recurring.length === s.plans.length && recurring.every((r) => r.n === r.keys), detail: `${recurring.length}/${s.plans.length} plans issued, CFEs per plan: ${recurring.map((r) => r.n).join(',')}, runs per plan: ${recurring.map((r) => r.keys).join(',')}` });
  const live = () => fleet.apis.find((a) => a.alive())!;
  out.push(...await auditPeriods(s.database.db, (url) => callApi(live(), s.token, 'GET', url), s.periods, load.killedAt));
  // The default range: the current month (America/Montevideo) up to the next whole hour.
  const usage = await callApi(fleet.apis.find((a) => a.alive())!, s.token, 'GET', `/api/v1/contracts/${s.usage.contractId}/usage`);
  const counted = (usage.body?.datos ?? []).reduce((a: number, d: any) => a + Number(d.cantidad), 0);
  out.push({ name: 'usage events counted once (each batch sent to two processes), rollup exact', ok: counted === load.usageEvents, detail: `${counted} counted, ${load.usageEvents} distinct sent (${load.usageEvents * 2} posted)${usage.status !== 200 ? `; GET usage ${usage.status} ${JSON.stringify(usage.body)}` : ''}` });
  const reports = await q<{ company_id: number; n: number; accepted: number }>(sql`select company_id, count(*)::int as n, count(*) filter (where estado = 'aceptado')::int as accepted from daily_reports where company_id = any(${ids(s)}::int[]) group by company_id, fecha_resumen`);
  out.push({ name: 'daily report once per company and day (task queued 3 times at once), accepted by DGI', ok: reports.length === s.issuers.length && reports.every((r) => r.n === 1 && r.accepted === 1), detail: `reports per company: ${reports.map((r) => r.n).join(',')}; accepted: ${reports.map((r) => r.accepted).join(',')}` });
  const syncs = fleet.workers.map((w) => (w.output().match(/registry of electronic issuers synced/g) ?? []).length).reduce((a, b) => a + b, 0);
  out.push({ name: 'issuer-registry sync once per day (job queued 3 times at once)', ok: syncs === 1, detail: `${syncs} sync run(s) in the workers' logs` });
  out.push(await auditCompanyKeys(s.database.db));
  return out;
}

/** Token revocation on one process seen by another: the time until it refuses the token. */
export async function revocationAcrossProcesses(fleet: Fleet, s: Setup): Promise<Invariant> {
  const alive = fleet.apis.filter((p) => p.alive());
  const [a, b] = [alive[0], alive[1] ?? alive[0]]; // one API process: the same one (the 1-process run of npm run fleet)
  const user = `fleet-${Date.now()}@fleet.uy`;
  const created = await callApi(a!, s.token, 'POST', '/api/v1/usuario/crear', { usuario: user, nombre: user, clave: 'password-123', empresas: [{ idEmpresa: s.issuers[0]!.id, rol: 'lectura' }] });
  if (created.status !== 201) throw new Error(`usuario/crear: ${created.status} ${JSON.stringify(created.body)}`);
  const login = await callApi(a!, undefined, 'POST', '/api/auth/login', { usuario: user, clave: 'password-123' });
  const token = login.body.accessToken as string;
  const probe = () => callApi(b!, token, 'GET', `/api/v1/eventos?idEmpresa=${s.issuers[0]!.id}&length=1`);
  const before = (await probe()).status;
  const off = await callApi(a!, s.token, 'POST', '/api/v1/usuario/editar', { idUsuario: created.body.id, habilitado: false });
  const t0 = Date.now();
  let after = before;
  while (Date.now() - t0 < 5000 && after === before) after = (await probe()).status;
  const ms = Date.now() - t0;
  return { name: 'user disabled on one API process refused by another (time printed; goal: within a second)', ok: before === 200 && off.status === 200 && after === 401, detail: `before ${before}, after ${after} in ${ms} ms (disable: ${off.status})` };
}

/** A contract cancelled on one process: the contracts the other process's ingestion keeps in memory forget it. */
export async function usageDefinitionsAcrossProcesses(fleet: Fleet, s: Setup): Promise<Invariant> {
  const alive = fleet.apis.filter((p) => p.alive());
  const [a, b] = [alive[0]!, alive[1] ?? alive[0]!];
  let n = 0;
  const post = async () => {
    const r = await callApi(b, s.token, 'POST', '/api/v1/usage-events', { idEmpresa: s.usage.companyId, eventos: [{ idTransaccion: `cache-${Date.now()}-${n++}`, idExternoContrato: 'CTR-CACHE', metrica: 'calls', fechaHora: new Date().toISOString(), propiedades: {} }] });
    return r.body?.resultados?.[0]?.estado as string | undefined;
  };
  const before = await post();
  const off = await callApi(a, s.token, 'PATCH', `/api/v1/contracts/${s.usage.cacheContractId}`, { estado: 'cancelado' });
  const t0 = Date.now();
  let after = before;
  while (Date.now() - t0 < 5000 && after === before) after = await post();
  const ms = Date.now() - t0;
  return { name: 'usage contract cancelled on one API process: ingestion on another refuses it (time printed; goal: within a second)', ok: before === 'aceptado' && off.status === 200 && after === 'rechazado', detail: `before ${before}, after ${after} in ${ms} ms (PATCH: ${off.status})` };
}
