import pino from 'pino';
import type { AppConfig } from '../config.js';

/**
 * Names that carry a secret wherever they appear: a path parameter (`/auth/revoke/:refreshToken`,
 * `/previsualizar/:token`), a query parameter or a logged object's key (issue 28 point 7).
 */
const SECRET_NAME = /token|clave|password|passwd|secret|secreto|authorization|cookie|apikey|api-key|privatekey|archivo/i;
/** A path segment that looks like a random token (≥ 24 url-safe characters): redacted even on an unknown route. */
const TOKEN_LIKE = /^[A-Za-z0-9_~.%-]{24,}$/;
const REDACTED = '[REDACTED]';

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
  routeOptions?: { url?: string };
}

/**
 * The URL as it may be logged: path parameters named like a secret, token-like segments and
 * secret-named query parameters replaced by [REDACTED].
 */
export function redactUrl(url: string, routePattern?: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const pattern = routePattern?.split('/');
  const segments = path.split('/').map((seg, i) => {
    const p = pattern?.[i];
    if (p?.startsWith(':') && SECRET_NAME.test(p)) return REDACTED;
    return TOKEN_LIKE.test(seg) ? REDACTED : seg;
  });
  if (q === -1) return segments.join('/');
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = decodeURIComponentSafe(eq === -1 ? pair : pair.slice(0, eq));
    return eq !== -1 && SECRET_NAME.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
  });
  return `${segments.join('/')}?${query.join('&')}`;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Fastify's request serializer without headers, and with the URL redacted. */
function serializeRequest(req: LoggedRequest) {
  return { method: req.method, url: req.url === undefined ? undefined : redactUrl(req.url, req.routeOptions?.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

// Keys whose value is never written, at the top of a logged object or one level down (`body.clave`,
// `cert.keyPem`), and the credentials of any `headers` object there (issue 28 point 7).
const SECRET_KEYS = ['clave', 'password', 'refreshToken', 'accessToken', 'token', 'secret', 'smtpClave'];
const NESTED_SECRET_KEYS = [...SECRET_KEYS, 'nuevaClave', 'claveActual', 'keyPem', 'privateKey'];
const SECRET_HEADERS = ['authorization', 'cookie'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `obj` with `changes` applied, on a copy: a plain object is spread; any other (a Fastify request
 * logged on an error, whose `headers` is a getter of its prototype) keeps its prototype and own
 * properties, so the serializers that run after this still read it.
 */
function replaced(obj: Record<string, unknown>, changes: [string, unknown][]): Record<string, unknown> {
  if (changes.length === 0) return obj;
  const proto = Object.getPrototypeOf(obj);
  const copy = proto === Object.prototype || proto === null ? { ...obj } : Object.create(proto, Object.getOwnPropertyDescriptors(obj));
  for (const [key, value] of changes) Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

function censor(obj: Record<string, unknown>, keys: readonly string[]): [string, unknown][] {
  const changes: [string, unknown][] = [];
  for (const key of keys) if (obj[key] !== undefined) changes.push([key, REDACTED]);
  return changes;
}

function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return replaced(headers, censor(headers, SECRET_HEADERS));
}

function redactNested(obj: Record<string, unknown>): Record<string, unknown> {
  const changes = censor(obj, NESTED_SECRET_KEYS);
  const headers = obj.headers;
  if (isObject(headers)) {
    const safe = redactHeaders(headers);
    if (safe !== headers) changes.push(['headers', safe]);
  }
  return replaced(obj, changes);
}

/**
 * What is logged of an object (and of a child logger's bindings), before pino's serializers: never
 * modified, copied where a secret is replaced. It replaces pino's `redact` option with the same paths:
 * its wildcard paths (`*.clave`) cost ~11 µs a line in a loop against ~0.2 µs for this walk
 * (bench/RESULTS.md, 2026-11-29 EPYC), and every request writes a line.
 */
export function redactLogged(obj: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(obj)) return obj;
  const changes: [string, unknown][] = [];
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    const safe = SECRET_KEYS.includes(key) ? REDACTED : !isObject(value) ? value : key === 'headers' ? redactHeaders(value) : redactNested(value);
    if (safe !== value) changes.push([key, safe]);
  }
  return replaced(obj, changes);
}

/**
 * One pino instance per process; Fastify derives per-request children carrying `reqId`.
 * `destination` lets a test capture what is written. Lines are not held back in a buffer (pino's
 * `minLength`): the last lines before a kill -9 or an OOM kill are the ones an operator needs.
 */
export function createLogger(config: Pick<AppConfig, 'logLevel'>, destination?: pino.DestinationStream) {
  const logger = pino({
    level: config.logLevel,
    base: undefined,
    serializers: { req: serializeRequest },
    formatters: { log: redactLogged },
  }, destination);
  // A child's bindings (Fastify's reqId, a job's name) are written on each of its lines: redacted once,
  // here, as pino's `redact` did. Children inherit this `child` (pino derives them with Object.create).
  const child = logger.child as unknown as (this: unknown, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => pino.Logger;
  logger.child = function (this: unknown, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) {
    return child.call(this, redactLogged(bindings), options);
  } as unknown as typeof logger.child;
  return logger;
}

export type Logger = pino.Logger;
