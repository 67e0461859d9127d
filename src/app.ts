/**
 * buildApp(deps): Fastify with the platform plugins, each module's routes (by name, in
 * modules/index.ts), then 501 stubs for the spec endpoints no module claims yet.
 * Plugin order: error handling → security/limits → OpenAPI → auth/tenancy → modules → stubs.
 */
import { randomUUID } from 'node:crypto';
import { redactUrl } from './platform/logger.js';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppConfig } from './config.js';
import type { Database } from './platform/db/client.js';
import type { Logger } from './platform/logger.js';
import type { Mailer } from './platform/mailer.js';
import { registerErrorHandling } from './platform/http/error-handler.js';
import { registerTextSafety } from './platform/http/text-safety.js';
import { registerStrictBodies } from './platform/http/strict-body.js';
import { registerSecurityHeaders } from './platform/http/security-headers.js';
import { registerNotImplemented } from './platform/http/not-implemented.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { registerCompression } from './platform/http/compression.js';
import { declareRoles, registerTenancy } from './platform/http/tenancy.js';
import { registerCompanyRefs } from './platform/http/company-refs.js';
import { createModules } from './modules/index.js';
import { stateCollectors } from './modules/metrics/metrics.repository.js';
import { registerMetrics } from './platform/metrics.js';

/** The newest version of CHANGELOG.md (test/platform/changelog.test.ts keeps them equal); the OpenAPI info.version. */
export const APP_VERSION = '0.4.0';

const memorySchema = z.object({ rssMb: z.number(), heapUsedMb: z.number(), heapTotalMb: z.number(), externalMb: z.number(), arrayBuffersMb: z.number() });

/**
 * The process's memory in MB (issue 29 point 5): `rssMb` is the whole process, worker threads
 * included (the embedded PostgreSQL is a separate process); the heap figures are the main
 * thread's V8 heap only.
 */
export function processMemory(): z.infer<typeof memorySchema> {
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 104_857.6) / 10;
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), heapTotalMb: mb(m.heapTotal), externalMb: mb(m.external), arrayBuffersMb: mb(m.arrayBuffers) };
}

export interface AppDeps {
  config: AppConfig;
  database: Database;
  logger: Logger;
  mailer: Mailer;
  jwtSecret: string;
  /** The clock of time-driven modules (recurring plans); tests move it. */
  now?: () => Date;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One log line per request, when it completes, instead of Fastify's two ("incoming request" with the
 * request's serialised headers, then "request completed"): at the default level they were most of
 * what the service wrote, two JSON serialisations and two writes per receipt issued (issue 29 point 3).
 * Failures keep Fastify's own line.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    // The URL as the request serializer logs it: path and query tokens redacted (issue 28 point 7).
    reply.log.info({ method: request.method, url: redactUrl(request.url, request.routeOptions?.url), statusCode: reply.statusCode, responseTime: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed');
  }
}

export async function buildApp(deps: AppDeps) {
  // Validation messages (400 VALIDACION, campos[].mensaje) in Spanish like every other error sentence
  // of the API; zod's own locale, process-wide and idempotent.
  z.config(z.locales.es());
  const app = Fastify({
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 5 * 1024 * 1024,
    logController: new OneLinePerRequest(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  declareRoles(app);
  registerTextSafety(app);
  registerStrictBodies(app);
  // Set on arrival (a sync hook, no promise per request): every answer carries it, errors and 404s included.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  registerSecurityHeaders(app);
  await app.register(rateLimit, { global: false });
  await registerCompression(app);
  await app.register(multipart, { limits: { fileSize: 2 * 1024 * 1024, files: 1, fields: 20 } });
  await registerOpenApi(app, { version: APP_VERSION });

  const modules = createModules(deps);
  app.addHook('onClose', async () => modules.close());
  registerTenancy(app, {
    authenticate: modules.services.auth.authenticate,
    companyExists: modules.services.companies.exists,
  });
  registerCompanyRefs(app, modules.companyRefs);

  app.get('/healthz', { config: { public: true }, schema: { tags: ['Salud'], summary: 'Liveness', security: [], response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', {
    config: { public: true },
    schema: { tags: ['Salud'], summary: 'Readiness (database reachable) and the process memory', security: [], response: { 200: z.object({ status: z.literal('ready'), memoria: memorySchema }), 503: z.object({ status: z.literal('unavailable'), error: z.string(), memoria: memorySchema }) } },
  }, async (_req, reply) => {
    try {
      await deps.database.db.execute(sql`select 1`);
      return { status: 'ready' as const, memoria: processMemory() };
    } catch (err) {
      return reply.status(503).send({ status: 'unavailable' as const, error: (err as Error).message, memoria: processMemory() });
    }
  });

  registerMetrics(app, { token: deps.config.metrics.token, pool: deps.database.pool, collectors: stateCollectors(deps.database.db) });

  for (const routes of modules.routes) await app.register(routes);
  await app.register(registerNotImplemented);
  await app.ready();
  return { app, modules };
}

export type App = Awaited<ReturnType<typeof buildApp>>['app'];
