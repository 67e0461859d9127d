/**
 * Compression bench: what @fastify/compress (src/platform/http/compression.ts) saves on the answers
 * that benefit and what it costs. Sizes of real answers (identity, gzip, brotli as the service sends
 * them), the CPU to compress each one against the raw baseline of the same run (one RSA-2048 sign
 * on this core), and the service-side time of the emission path and of a small answer with and
 * without `accept-encoding` (app.inject, no network). Standalone: `npx tsx --v8-pool-size=1 bench/compression.ts`.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { companies } from '../src/modules/companies/companies.tables.js';
import { setUpIssuer } from '../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { connectDatabase } from '../src/platform/db/client.js';
import { createLogger } from '../src/platform/logger.js';
import { createMailer } from '../src/platform/mailer.js';
import { eTicketBody, median, openBenchDatabase } from './support.js';

const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';
const ADMIN = { usuario: 'bench@bench.uy', clave: 'bench-password-1' };

/** Microseconds per call of `fn`, median of 5 rounds of `n` calls. */
function microsPerCall(fn: () => unknown, n: number): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    rounds.push(Number(process.hrtime.bigint() - t0) / 1e3 / n);
  }
  return Math.round(median(rounds) * 10) / 10;
}

export async function runCompressionBench(): Promise<Record<string, unknown>> {
  const dbh = await openBenchDatabase('bench_compression');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compression-data-'));
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: dbh.url, DATA_DIR: dataDir, JWT_SECRET, LOG_LEVEL: 'silent', AUTH_RATE_LIMIT_PER_MINUTE: '100000' });
  const logger = createLogger(config);
  const database = connectDatabase(dbh.url, { max: 10 });
  const mailer = createMailer(config.mail, logger);
  const { app, modules } = await buildApp({ config, logger, database, mailer, jwtSecret: JWT_SECRET });
  try {
    await modules.services.users.ensureFirstAdmin(ADMIN.usuario, ADMIN.clave);
    const token = (await app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN })).json().accessToken as string;
    const authorization = `Bearer ${token}`;
    const call = async (tk: string, method: string, url: string, body?: unknown) => {
      const r = await app.inject({ method: method as 'POST', url, payload: body as object, headers: { authorization: `Bearer ${tk}` } });
      return { status: r.statusCode, body: r.json() };
    };
    const [company] = await database.db.insert(companies).values({ rut: '219999830019', razonSocial: 'Bench Emisora S.A.' }).returning();
    await setUpIssuer(database.db, call, token, company, { size: 100_000 });
    const emit = (acceptEncoding?: string) => app.inject({ method: 'POST', url: '/api/v1/comprobante/emitir', payload: eTicketBody(company.id),
      headers: { authorization, 'content-type': 'application/json', ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) } });
    for (let i = 0; i < 60; i++) await emit();

    const answers: Array<[name: string, url: string, method?: 'POST']> = [
      ['openapi.json', '/openapi.json'],
      ['error catalogue page', '/docs/errores'],
      ['issued CFE search, 50 rows', `/api/v1/cfeemitido/buscar?idEmpresa=${company.id}&length=50`],
      ['one issued CFE', `/api/v1/cfeemitido/1?idEmpresa=${company.id}`],
      ['healthz', '/healthz'],
    ];
    const sizes: Record<string, Record<string, number | string>> = {};
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const payload = randomBytes(600);
    const rsaSignMicros = microsPerCall(() => sign('sha256', payload, rsa), 100);
    for (const [name, url] of [...answers, ['emitir answer', '']] as Array<[string, string]>) {
      const get = (enc?: string) => (url ? app.inject({ method: 'GET', url, headers: { authorization, ...(enc ? { 'accept-encoding': enc } : {}) } }) : emit(enc));
      const plain = await get();
      const gz = await get('gzip');
      const br = await get('br');
      const body = plain.rawPayload;
      const n = Math.max(5, Math.min(2000, Math.round(2e6 / Math.max(body.length, 1))));
      sizes[name] = {
        identityBytes: body.length,
        gzipBytes: gz.rawPayload.length, gzipSent: gz.headers['content-encoding'] ?? 'identity',
        brBytes: br.rawPayload.length, brSent: br.headers['content-encoding'] ?? 'identity',
        brMicros: microsPerCall(() => zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }), n),
        gzipMicros: microsPerCall(() => zlib.gzipSync(body), n),
      };
      console.log(`compression: ${name}: ${body.length} B as is; gzip ${sizes[name].gzipBytes} B (${sizes[name].gzipSent}), br ${sizes[name].brBytes} B (${sizes[name].brSent}); compressing it costs br q4 ${sizes[name].brMicros} µs, gzip ${sizes[name].gzipMicros} µs (one RSA-2048 sign on this core: ${rsaSignMicros} µs)`);
    }
    // The emission path and a small answer, with and without accept-encoding: service-side time per request.
    // Interleaved rounds (A, B, A, B, ...): this shared VM's speed drifts within a minute.
    const timedPair = async (a: () => Promise<unknown>, b: () => Promise<unknown>, n: number) => {
      const ra: number[] = [];
      const rb: number[] = [];
      for (let r = 0; r < 6; r++) {
        for (const [fn, out] of [[a, ra], [b, rb]] as const) {
          const t0 = process.hrtime.bigint();
          for (let i = 0; i < n; i++) await fn();
          out.push(Number(process.hrtime.bigint() - t0) / 1e3 / n);
        }
      }
      return [Math.round(median(ra)), Math.round(median(rb))];
    };
    const health = (enc?: string) => app.inject({ method: 'GET', url: '/healthz', headers: enc ? { 'accept-encoding': enc } : {} });
    const [emitirMicrosIdentity, emitirMicrosAcceptGzipBr] = await timedPair(() => emit(), () => emit('gzip, deflate, br'), 150);
    const [healthzMicrosIdentity, healthzMicrosAcceptGzipBr] = await timedPair(() => health(), () => health('gzip, deflate, br'), 2000);
    const paths = { emitirMicrosIdentity, emitirMicrosAcceptGzipBr, healthzMicrosIdentity, healthzMicrosAcceptGzipBr };
    console.log(`compression: emitir (one at a time, in-process) ${paths.emitirMicrosIdentity} µs without accept-encoding, ${paths.emitirMicrosAcceptGzipBr} µs with it (the route opts out: same path)`);
    console.log(`compression: /healthz ${paths.healthzMicrosIdentity} µs without accept-encoding, ${paths.healthzMicrosAcceptGzipBr} µs with it (below the threshold: sent as is)`);
    return { rsaSignMicros, sizes, paths };
  } finally {
    await app.close();
    mailer.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await dbh.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runCompressionBench().then((r) => { console.log(JSON.stringify(r, null, 2)); process.exit(0); }, (err) => { console.error(err); process.exit(1); });
}
