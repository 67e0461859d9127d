import pino from 'pino';
import type { AppConfig } from '../config.js';

/** One pino instance per process; Fastify derives per-request children carrying `reqId`. */
export function createLogger(config: Pick<AppConfig, 'logLevel'>) {
  return pino({
    level: config.logLevel,
    base: undefined,
    redact: { paths: ['req.headers.authorization', '*.clave', '*.password', '*.refreshToken'], remove: true },
  });
}

export type Logger = pino.Logger;
