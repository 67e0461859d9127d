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

/**
 * One pino instance per process; Fastify derives per-request children carrying `reqId`.
 * `destination` lets a test capture what is written.
 */
export function createLogger(config: Pick<AppConfig, 'logLevel'>, destination?: pino.DestinationStream) {
  return pino({
    level: config.logLevel,
    base: undefined,
    serializers: { req: serializeRequest },
    redact: {
      paths: [
        'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie',
        'clave', 'password', 'refreshToken', 'accessToken', 'token', 'secret', 'smtpClave',
        '*.clave', '*.password', '*.refreshToken', '*.accessToken', '*.token', '*.secret', '*.smtpClave', '*.nuevaClave', '*.claveActual', '*.keyPem', '*.privateKey',
      ],
      censor: REDACTED,
    },
  }, destination);
}

export type Logger = pino.Logger;
