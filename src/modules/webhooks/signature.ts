/**
 * Standard Webhooks v1 signatures (PRODUCT.md section 4): HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}`, sent as `webhook-signature: v1,<base64>`.
 * Secrets in the `whsec_<base64>` form are base64-decoded to get the key (the convention); any
 * other secret string is used as UTF-8 bytes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';
/** Standard Webhooks: a `whsec_` key is 24 to 64 random bytes. */
export const MIN_KEY_BYTES = 24;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/**
 * The `whsec_` key, or undefined when the part after the prefix is not standard base64 of at least
 * MIN_KEY_BYTES bytes. Buffer.from(…, 'base64') skips what it cannot read, so `whsec_!!!!` would
 * otherwise sign with an empty key that anyone can forge.
 */
function whsecKey(secret: string): Buffer | undefined {
  const encoded = secret.slice(PREFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_KEY_BYTES ? key : undefined;
}

/** Whether a secret may be stored: any string, but a `whsec_` one must decode to a real key. */
export function isUsableSecret(secret: string): boolean {
  return !secret.startsWith(PREFIX) || whsecKey(secret) !== undefined;
}

export class UnusableSecretError extends Error {
  constructor() {
    super(`El secreto whsec_ no es base64 de al menos ${MIN_KEY_BYTES} bytes; la entrega no se firma con una clave vacía.`);
  }
}

/** The HMAC key; throws UnusableSecretError for a `whsec_` secret that does not decode (never an empty key). */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) return Buffer.from(secret, 'utf8');
  const key = whsecKey(secret);
  if (!key) throw new UnusableSecretError();
  return key;
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
  if (!isUsableSecret(secret)) return false;
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
