/**
 * Contract periods in issue 45's fleet scenario ("each contract period issued once"). Set-up: a
 * company with `contracts` usage contracts started three periods back and a price book (2.50 a call,
 * a minimum of 100 a period, exento so the CFE's MntTotal is the rated amount); each contract's usage
 * of the last period is posted through the API processes (each batch to two of them) while the
 * company's grace (31 days, the most allowed) still admits it. Events are only admitted for a period
 * that is not due yet, and the close cron runs every minute, so what makes the periods due happens
 * mid-load (`startClose`): the grace goes to 0 and billing terms are set on every contract, so three
 * periods of each are due at once; then `contract_periods_close` is queued 3 times at once (both
 * workers run it beside the cron; a catch-up pass claims one period per contract and queues its
 * `contract_period_issue` job). `closeUnderWay` waits until CFEs are being issued and the worker to
 * be killed holds an issue job, so the kill lands in the middle. `auditPeriods`: every due period of
 * every contract issued exactly once, none left `pendiente`, amounts as rated, and the time from the
 * kill until the periods of the killed worker's issue job are issued by the other worker.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/platform/db/client.js';
import { setUpIssuer } from '../../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { usageCompany } from '../../src/modules/usage/usage.test-helpers.js';
import { nextPeriod, periodAt, type Period } from '../../src/modules/contract-billing/periods.js';
import { closeJob } from '../../src/modules/contract-billing/contract-billing.jobs.js';
import { ISSUE_JOB } from '../../src/modules/contract-billing/period-close.service.js';
import { periodIdempotencyKey } from '../../src/modules/price-books/period-cfe.js';
import type { TestApp } from '../../test/support/app.js';
import type { TestCa } from '../../src/platform/crypto/pki.js';
import type { Invariant } from './scenario.js';

type Call = (token: string | undefined, method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** Periods due per contract: the contracts start this many periods before the current one. */
export const PERIODS_BACK = 3;
const PRICE = 2.5;
const MINIMUM = 100;

export interface PeriodsSetup {
  companyId: number;
  bookId: number;
  /** Each contract with the calls posted for the last due period. */
  contracts: Array<{ id: number; calls: number }>;
  /** The due periods (the same for every contract: all start on the 1st). */
  due: Period[];
  /** Filled by closeUnderWay: the state of the close when the worker was killed. */
  atKill?: CloseState;
}

export interface CloseState {
  rows: number; issued: number; pending: number; waitedMs: number;
  /** The periods of the issue jobs the worker about to be killed held (graphile-worker's locked_by). */
  victimJobs: number; victimPeriods: Array<{ contractId: number; periodStart: string }>;
}

function duePeriods(now = new Date()): Period[] {
  let p = periodAt(now, 1);
  for (let i = 0; i < PERIODS_BACK; i++) p = periodAt(new Date(p.start.getTime() - 86_400_000), 1);
  const due: Period[] = [];
  for (; p.end.getTime() <= now.getTime(); p = nextPeriod(p.desde, 1)) due.push(p);
  return due;
}

/** In 3 lanes: `fn` over `items`, in order of start. */
async function lanes<T>(items: T[], fn: (item: T) => Promise<void>, width = 3) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

export async function setUpPeriods(db: Database['db'], call: Call, token: string, ca: TestCa, contracts: number): Promise<PeriodsSetup> {
  const t = { db, call } as unknown as TestApp;
  const u = await usageCompany(t, token, [{ codigo: 'calls', nombre: 'Llamadas', unidad: 'llamadas', agregacion: 'count' }]);
  const [company] = (await db.execute<{ id: number; rut: string }>(sql`select id, rut from companies where id = ${u.companyId}`)).rows;
  await setUpIssuer(db, call, token, company!, { ca });
  // An e-Factura's receptor needs an address.
  await db.execute(sql`update customers set direccion = 'Calle 1', ciudad = 'Montevideo' where id = ${u.customerId}`);
  const grace = await call(token, 'PUT', `/api/v1/usage-settings${u.q}`, { graciaHoras: 24 * 31 });
  if (grace.status !== 200) throw new Error(`usage-settings: ${grace.status} ${JSON.stringify(grace.body)}`);
  const book = await call(token, 'POST', `/api/v1/price-books${u.q}`, {
    codigo: 'FLEET', nombre: 'Flota', moneda: 'UYU', vigenteDesde: '2025-01-01', minimoPeriodo: { monto: String(MINIMUM), indicadorFacturacion: 1, nombreItem: 'Mínimo mensual' },
    precios: [{ metrica: 'calls', modelo: 'estandar', precioUnitario: String(PRICE), indicadorFacturacion: 1, nombreItem: 'Llamadas' }],
  });
  if (book.status !== 201) throw new Error(`price-books: ${book.status} ${JSON.stringify(book.body)}`);
  const due = duePeriods();
  const out: PeriodsSetup['contracts'] = [];
  for (let i = 0; i < contracts; i++) {
    const c = await u.contract(`CTR-PERIODS-${i}`, ['calls'], { inicio: due[0]!.start.toISOString() });
    // 10 to ~90 calls: under the minimum (40 calls) for some contracts, over it for the others.
    out.push({ id: c.id as number, calls: 10 + ((i * 7) % 81) });
  }
  // The last due period's usage, a minute apart from its second day on, in batches of 100 posted twice.
  const last = due.at(-1)!;
  const events = out.flatMap((c) => Array.from({ length: c.calls }, (_, k) => ({
    idTransaccion: `period-${c.id}-${k}`, idContrato: c.id, metrica: 'calls', fechaHora: new Date(last.start.getTime() + 86_400_000 + k * 60_000).toISOString(), propiedades: {},
  })));
  const batches = [];
  for (let i = 0; i < events.length; i += 100) batches.push(events.slice(i, i + 100));
  await lanes(batches, async (eventos) => {
    for (const expected of ['aceptado', 'duplicado']) {
      const r = await call(token, 'POST', '/api/v1/usage-events', { idEmpresa: u.companyId, eventos });
      const wrong = (r.body?.resultados ?? []).filter((x: any) => x.estado !== expected);
      if (r.status !== 200 || wrong.length) throw new Error(`usage-events for the periods: ${r.status} ${JSON.stringify(wrong[0] ?? r.body)}`);
    }
  });
  return { companyId: u.companyId, bookId: book.body.id as number, contracts: out, due };
}

/** Makes every contract's periods due (grace 0, billing terms on each contract) and queues the close 3 times at once. */
export async function startClose(db: Database['db'], call: Call, token: string, p: PeriodsSetup): Promise<void> {
  const grace = await call(token, 'PUT', `/api/v1/usage-settings?idEmpresa=${p.companyId}`, { graciaHoras: 0 });
  if (grace.status !== 200) throw new Error(`usage-settings: ${grace.status} ${JSON.stringify(grace.body)}`);
  await lanes(p.contracts, async (c) => {
    const r = await call(token, 'PUT', `/api/v1/contracts/${c.id}/terms`, { idVersionListaPrecios: p.bookId, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1' });
    if (r.status !== 200) throw new Error(`terms: ${r.status} ${JSON.stringify(r.body)}`);
  });
  for (let i = 0; i < 3; i++) await db.execute(sql`select graphile_worker.add_job(${closeJob.name}, '{}'::json)`);
}

async function closeState(db: Database['db'], p: PeriodsSetup, victimPool: string | undefined, since: number): Promise<CloseState> {
  const [r] = (await db.execute<{ rows: number; issued: number; pending: number; victim: Array<{ periods: CloseState['victimPeriods'] }> | null }>(sql`
    select count(*)::int as rows, count(*) filter (where status = 'emitido')::int as issued, count(*) filter (where status = 'pendiente')::int as pending,
      (select json_agg(j.payload) from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
        where k.identifier = ${ISSUE_JOB} and j.locked_by = ${victimPool ?? ''}) as victim
    from contract_periods where company_id = ${p.companyId}`)).rows;
  const victim = r!.victim ?? [];
  return { rows: r!.rows, issued: r!.issued, pending: r!.pending, waitedMs: Date.now() - since, victimJobs: victim.length, victimPeriods: victim.flatMap((j) => j.periods) };
}

/**
 * Waits until the close is well into issuing (a tenth of the periods issued, a quarter still
 * pendiente) while `victimPool` (the worker about to be killed) holds an issue job; if the close gets
 * past that quarter first (the other worker took the issue jobs), answers at once rather than after
 * it. Answers (and keeps in `p.atKill`) the state at that moment.
 */
export async function closeUnderWay(db: Database['db'], p: PeriodsSetup, victimPool?: string, deadlineMs = 90_000): Promise<CloseState> {
  const t0 = Date.now();
  const total = p.contracts.length * p.due.length;
  for (;;) {
    const s = await closeState(db, p, victimPool, t0);
    const remaining = s.rows === total ? s.pending : total - s.issued;
    if (s.issued >= Math.ceil(total / 10) && (!victimPool || s.victimJobs > 0 || remaining < total / 4)) return (p.atKill = s);
    if (Date.now() - t0 > deadlineMs) return (p.atKill = s);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every due period of every contract has its row, none pendiente (an `error` row fails at once). */
export async function periodsSettled(db: Database['db'], p: PeriodsSetup): Promise<boolean> {
  const s = await closeState(db, p, undefined, Date.now());
  const [e] = (await db.execute<{ n: number; error: string | null }>(sql`select count(*)::int as n, max(error) as error from contract_periods where company_id = ${p.companyId} and status = 'error'`)).rows;
  if (e!.n) throw new Error(`${e!.n} contract period(s) in error: ${e!.error}`);
  return s.rows === p.contracts.length * p.due.length && s.pending === 0;
}

const TAKEOVER = 'contract periods of a killed worker issued by the other (time from the kill printed; goal: within 30 s)';
const rated = (calls: number) => Math.max(MINIMUM, calls * PRICE).toFixed(2);

/** The contract-period invariants, from the database and the API (`get` answers a live API process's GET). */
export async function auditPeriods(db: Database['db'], get: (url: string) => Promise<{ status: number; body: any }>, p: PeriodsSetup, killedAt?: number): Promise<Invariant[]> {
  const rows = (await db.execute<{ contract_id: number; desde: string; hasta: string; status: string; total: string | null; cfe_id: number | null; cfe_key: string | null; mnt_total: string | null }>(sql`
    select p.contract_id, to_char(p.period_start, 'YYYY-MM-DD') as desde, to_char(p.period_end, 'YYYY-MM-DD') as hasta, p.status, p.total::text as total,
      c.id as cfe_id, c.idempotency_key as cfe_key, c.mnt_total::text as mnt_total
    from contract_periods p left join issued_cfes c on c.id = p.issued_cfe_id where p.company_id = ${p.companyId}`)).rows;
  const cfes = (await db.execute<{ key: string; n: number }>(sql`select idempotency_key as key, count(*)::int as n from issued_cfes
    where company_id = ${p.companyId} and idempotency_key like 'contrato-%-periodo-%' group by 1`)).rows;
  const byKey = new Map(cfes.map((c) => [c.key, c.n]));
  const expected = p.contracts.flatMap((c) => p.due.map((d, i) => ({ contractId: c.id, desde: d.desde, hasta: d.hasta, total: rated(i === p.due.length - 1 ? c.calls : 0) })));
  const row = new Map(rows.map((r) => [`${r.contract_id}/${r.desde}`, r]));
  const missing = expected.filter((e) => !row.has(`${e.contractId}/${e.desde}`));
  const bad = expected.filter((e) => {
    const r = row.get(`${e.contractId}/${e.desde}`);
    const key = periodIdempotencyKey(e.contractId, e.desde);
    return r && (r.hasta !== e.hasta || r.status !== 'emitido' || r.cfe_key !== key || byKey.get(key) !== 1);
  });
  const extraCfes = cfes.reduce((a, c) => a + c.n, 0) - expected.length;
  const pending = rows.filter((r) => r.status === 'pendiente').length;
  const [open] = (await db.execute<{ wrong: number }>(sql`select count(*) filter (where open_period_start <> ${periodAt(new Date(), 1).desde}::date or close_alert is not null)::int as wrong
    from contract_terms where company_id = ${p.companyId}`)).rows;
  const out: Invariant[] = [{
    name: 'each contract period issued once (one CFE, its Idempotency-Key; none pendiente; the open period moved on)',
    ok: !missing.length && !bad.length && extraCfes === 0 && rows.length === expected.length && pending === 0 && open!.wrong === 0,
    detail: `${rows.length}/${expected.length} periods (${p.contracts.length} contracts × ${p.due.length}), ${cfes.reduce((a, c) => a + c.n, 0)} period CFEs, ${pending} pendiente`
      + `${missing.length ? `; missing ${JSON.stringify(missing.slice(0, 3))}` : ''}${bad.length ? `; wrong ${JSON.stringify(bad.slice(0, 3).map((e) => row.get(`${e.contractId}/${e.desde}`)))}` : ''}`
      + `${extraCfes ? `; ${extraCfes} CFEs beyond one per period` : ''}${open!.wrong ? `; ${open!.wrong} contracts not on the current open period or alerted` : ''}`,
  }];
  // Amounts: the period's total in the API, the rated amount (calls × price, the minimum) and the CFE's MntTotal agree.
  let compared = 0;
  const wrongAmounts: unknown[] = [];
  for (const c of p.contracts) {
    const r = await get(`/api/v1/contracts/${c.id}/periods?length=${p.due.length + 5}`);
    for (const e of expected.filter((x) => x.contractId === c.id)) {
      const api = (r.body?.data ?? []).find((x: any) => x.desde === e.desde);
      const db = row.get(`${c.id}/${e.desde}`);
      compared++;
      if (!api || api.total !== e.total || Number(db?.mnt_total).toFixed(2) !== e.total) wrongAmounts.push({ contract: c.id, desde: e.desde, rated: e.total, api: api?.total ?? r.status, cfe: db?.mnt_total });
    }
  }
  const sum = expected.reduce((a, e) => a + Number(e.total), 0);
  out.push({
    name: 'contract period amounts: API total = rated usage (minimum included) = CFE MntTotal',
    ok: compared === expected.length && !wrongAmounts.length,
    detail: `${compared - wrongAmounts.length}/${expected.length} agree, ${sum.toFixed(2)} UYU in all${wrongAmounts.length ? `; wrong ${JSON.stringify(wrongAmounts.slice(0, 3))}` : ''}`,
  });
  // Without a kill (the 1-process run of npm run fleet) there is nothing to take over.
  const k = p.atKill;
  if (killedAt === undefined || !k) {
    out.push({ name: TAKEOVER, ok: killedAt === undefined, detail: killedAt === undefined ? 'no worker killed in this run' : 'no state recorded at the kill' });
    return out;
  }
  // When each period's CFE was made, in milliseconds after the kill.
  const made = new Map((await db.execute<{ key: string; ms: string }>(sql`select idempotency_key as key, ((extract(epoch from created_at) * 1000)::bigint - ${killedAt})::text as ms
    from issued_cfes where company_id = ${p.companyId} and idempotency_key like 'contrato-%-periodo-%'`)).rows.map((r) => [r.key, Number(r.ms)]));
  const last = Math.max(...made.values());
  const held = k.victimPeriods.map((v) => made.get(periodIdempotencyKey(v.contractId, v.periodStart)) ?? Infinity).filter((ms) => ms > 0);
  out.push({
    name: TAKEOVER,
    ok: k.issued < expected.length,
    detail: `at the kill ${k.issued}/${expected.length} issued; the killed worker held ${k.victimJobs} issue job(s) of ${k.victimPeriods.length} periods, ${held.length} of them issued after the kill`
      + `${held.length ? `, the last ${(Math.max(...held) / 1000).toFixed(1)} s after it` : ''}; last period CFE ${(last / 1000).toFixed(1)} s after the kill`,
  });
  return out;
}
