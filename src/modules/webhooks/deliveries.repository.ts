/**
 * SQL of the delivery engine. Each function is one statement, so it is atomic without an explicit
 * transaction; rows are claimed with FOR UPDATE SKIP LOCKED so several workers never take the same row.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';

/**
 * Channel the delivery engine LISTENs on: NOTIFYed by the outbox's INSERT trigger only for an event an
 * enabled endpoint subscribes to (migration 0047), and by a requeue; delivered when the transaction
 * commits. Events nobody subscribes to wake no engine.
 */
export const WEBHOOK_EVENTS_CHANNEL = 'webhook_events_due';

/**
 * Creates one delivery per (event, subscribed enabled endpoint) for events not yet fanned out. Events that
 * no endpoint subscribed to when written never come here (migration 0045 marks them at INSERT, with the
 * negation of this join: keep the two conditions the same).
 */
export async function fanOut(db: DbOrTx, now: Date, limit: number): Promise<{ events: number; deliveries: number }> {
  const res = await db.execute(sql`
    with ev as (
      select id, company_id, type from outbox_events
      where fanned_out_at is null order by id limit ${limit} for update skip locked
    ), ins as (
      insert into webhook_deliveries (event_id, endpoint_id, company_id, next_attempt_at, created_at, updated_at)
      select ev.id, w.id, ev.company_id, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
      from ev join webhook_endpoints w on w.company_id = ev.company_id and w.enabled and ev.type = any(w.events)
      on conflict (event_id, endpoint_id) do nothing
      returning id
    ), upd as (
      update outbox_events set fanned_out_at = ${now.toISOString()}::timestamptz where id in (select id from ev) returning id
    )
    select (select count(*) from upd)::int as events, (select count(*) from ins)::int as deliveries`);
  const row = res.rows[0] as { events: number; deliveries: number };
  return row;
}

export interface ClaimedDelivery {
  id: number;
  eventId: number;
  endpointId: number;
  attempts: number;
  idempotencyKey: string;
  type: string;
  companyId: number;
  data: unknown;
  eventCreatedAt: Date;
  url: string;
  /** The signing secret in clear: set by the engine from `secretSealed` (or a legacy clear row) before sending. */
  secret: string | null;
  secretSealed?: string | null;
  headers: Record<string, string>;
  maxAttempts: number;
}

/**
 * Takes up to `limit` due deliveries of enabled endpoints and leases them: `next_attempt_at`
 * becomes the lease end, so a worker killed mid-flight lets them fall due again.
 */
export async function claimDue(db: DbOrTx, now: Date, leaseEnd: Date, token: string, limit: number): Promise<ClaimedDelivery[]> {
  const res = await db.execute(sql`
    with due as (
      select d.id from webhook_deliveries d
      where d.status = 'pendiente' and d.next_attempt_at <= ${now.toISOString()}::timestamptz
        and exists (select 1 from webhook_endpoints w where w.id = d.endpoint_id and w.enabled)
      order by d.next_attempt_at limit ${limit} for update of d skip locked
    ), claimed as (
      update webhook_deliveries d set next_attempt_at = ${leaseEnd.toISOString()}::timestamptz, lease_token = ${token}::uuid
      from due where d.id = due.id
      returning d.id, d.event_id, d.endpoint_id, d.attempts, d.idempotency_key
    )
    select c.id, c.event_id as "eventId", c.endpoint_id as "endpointId", c.attempts, c.idempotency_key as "idempotencyKey",
      e.type, e.company_id as "companyId", e.data, e.created_at as "eventCreatedAt",
      w.url, w.secret, w.secret_sealed as "secretSealed", w.headers, w.max_attempts as "maxAttempts"
    from claimed c join outbox_events e on e.id = c.event_id join webhook_endpoints w on w.id = c.endpoint_id`);
  return (res.rows as unknown as ClaimedDelivery[]).map((r) => ({ ...r, id: Number(r.id), eventId: Number(r.eventId), eventCreatedAt: new Date(r.eventCreatedAt) }));
}

export interface AttemptRecord {
  deliveryId: number;
  leaseToken: string;
  status: 'pendiente' | 'entregado' | 'fallido' | 'agotado';
  outcome: 'entregado' | 'reintento' | 'fallido' | 'agotado';
  nextAttemptAt: Date | null;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** Records a batch of attempts and the new delivery states; rows whose lease was lost are skipped. */
export async function recordAttempts(db: DbOrTx, records: AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const json = JSON.stringify(records.map((r) => ({
    id: r.deliveryId, token: r.leaseToken, status: r.status, outcome: r.outcome, next_at: r.nextAttemptAt?.toISOString() ?? null,
    started_at: r.startedAt.toISOString(), duration_ms: r.durationMs, code: r.statusCode, err: r.error, excerpt: r.responseExcerpt,
  })));
  const res = await db.execute(sql`
    with r as (
      select * from jsonb_to_recordset(${json}::jsonb) as r(id bigint, token uuid, status text, outcome text, next_at timestamptz,
        started_at timestamptz, duration_ms int, code int, err text, excerpt text)
    ), upd as (
      update webhook_deliveries d set
        status = r.status, attempts = d.attempts + 1, total_attempts = d.total_attempts + 1,
        next_attempt_at = r.next_at, lease_token = null, last_status_code = r.code, last_error = r.err,
        delivered_at = case when r.status = 'entregado' then r.started_at else d.delivered_at end, updated_at = now()
      from r where d.id = r.id and d.lease_token = r.token
      returning d.id, d.company_id, d.total_attempts
    )
    insert into webhook_attempts (delivery_id, company_id, number, started_at, duration_ms, status_code, error, response_excerpt, outcome)
    select r.id, upd.company_id, upd.total_attempts, r.started_at, r.duration_ms, r.code, r.err, r.excerpt, r.outcome
    from r join upd on upd.id = r.id`);
  return res.rowCount ?? 0;
}

/**
 * Earliest attempt time among the rows claimDue() could take (to sleep until then instead of polling
 * blindly). Same filter as claimDue: a pending row of a disabled endpoint is never claimed, so
 * counting it made the loop wait 0 ms and spin (QA: ~2,000 commits/s).
 */
export async function nextDueAt(db: DbOrTx): Promise<Date | null> {
  const res = await db.execute(sql`
    select d.next_attempt_at as at from webhook_deliveries d
    where d.status = 'pendiente' and exists (select 1 from webhook_endpoints w where w.id = d.endpoint_id and w.enabled)
    order by d.next_attempt_at limit 1`);
  const at = (res.rows[0] as { at: string | Date | null } | undefined)?.at;
  return at ? new Date(at) : null;
}
