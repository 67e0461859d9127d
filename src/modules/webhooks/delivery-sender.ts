/**
 * One HTTP attempt of a delivery (spec 6): JSON body, the endpoint's extra headers, the stable
 * Idempotency-Key and the Standard Webhooks headers. Connections are reused (undici Agent).
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { toEnvelope } from '../events/events.catalogue.js';
import type { ClaimedDelivery } from './deliveries.repository.js';
import { headerProblems } from './endpoint-headers.js';
import type { AttemptResult } from './retry-policy.js';
import { sign, UnusableSecretError } from './signature.js';
import { guardedLookup } from './url-guard.js';

export const RESPONSE_EXCERPT_CHARS = 1024;
const MAX_BODY_READ = 64 * 1024;

export interface SentAttempt {
  result: AttemptResult;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

export function createAgent(opts: { allowPrivateUrls: boolean; connectionsPerOrigin?: number }): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    connections: opts.connectionsPerOrigin ?? 128,
    connect: opts.allowPrivateUrls ? undefined : { lookup: guardedLookup as never },
  });
}

export function buildRequest(d: ClaimedDelivery, timestampSeconds: number) {
  const envelope = toEnvelope({ id: d.eventId, type: d.type, createdAt: d.eventCreatedAt, companyId: d.companyId, data: d.data });
  const body = JSON.stringify(envelope);
  const headers: Record<string, string> = {
    ...d.headers,
    'content-type': 'application/json',
    'user-agent': 'cfe-uy-webhooks/1',
    'idempotency-key': d.idempotencyKey,
    'webhook-id': envelope.id,
    'webhook-timestamp': String(timestampSeconds),
  };
  if (d.secret) headers['webhook-signature'] = sign(d.secret, envelope.id, timestampSeconds, body);
  return { body, headers };
}

/**
 * One attempt, bounded as a whole by `timeoutMs` (connect, request, response and body read): it
 * always settles, even when undici never answers (a request it refused once held a connection slot
 * and later requests to that origin waited in its queue for good, deaf to their abort signal).
 * A stored header or secret that cannot be sent is refused here, before undici sees it.
 */
export async function sendAttempt(agent: Agent, d: ClaimedDelivery, timeoutMs: number): Promise<SentAttempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (result: Extract<AttemptResult, { error: string }>, message: string): SentAttempt =>
    ({ result: { ...result, message }, durationMs: elapsed(), responseExcerpt: null, error: message });
  // A referenced timer (AbortSignal.timeout's is unreferenced): the deadline fires whatever else runs.
  const controller = new AbortController();
  const signal = controller.signal;
  let timer: NodeJS.Timeout | undefined;
  try {
    const problems = headerProblems(d.headers);
    if (problems) {
      const names = [...problems.invalidNames, ...problems.invalidValues, ...problems.reserved];
      return failed({ error: 'config' }, `Encabezados no válidos en el webhook (${names.join(', ')}); corríjalos y reenvíe.`.slice(0, 500));
    }
    const { body, headers } = buildRequest(d, Math.floor(Date.now() / 1000));
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(signal.reason);
      }, timeoutMs);
    });
    return await Promise.race([post(agent, d.url, headers, body, timeoutMs, signal, elapsed), deadline]);
  } catch (err) {
    if (err instanceof UnusableSecretError) return failed({ error: 'config' }, err.message);
    const e = err as { name?: string; code?: string; message?: string };
    const isTimeout = signal.aborted || e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT';
    if (isTimeout) return failed({ error: 'timeout' }, `Tiempo de espera agotado (${timeoutMs} ms)`);
    return failed({ error: 'network' }, `${e.code ?? e.name ?? 'Error'}: ${e.message ?? String(err)}`.slice(0, 500));
  } finally {
    clearTimeout(timer);
  }
}

async function post(agent: Agent, url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal: AbortSignal, elapsed: () => number): Promise<SentAttempt> {
  const res = await request(url, { method: 'POST', headers, body, dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal });
  let text = '';
  let read = 0;
  for await (const chunk of res.body) {
    read += chunk.length;
    if (text.length < RESPONSE_EXCERPT_CHARS) text += chunk.toString('utf8');
    if (read > MAX_BODY_READ) {
      res.body.destroy();
      break;
    }
  }
  return { result: { statusCode: res.statusCode }, durationMs: elapsed(), responseExcerpt: text ? text.slice(0, RESPONSE_EXCERPT_CHARS) : null, error: null };
}
