/**
 * The database figures of GET /metrics (issue 44 point 5), read at scrape time. Read-only
 * aggregates over several modules' tables: a scrape is one query per figure here rather than a
 * count function added to each module's service. Each query rides an existing partial index
 * (issued_cfes_pending_dgi_idx, issued_cfes_awaiting_dgi_idx, dgi_envelopes_open_idx,
 * webhook_deliveries_due_idx) or a small table (jobs, mailboxes, endpoints), except the receipts'
 * totals by state, a scan of issued_cfes_company_estado_idx kept for TOTALS_TTL_MS.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import type { StateCollector } from '../../platform/metrics.js';

const TOTALS_TTL_MS = 5 * 60_000;

type Row = Record<string, unknown>;
const rows = async (db: Db, q: ReturnType<typeof sql>) => (await db.execute(q)).rows as Row[];
const num = (v: unknown) => Number(v ?? 0);

export function stateCollectors(db: Db, now: () => number = Date.now): StateCollector[] {
  let totals: { at: number; values: Array<[string, Record<string, string>, number]> } | undefined;
  return [
    {
      gauges: [
        { name: 'cfe_issued_receipts', help: 'Issued receipts by estado (refreshed every 5 minutes)', labelNames: ['estado'] },
        { name: 'cfe_issued_receipts_waiting', help: 'Issued receipts waiting for DGI: firmado (not sent yet), en_cola_dgi and sobre_recibido (sent, no answer yet)', labelNames: ['estado'] },
        { name: 'cfe_issued_receipts_oldest_waiting_seconds', help: 'Age of the oldest receipt waiting, by estado', labelNames: ['estado'] },
      ],
      async collect() {
        if (!totals || now() - totals.at > TOTALS_TTL_MS) {
          const r = await rows(db, sql`select estado, count(*) as n from issued_cfes group by estado`);
          totals = { at: now(), values: r.map((x) => ['cfe_issued_receipts', { estado: String(x.estado) }, num(x.n)]) };
        }
        const pending = await rows(db, sql`
          select 'firmado' as estado, count(*) as n, extract(epoch from now() - min(firmado_en)) as age from issued_cfes where estado = 'firmado'
          union all
          select estado, count(*), extract(epoch from now() - min(coalesce(estado_actualizado_en, firmado_en)))
            from issued_cfes where estado in ('en_cola_dgi', 'sobre_recibido') group by estado`);
        const out = [...totals.values];
        for (const p of pending) {
          out.push(['cfe_issued_receipts_waiting', { estado: String(p.estado) }, num(p.n)]);
          if (p.age !== null) out.push(['cfe_issued_receipts_oldest_waiting_seconds', { estado: String(p.estado) }, Math.max(0, num(p.age))]);
        }
        return out;
      },
    },
    {
      gauges: [{ name: 'cfe_dgi_envelopes_in_flight', help: 'Envelopes to DGI not finished: creado (being sent) and recibido (waiting for the result)', labelNames: ['estado'] }],
      async collect() {
        const r = await rows(db, sql`select estado, count(*) as n from dgi_envelopes where estado in ('creado', 'recibido') group by estado`);
        return r.map((x) => ['cfe_dgi_envelopes_in_flight', { estado: String(x.estado) }, num(x.n)]);
      },
    },
    {
      gauges: [
        { name: 'cfe_webhook_backlog', help: 'Webhook deliveries pending (not delivered yet, retries included)' },
        { name: 'cfe_webhook_backlog_oldest_seconds', help: 'Age of the oldest pending webhook delivery' },
        { name: 'cfe_webhook_deliveries_failing', help: 'Pending webhook deliveries that failed at least once' },
        { name: 'cfe_webhook_endpoints_exhausted', help: 'Active webhook endpoints whose last delivery exhausted its attempts (agotado)' },
      ],
      async collect() {
        const [b] = await rows(db, sql`select count(*) as n, count(*) filter (where attempts > 0) as failing, extract(epoch from now() - min(created_at)) as age from webhook_deliveries where status = 'pendiente'`);
        const [e] = await rows(db, sql`
          select count(*) as n from webhook_endpoints we
           where we.enabled and (select d.status from webhook_deliveries d where d.endpoint_id = we.id order by d.id desc limit 1) = 'agotado'`);
        return [
          ['cfe_webhook_backlog', {}, num(b?.n)],
          ['cfe_webhook_backlog_oldest_seconds', {}, Math.max(0, num(b?.age))],
          ['cfe_webhook_deliveries_failing', {}, num(b?.failing)],
          ['cfe_webhook_endpoints_exhausted', {}, num(e?.n)],
        ];
      },
    },
    {
      gauges: [
        { name: 'cfe_jobs_queued', help: 'Background jobs by task: ready (due now), scheduled (later), running (locked)', labelNames: ['task', 'state'] },
        { name: 'cfe_jobs_failed', help: 'Background jobs by task: retrying (failed, attempts left) and dead (attempts exhausted)', labelNames: ['task', 'state'] },
      ],
      async collect() {
        const r = await rows(db, sql`
          select t.identifier as task,
                 count(*) filter (where j.locked_at is null and j.attempts < j.max_attempts and j.run_at <= now()) as ready,
                 count(*) filter (where j.locked_at is null and j.attempts < j.max_attempts and j.run_at > now()) as scheduled,
                 count(*) filter (where j.locked_at is not null) as running,
                 count(*) filter (where j.attempts > 0 and j.attempts < j.max_attempts and j.last_error is not null) as retrying,
                 count(*) filter (where j.attempts >= j.max_attempts) as dead
            from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
           group by t.identifier`);
        return r.flatMap((x) => [
          ...(['ready', 'scheduled', 'running'] as const).map((s): [string, Record<string, string>, number] => ['cfe_jobs_queued', { task: String(x.task), state: s }, num(x[s])]),
          ...(['retrying', 'dead'] as const).map((s): [string, Record<string, string>, number] => ['cfe_jobs_failed', { task: String(x.task), state: s }, num(x[s])]),
        ]);
      },
    },
    {
      gauges: [
        { name: 'cfe_mailbox_poll_lag_seconds', help: 'Active inbound mailboxes: seconds since the last successful poll of the one most behind (since its creation when never polled)' },
        { name: 'cfe_mailboxes_failing', help: 'Active inbound mailboxes whose last poll failed' },
      ],
      async collect() {
        const [m] = await rows(db, sql`
          select extract(epoch from now() - min(coalesce(ultimo_sondeo_ok, actualizado_en))) as lag,
                 count(*) filter (where ultimo_error_en is not null and (ultimo_sondeo_ok is null or ultimo_error_en > ultimo_sondeo_ok)) as failing
            from inbound_mailboxes where activo`);
        return [
          ['cfe_mailbox_poll_lag_seconds', {}, Math.max(0, num(m?.lag))],
          ['cfe_mailboxes_failing', {}, num(m?.failing)],
        ];
      },
    },
  ];
}
