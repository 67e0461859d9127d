/**
 * The simulated DGI's memory on disk, so that a later process on the same data directory talks to
 * the same "DGI": its CA and signing keys, the CAE it authorised, the envelopes it received (and
 * their answers), daily-report sequences, RUT and rate overrides. Without it a restart turned every
 * receipt numbered under an earlier CAE into E09 and voided its number.
 *
 * Format: JSON Lines. Line 1 is the identity, written once to a temporary file, fsynced and renamed
 * into place (a half-created file never exists). Every later change is one appended line, written
 * before the change takes effect and before the answer leaves. A journal and not a snapshot: the
 * cost of a change stays the size of the change, not of everything DGI has ever received, which
 * matters when the in-process simulator takes thousands of receipts. Appends are not fsynced: the
 * file must survive the process, not the machine.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RutInfo } from '../dgi.client.ts';
import { createTestCa, issueTestCertificate, type TestCa } from '../../../platform/crypto/test-ca.js';
import type { EfacturaRecord } from './efactura-service.ts';
import type { RecibidoRecord } from './recibidos-service.ts';

const FORMAT_VERSION = 1;

export interface SimulatorIdentity {
  rucDgi: string;
  ca: TestCa;
  /** The "DGI" certificate that signs ACKs and CAE files. */
  dgi: { keyPem: string; certPem: string };
}

export type SimulatorRecord =
  | EfacturaRecord
  | { t: 'rut'; record: RutInfo }
  | { t: 'rate'; code: number; date: string; rate: string | null }
  | RecibidoRecord;

export interface LoadedState {
  identity: SimulatorIdentity;
  records: SimulatorRecord[];
  /** Bytes up to the last complete line; a torn last line is an append whose answer never left. */
  completeBytes: number;
  totalBytes: number;
}

export class SimulatorStateError extends Error {}

export function newIdentity(rucDgi: string): SimulatorIdentity {
  const ca = createTestCa({ name: 'Simulador DGI - CA de prueba' });
  const dgi = issueTestCertificate(ca, { rut: rucDgi, name: 'DGI-RUC PRUEBA CEDE' });
  return { rucDgi, ca, dgi: { keyPem: dgi.keyPem, certPem: dgi.certPem } };
}

const pem = z.string().min(1);
const identitySchema = z.object({
  t: z.literal('identity'),
  v: z.literal(FORMAT_VERSION),
  rucDgi: z.string().regex(/^\d{12}$/),
  ca: z.object({ keyPem: pem, certPem: pem, name: z.string() }),
  dgi: z.object({ keyPem: pem, certPem: pem }),
});

// Deep shapes (ACK results, RUT records) are the simulator's own output: checked at the top level
// only, which catches a truncated or hand-edited line without restating every type here.
const recordSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('ids'), upTo: z.number().int().positive() }),
  z.object({
    t: z.literal('cae'),
    range: z.object({ rucEmisor: z.string(), tipoCfe: z.string(), serie: z.string(), desde: z.number(), hasta: z.number(), fechaVencimiento: z.string(), especial: z.string().optional(), NA: z.string(), autorizadoEn: z.string().optional() }),
  }),
  z.object({
    t: z.literal('envelope'),
    id: z.string().regex(/^\d+$/),
    key: z.string(),
    seen: z.array(z.string()),
    // What DGI keeps of each answered CFE (content-rules.ts CfeFacts); absent in files written before issue 47.
    facts: z.record(z.string(), z.object({ estado: z.enum(['AE', 'BE', 'CE']), motivo: z.string().optional(), fchEmis: z.string(), fechaFirma: z.string(), moneda: z.string(), tpoCambio: z.string().optional(), mntTotal: z.string(), mntPagar: z.string(), sobreTopeUI: z.boolean().optional() })).optional(),
    envelope: z.object({ caratula: z.record(z.string(), z.unknown()), token: z.string(), readyAt: z.number(), results: z.array(z.record(z.string(), z.unknown())) }),
  }),
  z.object({ t: z.literal('report'), key: z.string(), seq: z.number().int().positive() }),
  z.object({ t: z.literal('rut'), record: z.object({ RUT: z.string() }).passthrough() }),
  z.object({ t: z.literal('rate'), code: z.number().int(), date: z.string(), rate: z.string().nullable() }),
  z.object({ t: z.literal('recibido'), cfe: z.object({ rucEmisor: z.string(), rucReceptor: z.string(), tipoCfe: z.string(), serie: z.string(), nro: z.string() }).passthrough() }),
]);

function fail(file: string, detail: string): never {
  throw new SimulatorStateError(
    `DGI simulator state file ${file} cannot be used: ${detail}. It holds the simulated DGI's keys and the CAE, envelopes ` +
      `and reports it knows; move it aside only if you accept that receipts issued under it will be rejected (E09) by a new one.`,
  );
}

function parseLine(file: string, line: string, lineNo: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    return fail(file, `line ${lineNo} is not JSON (${(error as Error).message})`);
  }
}

/**
 * Reads and checks the state file; `null` when there is none yet. Any other problem (unreadable,
 * bad line, keys that do not load) throws `SimulatorStateError` naming the file: starting a fresh
 * DGI silently would reject, and void, every receipt numbered under the CAE the old one issued.
 */
export function readSimulatorState(file: string): LoadedState | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return fail(file, (error as Error).message);
  }
  const end = text.lastIndexOf('\n') + 1;
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  if (lines.length === 0) return fail(file, 'the identity line is missing');
  const head = identitySchema.safeParse(parseLine(file, lines[0], 1));
  if (!head.success) return fail(file, `line 1 is not a version ${FORMAT_VERSION} identity (${head.error.issues[0].path.join('.')}: ${head.error.issues[0].message})`);
  const { t: _t, v: _v, ...identity } = head.data;
  try {
    for (const pair of [identity.ca, identity.dgi]) {
      if (!new X509Certificate(pair.certPem).checkPrivateKey(createPrivateKey(pair.keyPem))) throw new Error('a key does not match its certificate');
    }
  } catch (error) {
    return fail(file, `line 1 keys: ${(error as Error).message}`);
  }
  const records = lines.slice(1).map((line, i) => {
    const parsed = recordSchema.safeParse(parseLine(file, line, i + 2));
    if (!parsed.success) return fail(file, `line ${i + 2}: ${parsed.error.issues[0].path.join('.') || 't'}: ${parsed.error.issues[0].message}`);
    return parsed.data as SimulatorRecord;
  });
  return { identity, records, completeBytes: Buffer.byteLength(text.slice(0, end)), totalBytes: Buffer.byteLength(text) };
}

export interface OpenedState {
  identity: SimulatorIdentity;
  records: SimulatorRecord[];
  append(record: SimulatorRecord): void;
}

/** Loads `file` (creating it with `create()` when absent) and returns an appender for changes. */
export function openSimulatorState(file: string, create: () => SimulatorIdentity): OpenedState {
  let loaded = readSimulatorState(file);
  if (!loaded) {
    const identity = create();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    const fd = fs.openSync(temp, 'w', 0o600); // holds private keys
    try {
      fs.writeSync(fd, JSON.stringify({ t: 'identity', v: FORMAT_VERSION, ...identity }) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
    loaded = { identity, records: [], completeBytes: 0, totalBytes: 0 };
  } else if (loaded.totalBytes > loaded.completeBytes) {
    // Cut the torn line off, or the next append would glue onto it and corrupt both.
    fs.truncateSync(file, loaded.completeBytes);
  }
  return {
    identity: loaded.identity,
    records: loaded.records,
    append: (record) => fs.appendFileSync(file, JSON.stringify(record) + '\n'),
  };
}
