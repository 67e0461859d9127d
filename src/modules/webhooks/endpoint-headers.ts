/**
 * The extra `headers` of an endpoint (spec 2.5). A name must be an RFC 7230 token and a value visible
 * ASCII, space or tab (RFC 7230 field-vchar without obs-text: no CR, LF, NUL or other controls).
 * undici refuses anything else, and a refused request kept one of its per-origin connection slots for
 * good (QA, verified with undici 7.30): checked at registration and update, and again before sending
 * for rows stored earlier.
 */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\t\x20-\x7e]*$/;

/** Set by the delivery itself, or refused by undici (transfer-encoding, keep-alive, upgrade, expect). */
const RESERVED = /^(content-type|content-length|host|idempotency-key|webhook-.*|transfer-encoding|connection|keep-alive|upgrade|expect|te|trailer)$/i;

export interface HeaderProblems {
  /** Names that are not RFC 7230 tokens. */
  invalidNames: string[];
  /** Names whose value holds a character outside visible ASCII, space and tab. */
  invalidValues: string[];
  reserved: string[];
}

export function headerProblems(headers: Record<string, unknown>): HeaderProblems | undefined {
  const problems: HeaderProblems = { invalidNames: [], invalidValues: [], reserved: [] };
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) problems.invalidNames.push(name);
    else if (RESERVED.test(name)) problems.reserved.push(name);
    if (typeof value !== 'string' || !VALUE.test(value)) problems.invalidValues.push(name);
  }
  const any = problems.invalidNames.length + problems.invalidValues.length + problems.reserved.length > 0;
  return any ? problems : undefined;
}

/** Header values as shown to a caller who may not manage the endpoint: names only. */
export const MASKED_VALUE = '********';

export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED_VALUE]));
}
