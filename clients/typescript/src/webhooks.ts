/**
 * The check of a webhook delivery's signature, as the service signs it (Standard Webhooks v1):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">`,
 * keyed by the endpoint secret (a `whsec_<base64>` secret is base64-decoded, any other string is
 * used as UTF-8). The body must be the raw text as received, before any JSON parsing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface WebhookHeaders {
  'webhook-id'?: string | string[];
  'webhook-timestamp'?: string | string[];
  'webhook-signature'?: string | string[];
  [name: string]: unknown;
}

const one = (v: unknown): string | undefined => (Array.isArray(v) ? v[0] : typeof v === 'string' ? v : undefined);

/**
 * Whether the delivery is authentic and recent: a constant-time compare of each `v1,` signature
 * (the header may carry several while a secret is rotated) and a timestamp within `toleranceSeconds`
 * of now, so a captured delivery cannot be replayed later.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, rawBody: string, opts: { toleranceSeconds?: number; nowSeconds?: number } = {}): boolean {
  const id = one(headers['webhook-id']);
  const timestamp = one(headers['webhook-timestamp']);
  const signature = one(headers['webhook-signature']);
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (opts.toleranceSeconds ?? 300)) return false;
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  if (key.length === 0) return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
