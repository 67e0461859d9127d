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
 * Calls `onLine` with each complete line of `file` (UTF-8), read `chunkBytes` at a time, until it returns false.
 * The file is never held whole: a journal passes V8's longest string (~512 MB) at ~720,000 CFEs (~745 bytes each), and
 * `readFileSync` of it as text threw, so a simulator that had taken that many could not start again.
 */
function readLines(file: string, onLine: (line: string, lineNo: number) => boolean | void, chunkBytes: number): { completeBytes: number; totalBytes: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    let carry = Buffer.alloc(0);
    let offset = 0;
    let lineNo = 0;
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, chunkBytes, offset);
      if (read === 0) break;
      offset += read;
      // A line (or a multi-byte character) cut by the chunk's end is kept and completed by the next chunk.
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let start = 0;
      for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a, start)) {
        if (onLine(data.toString('utf8', start, end), ++lineNo) === false) return { completeBytes: offset - data.length + end + 1, totalBytes: fs.fstatSync(fd).size };
        start = end + 1;
      }
      carry = Buffer.from(data.subarray(start)); // a copy: `chunk` is read into again
    }
    return { completeBytes: offset - carry.length, totalBytes: offset };
  } finally {
    fs.closeSync(fd);
  }
}

const CHUNK_BYTES = 1 << 20;

function identityOf(file: string, line: string): SimulatorIdentity {
  const head = identitySchema.safeParse(parseLine(file, line, 1));
  if (!head.success) return fail(file, `line 1 is not a version ${FORMAT_VERSION} identity (${head.error.issues[0].path.join('.')}: ${head.error.issues[0].message})`);
  const { t: _t, v: _v, ...identity } = head.data;
  try {
    for (const pair of [identity.ca, identity.dgi]) {
      if (!new X509Certificate(pair.certPem).checkPrivateKey(createPrivateKey(pair.keyPem))) throw new Error('a key does not match its certificate');
    }
  } catch (error) {
    return fail(file, `line 1 keys: ${(error as Error).message}`);
  }
  return identity;
}

/**
 * Reads and checks the state file, handing each change to `onRecord` in order as it is read (none is kept
 * here: memory stays that of the applied state); `null` when there is no file yet. Any other problem
 * (unreadable, bad line, keys that do not load) throws `SimulatorStateError` naming the file: starting a fresh
 * DGI silently would reject, and void, every receipt numbered under the CAE the old one issued.
 * `identityOnly` stops after line 1.
 */
export function readSimulatorState(file: string, onRecord: (record: SimulatorRecord) => void = () => {}, opts: { chunkBytes?: number; identityOnly?: boolean } = {}): LoadedState | null {
  let identity: SimulatorIdentity | undefined;
  let bytes: { completeBytes: number; totalBytes: number };
  let applying = false;
  try {
    bytes = readLines(file, (line, lineNo) => {
      if (lineNo === 1) {
        identity = identityOf(file, line);
        return !opts.identityOnly;
      }
      const parsed = recordSchema.safeParse(parseLine(file, line, lineNo));
      if (!parsed.success) return fail(file, `line ${lineNo}: ${parsed.error.issues[0].path.join('.') || 't'}: ${parsed.error.issues[0].message}`);
      applying = true;
      onRecord(parsed.data as SimulatorRecord);
      applying = false;
    }, opts.chunkBytes ?? CHUNK_BYTES);
  } catch (error) {
    // The caller's own failure while applying a change is not the file's.
    if (applying || error instanceof SimulatorStateError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return fail(file, (error as Error).message);
  }
  if (!identity) return fail(file, 'the identity line is missing');
  return { identity, ...bytes };
}

export interface OpenedState {
  identity: SimulatorIdentity;
  /** Hands every change in the file to `apply`, in order; call it once, before the first `append`. */
  replay(apply: (record: SimulatorRecord) => void): void;
  append(record: SimulatorRecord): void;
  /** Closes the file the appends go to (reopened by the next append). */
  close(): void;
}

/** Opens `file` (creating it with `create()` when absent): its identity, a replay of its changes, an appender for new ones. */
export function openSimulatorState(file: string, create: () => SimulatorIdentity): OpenedState {
  const opened = readSimulatorState(file, undefined, { identityOnly: true });
  let identity: SimulatorIdentity;
  if (opened) identity = opened.identity;
  else {
    identity = create();
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
  }
  let fd: number | undefined;
  return {
    identity,
    replay(apply) {
      const loaded = readSimulatorState(file, apply)!;
      // Cut the torn line off, or the next append would glue onto it and corrupt both.
      if (loaded.totalBytes > loaded.completeBytes) fs.truncateSync(file, loaded.completeBytes);
    },
    // One descriptor for every append (appendFileSync opened and closed the file for each line: one per CFE received).
    append(record) {
      fd ??= fs.openSync(file, 'a');
      fs.writeFileSync(fd, JSON.stringify(record) + '\n');
    },
    close() {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
    },
  };
}
