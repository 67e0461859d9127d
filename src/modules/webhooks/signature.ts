/**
 * Standard Webhooks v1 signatures (PRODUCT.md section 4): HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}`, sent as `webhook-signature: v1,<base64>`.
 * Secrets in the `whsec_<base64>` form are base64-decoded to get the key (the convention); any
 * other secret string is used as UTF-8 bytes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';

export function secretKey(secret: string): Buffer {
  return secret.startsWith(PREFIX) ? Buffer.from(secret.slice(PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function generateSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function sign(secret: string | Buffer, msgId: string, timestamp: number, body: string): string {
  const key = typeof secret === 'string' ? secretKey(secret) : secret;
  return 'v1,' + createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
}

/** Receiver-side check (documented snippet and tests): constant-time compare and a timestamp tolerance. */
export function verify(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string, nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = 300): boolean {
  const ts = Number(headers.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, headers.id, ts, body).slice(3), 'base64');
  return headers.signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The verification snippet published in the OpenAPI description and docs/EVENTS.md. */
export const VERIFY_SNIPPET = [
  "import { createHmac, timingSafeEqual } from 'node:crypto';",
  '// secret: the endpoint secret; rawBody: the request body exactly as received (string)',
  'function verifyWebhook(secret, headers, rawBody) {',
  "  const id = headers['webhook-id'], ts = headers['webhook-timestamp'];",
  '  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false; // replay window',
  "  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);",
  "  const expected = createHmac('sha256', key).update(`${id}.${ts}.${rawBody}`).digest();",
  "  return headers['webhook-signature'].split(' ').some((s) => {",
  "    const [v, sig] = s.split(',');",
  "    const given = Buffer.from(sig ?? '', 'base64');",
  "    return v === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);",
  '  });',
  '}',
].join('\n');
