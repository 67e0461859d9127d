/**
 * The delivery rules of spec 3 and spec 6, as pure functions (no I/O, no clock of their own).
 */

/** Retry delays in seconds, spec 6 ("Retry delays (seconds), progressive"): the k-th retry waits the k-th value. */
export const RETRY_DELAYS_SECONDS = [5, 60, 120, 300, 600, 1800, 3600, 7200, 21600] as const;

/** Spec 6 / 8.1: endpoints created through the API get 8 attempts. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** One first attempt plus one retry per delay of the schedule. */
export const MAX_ATTEMPTS_LIMIT = RETRY_DELAYS_SECONDS.length + 1;

/**
 * `config`: the endpoint's stored configuration cannot be sent (a header or `whsec_` secret stored
 * before they were validated); nothing went out, and retrying cannot help until the endpoint is fixed.
 */
export type AttemptResult = { statusCode: number } | { error: 'timeout' | 'network' | 'config'; message?: string };
export type Classification = 'delivered' | 'retry' | 'failed';

/**
 * Spec 3 / 6 delivery table: any 2xx delivered; 429, 5xx, timeout and network errors retried;
 * any other 4xx fails permanently. 1xx/3xx are not in the table: redirects are not followed
 * (a redirect could point at a private address), so they count as permanent failures too.
 */
export function classifyResponse(result: AttemptResult): Classification {
  if ('error' in result) return result.error === 'config' ? 'failed' : 'retry';
  const s = result.statusCode;
  if (s >= 200 && s <= 299) return 'delivered';
  if (s === 429 || (s >= 500 && s <= 599)) return 'retry';
  return 'failed';
}

/** When the retry after the `attemptNumber`-th failed attempt (1-based) is due. */
export function nextAttemptAt(attemptNumber: number, now: Date): Date {
  const index = Math.min(Math.max(attemptNumber, 1), RETRY_DELAYS_SECONDS.length) - 1;
  return new Date(now.getTime() + RETRY_DELAYS_SECONDS[index] * 1000);
}

export type DeliveryDecision =
  | { status: 'entregado'; outcome: 'entregado' }
  | { status: 'fallido'; outcome: 'fallido' }
  | { status: 'agotado'; outcome: 'agotado' }
  | { status: 'pendiente'; outcome: 'reintento'; nextAttemptAt: Date };

/** The state after an attempt: `attemptNumber` counts this attempt (1 = the first one). */
export function decide(result: AttemptResult, attemptNumber: number, maxAttempts: number, now: Date): DeliveryDecision {
  const c = classifyResponse(result);
  if (c === 'delivered') return { status: 'entregado', outcome: 'entregado' };
  if (c === 'failed') return { status: 'fallido', outcome: 'fallido' };
  // Spec 3: "retry scheduled / attempts used up / maximum reached → exhausted (agotado)".
  if (attemptNumber >= maxAttempts) return { status: 'agotado', outcome: 'agotado' };
  return { status: 'pendiente', outcome: 'reintento', nextAttemptAt: nextAttemptAt(attemptNumber, now) };
}
