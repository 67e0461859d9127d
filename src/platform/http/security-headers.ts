/**
 * Security response headers (helmet's defaults, without a Content-Security-Policy: the API serves
 * JSON, XML and PDF; the Swagger UI page brings its own scripts).
 *
 * Why not @fastify/helmet: it builds a new helmet middleware chain from the options on every
 * request (two onRequest hooks, one of them async), ~3 % of the main thread's CPU per emitir
 * (issue 5 point 11). With these options every header helmet writes is a constant, so helmet runs
 * once at startup against a recorder and each request replays the recorded operations.
 */
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { ServerResponse } from 'node:http';

export type HeaderOperation = readonly [name: string, value: string | number | readonly string[]] | readonly [name: string];

/** The header writes (`[name, value]`) and removals (`[name]`) helmet makes with `options`, in order. */
export function recordHelmetHeaders(options: Readonly<HelmetOptions>): HeaderOperation[] {
  const ops: HeaderOperation[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      ops.push([name, value]);
      return recorder;
    },
    removeHeader(name: string) {
      ops.push([name]);
    },
    getHeader: () => undefined,
  };
  let failure: unknown;
  helmet(options)({} as never, recorder as never, (err?: unknown) => {
    failure = err;
  });
  if (failure) throw failure;
  return ops;
}

export function applyHeaderOperations(res: ServerResponse, ops: readonly HeaderOperation[]): void {
  for (const op of ops) {
    if (op.length === 2) res.setHeader(op[0], op[1] as string | number | string[]);
    else res.removeHeader(op[0]);
  }
}

export function registerSecurityHeaders(app: FastifyInstance, options: Readonly<HelmetOptions> = { contentSecurityPolicy: false }): void {
  const ops = recordHelmetHeaders(options);
  app.addHook('onRequest', (_request, reply, done) => {
    applyHeaderOperations(reply.raw, ops);
    done();
  });
}
