/**
 * Received-CFE intake (issue 30 point 8): envelopes of 250 signed e-Facturas from another issuer,
 * each verified (envelope XSD, CFE XSD, XMLDSig, duplicates) and stored by the real pipeline on a real
 * database (events into the real outbox), one transaction per envelope as the mailbox poller runs it.
 * Prints CFE/s, CPU per CFE of node (this process and its verify workers) and of PostgreSQL (its own
 * server), how much of the cores other programs took meanwhile (a shared VM), and, measured in the
 * same run, the raw RSA-2048 verification rate of one core (the floor of signature checking).
 * Run: `npx tsx --v8-pool-size=1 bench/intake.ts` (the flag `npm start` and `npm run bench` run Node
 * with; without it V8's four helper threads add JIT and GC work), or `npm run bench`.
 */
import { createVerify, createSign, generateKeyPairSync } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { sql } from 'drizzle-orm';
import { connectDatabase } from '../src/platform/db/client.js';
import { createTestCa, issueTestCertificate } from '../src/platform/crypto/pki.js';
import { buildEnvioCfeEntreEmpresas, createSigningContext, formatTmstFirma, sampleCfe, signCfe } from '../src/modules/emission/index.js';
import { createEventsService } from '../src/modules/events/events.service.js';
import { createReceivedCfeService } from '../src/modules/received-cfe/received-cfe.service.js';
import type { Mailer } from '../src/platform/mailer.js';
import { machineSnapshot, postgresServerCpu } from './cpu.js';
import { openBenchDatabase } from './support.js';

const ISSUER = '219999830019';
const RECEIVER = '214844360018';
const PER_ENVELOPE = 250;

function rawRsaVerifyPerSec(): number {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.alloc(300, 7);
  const sig = createSign('sha256').update(data).sign(privateKey);
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < 1000) {
    createVerify('sha256').update(data).verify(publicKey, sig);
    n += 1;
  }
  return Math.round(n / ((performance.now() - start) / 1000));
}

export async function runIntakeBench(options: { envelopes?: number; workers?: number } = {}): Promise<Record<string, number>> {
  const envelopes = options.envelopes ?? Number(process.env.INTAKE_ENVELOPES ?? 8);
  // As the service runs by default (RECEIVED_VERIFY_WORKERS): cores − 1 worker threads verify the CFEs.
  const workers = options.workers ?? Number(process.env.INTAKE_WORKERS ?? Math.max(1, availableParallelism() - 1));
  const ca = createTestCa();
  const cert = issueTestCertificate(ca, { rut: ISSUER, name: 'Empresa Demo S.A.' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  const certB64 = ctx.certificate.der.toString('base64');
  const docs: Buffer[] = [];
  for (let e = 0; e < envelopes; e += 1) {
    const items = Array.from({ length: PER_ENVELOPE }, (_, i) => ({ cfe: signCfe(sampleCfe(111, { Nro: e * PER_ENVELOPE + i + 1, lines: 3 }), ctx).xml, adenda: `OC ${i}` }));
    docs.push(Buffer.from(buildEnvioCfeEntreEmpresas({ rutReceptor: RECEIVER, rucEmisor: ISSUER, idEmisor: e + 1, fecha: formatTmstFirma(new Date()), certificateDerBase64: certB64, items }), 'utf8'));
  }
  const bench = await openBenchDatabase('cfe_bench_intake');
  const database = connectDatabase(bench.url, { max: 4 });
  try {
    const [company] = (await database.db.execute(sql`insert into companies (rut, razon_social) values (${RECEIVER}, 'Receptor SA') returning id`)).rows as Array<{ id: number }>;
    const service = createReceivedCfeService({
      // The real outbox: each CFE's CfeRecibido.Registrado is written in the envelope's transaction, as in the service.
      db: database.db, mailer: undefined as unknown as Mailer, events: createEventsService({ db: database.db }),
      rutOf: async () => RECEIVER, settingsOf: async () => ({}), signingContext: async () => undefined, defaultResponseDays: 30, verifyWorkers: workers, companyTransport: async () => undefined,
    });
    // Warm-up: one envelope of another issuer number range, not counted.
    const warm = Buffer.from(docs[0].toString('utf8').replace(/<DGICFE:Idemisor>1</, '<DGICFE:Idemisor>999999<'));
    await database.db.transaction((tx) => service.intakeIn(tx, company.id, warm, { canal: 'correo', emailRespuesta: null }));
    await database.db.execute(sql`delete from received_cfe_history; delete from received_cfes; delete from received_answers; delete from received_envelopes`);
    const dbName = new URL(bench.url).pathname.slice(1);
    const pg0 = postgresServerCpu(dbName);
    const m0 = machineSnapshot();
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    let pending = 0;
    for (const doc of docs) {
      const r = await database.db.transaction((tx) => service.intakeIn(tx, company.id, doc, { canal: 'correo', emailRespuesta: null }));
      pending += r.cfes.filter((c) => c.estado === 'pendiente').length;
    }
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const pgMs = postgresServerCpu(dbName) - pg0;
    const m1 = machineSnapshot();
    // The machine's busy CPU besides this bench (other programs on a shared VM): 0 = the cores were ours.
    const othersMs = Math.max(0, m1.busy - m0.busy - (cpu.user + cpu.system) / 1000 - pgMs);
    const total = envelopes * PER_ENVELOPE;
    if (pending !== total) throw new Error(`expected ${total} CFE registered as pendiente, got ${pending}`);
    const results = {
      intakeCfePerSec: Math.round(total / seconds),
      intakeCpuMsPerCfe: Number(((cpu.user + cpu.system) / 1000 / total).toFixed(3)),
      intakePostgresCpuMsPerCfe: Number((pgMs / total).toFixed(3)),
      intakeOtherProgramsPctOfCores: Math.round((othersMs / (seconds * 1000 * availableParallelism())) * 100),
      intakeEnvelopes: envelopes,
      intakeVerifyWorkers: workers,
      rawRsa2048VerifyPerSecOneCore: rawRsaVerifyPerSec(),
    };
    console.log(`intake: ${total} CFE in ${envelopes} envelopes of ${PER_ENVELOPE}: ${results.intakeCfePerSec} CFE/s, ${results.intakeCpuMsPerCfe} ms CPU per CFE in this process and its ${workers} verify workers + ${results.intakePostgresCpuMsPerCfe} ms in PostgreSQL; raw RSA-2048 verify ${results.rawRsa2048VerifyPerSecOneCore}/s on one core; other programs took ${results.intakeOtherProgramsPctOfCores} % of the cores meanwhile`);
    return results;
  } finally {
    await database.close();
    await bench.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runIntakeBench();
  process.exit(0);
}
