/**
 * The delivery engine (issue 8 point 3): fans outbox events out to subscribed endpoints, claims due
 * deliveries (FOR UPDATE SKIP LOCKED + lease), sends them and records each attempt with the next
 * state from retry-policy.ts. Wakes on the NOTIFY of an event an endpoint subscribes to
 * (repo.WEBHOOK_EVENTS_CHANNEL), with a poll fallback. The clock is
 * injectable and `tick()` runs one deterministic iteration for tests.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../../platform/db/client.js';
import { redactUrl, type Logger } from '../../platform/logger.js';
import * as repo from './deliveries.repository.js';
import { createAgent, sendAttempt } from './delivery-sender.js';
import { decide } from './retry-policy.js';
import { sealLegacySecrets, type SecretBox } from './webhooks.repository.js';

export interface DeliveryEngineOptions {
  database: Database;
  logger: Logger;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** Deliveries in flight at once per engine. */
  maxInFlight?: number;
  pollIntervalMs?: number;
  now?: () => Date;
  /** Endpoint secrets are stored sealed under MASTER_KEY (issue 28 point 7). */
  secrets: SecretBox;
}

const FANOUT_BATCH = 1000;
const CLAIM_BATCH = 200;
const FLUSH_BATCH = 500;

export function createDeliveryEngine(opts: DeliveryEngineOptions) {
  const { database, logger, timeoutMs } = opts;
  const db = database.db;
  const now = opts.now ?? (() => new Date());
  const maxInFlight = opts.maxInFlight ?? 512;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  // The lease must outlive the attempt: a claimed row falls due again only if its worker died.
  // 15 s of slack past the request's timeout (was 60 s): a killed worker's deliveries are taken
  // over by another within WEBHOOK_TIMEOUT_MS + 15 s (issue 45, 25 s with the default timeout).
  const leaseMs = timeoutMs + 15_000;
  const agent = createAgent({ allowPrivateUrls: opts.allowPrivateUrls });

  let pending: repo.AttemptRecord[] = [];
  let flushing: Promise<void> = Promise.resolve();

  async function deliverOne(d: repo.ClaimedDelivery, token: string): Promise<repo.AttemptRecord> {
    const startedAt = now();
    const sent = await sendAttempt(agent, d, timeoutMs);
    const decision = decide(sent.result, d.attempts + 1, d.maxAttempts, now());
    // An operator acts on these (issue 44 point 7): the endpoint will not get this event unless redelivered.
    if (decision.status === 'agotado' || decision.status === 'fallido') {
      logger.warn({ companyId: d.companyId, endpointId: d.endpointId, deliveryId: d.id, event: d.type, url: redactUrl(d.url), attempts: d.attempts + 1, err: sent.error }, `webhook delivery ${decision.status === 'agotado' ? 'exhausted its attempts' : 'failed permanently'}: endpoint ${d.endpointId} of company ${d.companyId}`);
    }
    return {
      deliveryId: d.id, leaseToken: token, status: decision.status, outcome: decision.outcome,
      nextAttemptAt: decision.status === 'pendiente' ? decision.nextAttemptAt : null,
      startedAt, durationMs: sent.durationMs, statusCode: 'statusCode' in sent.result ? sent.result.statusCode : null,
      error: sent.error, responseExcerpt: sent.responseExcerpt,
    };
  }

  /** Records buffered attempts in batches, one statement each, in order. */
  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      while (pending.length) {
        const batch = pending.splice(0, FLUSH_BATCH);
        try {
          await repo.recordAttempts(db, batch);
        } catch (err) {
          // The rows stay leased and fall due again when the lease ends: nothing is lost.
          logger.error({ err, n: batch.length }, 'webhook attempts could not be recorded');
        }
      }
    });
    return flushing;
  }

  // Unsealed secrets by sealed value: one AES-GCM open per endpoint and secret, not per attempt
  // (a rotation stores a new sealed value, so the old entry is simply no longer asked for).
  const unsealed = new Map<string, string>();
  function secretOf(d: repo.ClaimedDelivery): string | null {
    if (!d.secretSealed) return d.secret;
    let plain = unsealed.get(d.secretSealed);
    if (plain === undefined) {
      if (unsealed.size >= 10_000) unsealed.clear();
      plain = opts.secrets.unseal(d.secretSealed);
      unsealed.set(d.secretSealed, plain);
    }
    return plain;
  }

  async function claim(limit: number) {
    const token = randomUUID();
    const t = now();
    const rows = await repo.claimDue(db, t, new Date(t.getTime() + leaseMs), token, limit);
    for (const d of rows) {
      d.secret = secretOf(d);
      d.secretSealed = undefined;
    }
    return { rows, token };
  }

  /** One deterministic iteration: fan out, claim what is due, send, record. */
  async function tick(): Promise<{ events: number; attempted: number }> {
    const { events } = await repo.fanOut(db, now(), FANOUT_BATCH);
    const { rows, token } = await claim(CLAIM_BATCH);
    const settled = await Promise.allSettled(rows.map((d) => deliverOne(d, token)));
    const records: repo.AttemptRecord[] = [];
    for (const s of settled) {
      if (s.status === 'fulfilled') records.push(s.value);
      else logger.error({ err: s.reason }, 'webhook attempt failed unexpectedly; the delivery falls due again when its lease ends');
    }
    await repo.recordAttempts(db, records);
    return { events, attempted: rows.length };
  }

  /** Runs ticks until nothing is due (tests and the bench). */
  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { events, attempted } = await tick();
      total += attempted;
      if (events === 0 && attempted === 0) return total;
    }
  }

  // --- continuous mode ---
  let running = false;
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let listener: pg.Client | undefined;
  let loopDone: Promise<void> | undefined;

  // A wake-up that arrives while the loop is busy is remembered, so the next sleep returns at once.
  let woken = false;
  const signal = () => {
    const w = wake;
    wake = undefined;
    if (w) w();
    else woken = true;
  };

  function sleep(ms: number) {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => { wake = undefined; resolve(); }, ms);
      wake = () => { clearTimeout(timer); resolve(); };
    });
  }

  async function loop() {
    while (running) {
      try {
        const free = maxInFlight - inFlight;
        if (free < Math.min(32, maxInFlight)) {
          await sleep(pollIntervalMs);
          continue;
        }
        const { events } = await repo.fanOut(db, now(), FANOUT_BATCH);
        const { rows, token } = await claim(Math.min(free, CLAIM_BATCH));
        for (const d of rows) {
          inFlight++;
          // Whatever happens to the attempt (sync throw inside, rejection), its slot is given back:
          // a slot never freed would stop the loop for every company once maxInFlight leaked.
          void Promise.resolve()
            .then(() => deliverOne(d, token))
            .then((rec) => {
              pending.push(rec);
              // Batch what finishes together: flush on the next turn of the event loop.
              if (pending.length === 1 || pending.length >= FLUSH_BATCH) setImmediate(() => void flush());
            }, (err: unknown) => {
              logger.error({ err, deliveryId: d.id }, 'webhook attempt failed unexpectedly; the delivery falls due again when its lease ends');
            })
            .finally(() => {
              inFlight--;
              signal();
            });
        }
        if (rows.length === 0 && events === 0 && running) {
          const due = await repo.nextDueAt(db);
          const wait = due ? Math.max(0, Math.min(pollIntervalMs, due.getTime() - now().getTime())) : pollIntervalMs;
          if (wait > 0) await sleep(wait);
        }
      } catch (err) {
        logger.error({ err }, 'webhook delivery loop failed; retrying');
        await sleep(pollIntervalMs);
      }
    }
  }

  return {
    tick,
    drain,
    /** Starts the continuous loop (API process in the embedded default, and `npm run worker`). */
    async start(): Promise<void> {
      if (running) return;
      running = true;
      const sealed = await sealLegacySecrets(db, opts.secrets);
      if (sealed) logger.info({ sealed }, 'webhook secrets stored in clear sealed under MASTER_KEY');
      try {
        listener = new pg.Client({ connectionString: database.url });
        listener.on('error', (err) => logger.warn({ err }, 'webhook LISTEN connection lost; polling only'));
        await listener.connect();
        listener.on('notification', signal);
        await listener.query(`listen ${repo.WEBHOOK_EVENTS_CHANNEL}`);
      } catch (err) {
        logger.warn({ err }, 'webhook engine could not LISTEN; polling only');
      }
      loopDone = loop();
      logger.info({ maxInFlight, timeoutMs }, 'webhook delivery engine started');
    },
    async stop(): Promise<void> {
      running = false;
      signal();
      await loopDone;
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 20));
      await flush();
      await listener?.end().catch(() => undefined);
      await agent.close();
    },
    /** Releases the HTTP agent when only tick()/drain() were used. */
    async close(): Promise<void> {
      await agent.close();
    },
  };
}

export type DeliveryEngine = ReturnType<typeof createDeliveryEngine>;
