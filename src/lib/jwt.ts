/**
 * Minimal HS256 JWT (RFC 7519) on node:crypto: our access tokens only need sign/verify with one
 * shared secret, and this keeps the hot path (every request) at a few microseconds.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface JwtClaims {
  sub: string;
  iat: number;
  exp: number;
  [k: string]: unknown;
}

const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export function signJwt(claims: Omit<JwtClaims, 'iat' | 'exp'>, secret: string, ttlSeconds: number, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const body = Buffer.from(JSON.stringify({ ...claims, iat, exp: iat + ttlSeconds })).toString('base64url');
  const sig = createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${sig}`;
}

export type JwtResult = { ok: true; claims: JwtClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

export function verifyJwt(token: string, secret: string, now = Date.now()): JwtResult {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== header) return { ok: false, reason: 'malformed' };
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  let claims: JwtClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

/**
 * verifyJwt that remembers the tokens it verified: an API client sends the same access token on
 * every request, and the HMAC with its decoding is ~10 µs of the event loop each time (issue 5
 * point 11). Only exact token strings that verified are kept, with their (frozen) claims; expiry
 * is checked on every use, and the oldest entry goes first beyond `maxEntries`.
 */
export function createJwtVerifier(secret: string, maxEntries = 10_000): (token: string, now?: number) => JwtResult {
  const verified = new Map<string, JwtClaims>();
  return (token, now = Date.now()) => {
    const hit = verified.get(token);
    if (hit) {
      if (hit.exp * 1000 > now) return { ok: true, claims: hit };
      verified.delete(token);
      return { ok: false, reason: 'expired' };
    }
    const result = verifyJwt(token, secret, now);
    if (result.ok) {
      if (verified.size >= maxEntries) verified.delete(verified.keys().next().value!);
      verified.set(token, Object.freeze(result.claims));
    }
    return result;
  };
}
