/**
 * The only reader of process.env. Parsed once with zod; a bad value stops startup with a message
 * naming the variable (issue 2 point 2).
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('./data'),
  /** External PostgreSQL. When unset, the service starts its own embedded PostgreSQL under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /**
   * Extra settings for the embedded PostgreSQL, `name=value` separated by spaces, each passed as `-c`
   * (diagnostics: `bench/lifecycle.ts --pg-statements` sets `shared_preload_libraries=pg_stat_statements`).
   */
  EMBEDDED_PG_SETTINGS: z.string().regex(/^\s*([A-Za-z_.]+=[^\s=]+\s*)*$/, 'must be name=value pairs separated by spaces').optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
  /** HMAC secret for access tokens; required in production, generated and kept in DATA_DIR otherwise. */
  JWT_SECRET: z.string().min(32).optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(1440).default(30),
  MAX_FAILED_LOGINS: z.coerce.number().int().min(1).max(100).default(5),
  ADMIN_USER: z.string().email().default('admin@localhost.localdomain'),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  /** nodemailer connection URL (smtp://user:pass@host:port). Unset: mails go to DATA_DIR/outbox and the log. */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Facturación electrónica <no-reply@localhost.localdomain>'),
  PUBLIC_URL: z.string().url().optional(),
  /** Run the job worker inside the API process (the embedded default) or only in `npm run worker`. */
  WORKER_IN_PROCESS: bool.optional(),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** AES-256-GCM master key (64 hex chars) for private keys at rest; mandatory in production. */
  MASTER_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (32 bytes)').optional(),
  WEBHOOK_ALLOW_PRIVATE_URLS: bool.optional().transform((v) => v ?? false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Webhook deliveries in flight at once per delivery engine, and its poll fallback when NOTIFY is missed. */
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(5000).default(512),
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Bearer token of GET /metrics (Prometheus); unset = no /metrics at all (issue 44 point 5). */
  METRICS_TOKEN: z.string().min(16).optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Per-IP requests per minute on login / password-recovery endpoints. */
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  /** Requests per minute and client address to the buyers' public receipt lookup /consulta (issue 47). */
  PUBLIC_LOOKUP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(20),
  /** DGI RUT lookup and BCU rates: the local simulator (default) or the real services. */
  DGI_MODE: z.enum(['simulator', 'real']).default('simulator'),
  /** A running simulator (`npm run dgi:simulator`); unset in simulator mode = start one in-process. */
  DGI_SIMULATOR_URL: z.string().url().optional(),
  /**
   * Nice value (0-19) of the in-process simulator's thread. The simulated DGI stands for servers that are not
   * ours: its work (each CFE's signature, signed ACKs) waits for the cores the service's own threads leave, as
   * DGI's would. Applied on Linux only, where nice values are per thread (elsewhere it would slow the whole
   * process); 0 = the service's priority.
   */
  DGI_SIMULATOR_NICE: z.coerce.number().int().min(0).max(19).default(10),
  DGI_RUT_URL: z.string().url().default('https://efactura.dgi.gub.uy:6470/ePrueba/ws_personaGetActEmpresarialPrueba'),
  /** DGI WS_eFactura reception (envelopes, daily report) in `real` mode; default the Testing endpoint (BRIEF 6). */
  DGI_EFACTURA_URL: z.string().url().default('https://efactura.dgi.gub.uy:6443/ePrueba/ws_eprueba'),
  /** DGI's consultas service (BRIEF 7), asked when an envelope's answer was lost (DGI_MODE=real). */
  DGI_CONSULTAS_URL: z.string().url().default('https://efactura.dgi.gub.uy:6460/ePrueba/ws_consultasPrueba'),
  /** DGI's public QR verification page (BRIEF 4), asked by consultarQr of received CFE (DGI_MODE=real). */
  DGI_QR_URL: z.string().url().default('https://www.efactura.dgi.gub.uy/consultaQR/cfe'),
  /** DGI environment: RutReceptor of envelopes to DGI (BRIEF 5: testing 219999830019, production 214844360018). */
  DGI_ENVIRONMENT: z.enum(['testing', 'production']).default('testing'),
  DGI_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  /** Envelope limits (FSOB: at most 250 CFE and 2 MB); smaller values only for tests and trials. */
  DGI_ENVELOPE_MAX_CFE: z.coerce.number().int().min(1).max(250).default(250),
  DGI_ENVELOPE_MAX_BYTES: z.coerce.number().int().min(4096).max(2 * 1024 * 1024).default(2 * 1024 * 1024),
  /** Retries of transient DGI failures (submission worker): exponential from BASE, capped at MAX. */
  DGI_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
  DGI_RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  DGI_SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(12),
  DGI_POLL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(48),
  /** Upper bound on the wait before the first EFACCONSULTARESTADOENVIO, whatever Fechahora DGI gives. */
  DGI_POLL_DELAY_CAP_MS: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
  /**
   * A receipt sent to DGI (en_cola_dgi, sobre_recibido) unchanged this long makes the worker ask
   * DGI's consultas service what it holds (issue 29; BRIEF 7). Every minute, by cron.
   */
  DGI_STALE_RECEIPT_SECONDS: z.coerce.number().int().min(1).max(30 * 86_400).default(1800),
  /**
   * Delay of the submission worker's wake-up after emissions (a burst becomes one envelope). 100 ms,
   * not 500: under sustained load each wake-up sends what piled up since the last one, and at 500 ms
   * that was ~300 receipts every half second (envelopes of ~210 CFEs on average) whose claim, build,
   * DGI check and ACK came as one burst of CPU the requests in flight waited for. At 100 ms the
   * worker runs as often as its round trips allow (~150 CFEs per envelope under the same load;
   * lifecycle bench, 2026-11-30: p99 113-143 ms at 500, 87-105 ms at 100, same throughput with the
   * simulator at the service's priority; with it at nice 10, 500 gives ~10 % more throughput and a
   * tail as wide or wider).
   * DGI sets no rate for envelopes (BRIEF 5-6: up to 250 CFEs each, no minimum). The price: at
   * moderate rates more, smaller envelopes, ~28 ms of CPU each (docs/DEPLOYMENT.md says when 500 suits).
   */
  DGI_WAKE_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(100),
  /** Uruguay hour (0-23) from which the daily task sends yesterday's daily report (BRIEF 9). */
  DAILY_REPORT_HOUR: z.coerce.number().int().min(0).max(23).default(1),
  /** Only CFEs signed in the last N days are e-mailed automatically to electronic receivers (BRIEF 8). */
  RECEIVER_EXCHANGE_MAX_AGE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** DGI's registry of electronic issuers (BRIEF 7): Uruguay hour of the daily sync, and whether it uses the gzip + base64 variant. */
  ISSUER_REGISTRY_SYNC_HOUR: z.coerce.number().int().min(0).max(23).default(5),
  ISSUER_REGISTRY_COMPRESSED: bool.optional().transform((v) => v ?? true),
  /** Last fiscal year of Decreto 206/019's credit (BRIEF 12: extended year by year, to 2026 by Decreto 296/025). */
  TAX_BENEFIT_206_LAST_YEAR: z.coerce.number().int().min(2019).max(2100).default(2026),
  // Received CFEs (issue 30): an XML attachment above this is recorded and not processed; mails read per mailbox per poll.
  RECEIVED_MAX_ATTACHMENT_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(10 * 1024 * 1024),
  RECEIVED_POLL_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  RECEIVED_MAILBOX_IDLE: bool.optional().transform((v) => v ?? true),
  RECEIVED_RESPONSE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Worker threads that verify the CFEs of received envelopes; 0 = on the event loop. Default: cores − 1, at least 1. */
  RECEIVED_VERIFY_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  // Usage metering (issue 33): days an idTransaccion stays deduplicated (at least 35), days raw events are kept, default grace for late events.
  USAGE_DEDUP_DAYS: z.coerce.number().int().min(35).max(3650).default(40),
  USAGE_RAW_RETENTION_DAYS: z.coerce.number().int().min(35).max(3650).default(400),
  USAGE_GRACE_HOURS: z.coerce.number().int().min(0).max(24 * 31).default(72),
  BCU_RATES_URL: z.string().url().default('https://cotizaciones.bcu.gub.uy/wscotizaciones/servlet/awsbcucotizaciones'),
  LOOKUP_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(3600),
  /** UI (Unidad Indexada) value used for the 5,000 UI e-Ticket threshold (BRIEF 1) only when the central bank (BCU code 9800 at 31 December of the previous year) cannot be reached. */
  UI_VALUE: z.string().regex(/^\d+(\.\d+)?$/).default('6.4'),
  /**
   * PEM file with extra certificates a CAE file's signer may chain to (BRIEF 3, 10): a newer DGI CA,
   * an external simulator's CA. Correo Uruguayo's CA is built in (cae.trust).
   */
  CAE_TRUST_ANCHORS: z.string().min(1).optional(),
  /**
   * PEM/DER file, or folder of them, with certification authorities added to the built-in store
   * (resources/trust/uy) that company signing certificates must chain to (BRIEF 3): Abitab ID digital,
   * renewed CAs. DGI_MODE=real refuses a certificate outside the store; simulator mode warns.
   */
  CERT_TRUST_ANCHORS: z.string().min(1).optional(),
  /** Worker threads that sign, XSD-validate and draw the QR of issued CFEs; 0 = on the event loop. Default: cores − 1, at least 1. */
  EMISSION_SEAL_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
});

export type Env = z.infer<typeof envSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production') {
    const missing = [
      !e.JWT_SECRET && 'JWT_SECRET',
      !e.MASTER_KEY && 'MASTER_KEY',
    ].filter(Boolean);
    if (missing.length) throw new ConfigError(`Invalid configuration: production mode requires ${missing.join(', ')}`);
  }
  const dataDir = path.resolve(e.DATA_DIR);
  return Object.freeze({
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    http: { port: e.PORT, host: e.HOST, publicUrl: e.PUBLIC_URL, shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS, authRateLimitPerMinute: e.AUTH_RATE_LIMIT_PER_MINUTE, publicLookupRateLimitPerMinute: e.PUBLIC_LOOKUP_RATE_LIMIT_PER_MINUTE },
    logLevel: e.LOG_LEVEL,
    dataDir,
    /** Started by `npm start`/`npm run worker` (npm sets npm_lifecycle_event): the process stops when npm dies (issue 44 point 2). */
    underNpm: Boolean(env.npm_lifecycle_event),
    db: {
      url: e.DATABASE_URL,
      embeddedPort: e.EMBEDDED_PG_PORT,
      embeddedSettings: (e.EMBEDDED_PG_SETTINGS ?? '').split(/\s+/).filter(Boolean),
      poolMax: e.DB_POOL_MAX,
    },
    auth: {
      jwtSecret: e.JWT_SECRET,
      accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlDays: e.REFRESH_TOKEN_TTL_DAYS,
      passwordResetTtlMinutes: e.PASSWORD_RESET_TTL_MINUTES,
      maxFailedLogins: e.MAX_FAILED_LOGINS,
      adminUser: e.ADMIN_USER,
      adminPassword: e.ADMIN_PASSWORD,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: path.join(dataDir, 'outbox') },
    worker: {
      inProcess: e.WORKER_IN_PROCESS ?? !e.DATABASE_URL,
      concurrency: e.WORKER_CONCURRENCY,
    },
    secrets: { masterKey: e.MASTER_KEY },
    dgi: {
      mode: e.DGI_MODE, simulatorUrl: e.DGI_SIMULATOR_URL, rutUrl: e.DGI_RUT_URL, bcuUrl: e.BCU_RATES_URL, cacheTtlSeconds: e.LOOKUP_CACHE_TTL_SECONDS, efacturaUrl: e.DGI_EFACTURA_URL, consultasUrl: e.DGI_CONSULTAS_URL, qrUrl: e.DGI_QR_URL,
      /** The in-process simulator's memory (keys, CAE, envelopes): a restart must meet the same DGI. */
      simulatorStatePath: path.join(dataDir, 'dgi-simulator', 'state.jsonl'),
      simulatorNice: e.DGI_SIMULATOR_NICE,
    },
    dgiSubmission: {
      environment: e.DGI_ENVIRONMENT,
      timeoutMs: e.DGI_TIMEOUT_MS,
      maxCfePerEnvelope: e.DGI_ENVELOPE_MAX_CFE,
      maxEnvelopeBytes: e.DGI_ENVELOPE_MAX_BYTES,
      pollDelayCapMs: e.DGI_POLL_DELAY_CAP_MS,
      wakeDebounceMs: e.DGI_WAKE_DEBOUNCE_MS,
      staleAfterMs: e.DGI_STALE_RECEIPT_SECONDS * 1000,
      send: { baseDelayMs: e.DGI_RETRY_BASE_MS, maxDelayMs: e.DGI_RETRY_MAX_MS, maxAttempts: e.DGI_SEND_MAX_ATTEMPTS },
      poll: { baseDelayMs: e.DGI_RETRY_BASE_MS, maxDelayMs: e.DGI_RETRY_MAX_MS, maxAttempts: e.DGI_POLL_MAX_ATTEMPTS },
    },
    cae: { trustAnchorsFile: e.CAE_TRUST_ANCHORS ? path.resolve(e.CAE_TRUST_ANCHORS) : undefined },
    certificates: { trustAnchorsPath: e.CERT_TRUST_ANCHORS ? path.resolve(e.CERT_TRUST_ANCHORS) : undefined },
    dailyReport: { hour: e.DAILY_REPORT_HOUR },
    receiverExchange: { maxAgeDays: e.RECEIVER_EXCHANGE_MAX_AGE_DAYS },
    issuerRegistry: { syncHour: e.ISSUER_REGISTRY_SYNC_HOUR, compressed: e.ISSUER_REGISTRY_COMPRESSED },
    taxBenefit: { decree206LastYear: e.TAX_BENEFIT_206_LAST_YEAR },
    receivedCfe: { maxAttachmentBytes: e.RECEIVED_MAX_ATTACHMENT_BYTES, pollBatch: e.RECEIVED_POLL_BATCH, idle: e.RECEIVED_MAILBOX_IDLE, responseDays: e.RECEIVED_RESPONSE_DAYS, verifyWorkers: e.RECEIVED_VERIFY_WORKERS ?? Math.max(1, os.availableParallelism() - 1) },
    usage: { dedupDays: e.USAGE_DEDUP_DAYS, rawRetentionDays: e.USAGE_RAW_RETENTION_DAYS, defaultGraceHours: e.USAGE_GRACE_HOURS },
    emission: { uiValue: e.UI_VALUE, sealWorkers: e.EMISSION_SEAL_WORKERS ?? Math.max(1, os.availableParallelism() - 1) },
    metrics: { token: e.METRICS_TOKEN },
    webhooks: { allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS, timeoutMs: e.WEBHOOK_TIMEOUT_MS, maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT, pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS },
  });
}

export type AppConfig = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

/** Entry points: a bad configuration prints its message and exits 1 (no stack trace). */
export function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
