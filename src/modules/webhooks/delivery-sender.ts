/**
 * One HTTP attempt of a delivery (spec 6): JSON body, the endpoint's extra headers, the stable
 * Idempotency-Key and the Standard Webhooks headers. Connections are reused (undici Agent).
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { toEnvelope } from '../events/events.catalogue.js';
import type { ClaimedDelivery } from './deliveries.repository.js';
import type { AttemptResult } from './retry-policy.js';
import { sign } from './signature.js';
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

export async function sendAttempt(agent: Agent, d: ClaimedDelivery, timeoutMs: number): Promise<SentAttempt> {
  const { body, headers } = buildRequest(d, Math.floor(Date.now() / 1000));
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await request(d.url, {
      method: 'POST', headers, body, dispatcher: agent,
      headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs),
    });
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
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    const isTimeout = e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT';
    const message = isTimeout ? `Tiempo de espera agotado (${timeoutMs} ms)` : `${e.code ?? e.name ?? 'Error'}: ${e.message ?? String(err)}`.slice(0, 500);
    return { result: { error: isTimeout ? 'timeout' : 'network', message }, durationMs: elapsed(), responseExcerpt: null, error: message };
  }
}
