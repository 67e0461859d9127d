/**
 * Each CFE of a received document on its own (BRIEF 8): E05 (CFEDGI.xsd), E04 (its XMLDSig, against
 * the envelope's certificate, or for a lone CFE the one in its own KeyInfo), that the company is its
 * receiver; and the fiscal data read from its XML. Pure and CPU-bound (~0.37 ms a CFE: signature ~0.23, fiscal data
 * ~0.14; bench/signature-micro.ts), so with `workers` > 0 a pool of worker threads verifies an envelope's CFEs in
 * slices on the other cores while the event loop goes on with the envelope, the database and HTTP; with 0 it runs inline.
 */
import { X509Certificate } from 'node:crypto';
import { certificateOf, verifyStandaloneSignature } from '../../platform/xml/standalone-signature.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { createWorkerPool, workerEntry } from '../../platform/workers/pool.js';
import type { EnvelopeCfe } from './received-cfe.envelope.js';
import type { CheckResult, Motive } from './received-cfe.tables.js';
import { fiscalDataOf, type FiscalData } from './received-cfe.view.js';

export interface CfeVerifyTask {
  xmls: string[];
  /** Base64 DER of the envelope's Caratula certificate; null for a lone CFE (its KeyInfo's is used). */
  certificate: string | null;
  companyRut: string;
  /**
   * The envelope's XSD (EnvioCFE_entreEmpresas.xsd) already validated every CFE as CFEDefType, the
   * type CFEDGI.xsd gives a lone CFE: validating each again would only repeat it.
   */
  xsdInEnvelope: boolean;
}

export interface CfeVerified {
  checks: CheckResult[];
  motivos: Motive[];
  data: FiscalData | undefined;
}

const E05 = 'No cumple validaciones de Formato comprobantes';

/** A lone CFE (uploaded without its envelope) is verified with the certificate in its own KeyInfo, if any. */
function keyInfoCertificate(xml: string): X509Certificate | undefined {
  const b64 = /<(?:\w+:)?X509Certificate>\s*([A-Za-z0-9+/=\s]+?)\s*<\/(?:\w+:)?X509Certificate>/.exec(xml)?.[1];
  try {
    return b64 ? certificateOf(b64.replace(/\s+/g, '')) : undefined;
  } catch {
    return undefined;
  }
}

function verifyOne(xml: string, cert: X509Certificate | null | undefined, task: CfeVerifyTask): CfeVerified {
  const out: CfeVerified = { checks: [], motivos: [], data: undefined };
  const be = (control: string, codigo: string, glosa: string, detalle: string) => {
    out.checks.push({ control, ok: false, codigo, detalle: detalle.slice(0, 500) });
    out.motivos.push({ codigo, glosa, detalle: detalle.slice(0, 500) });
  };
  const xsd = task.xsdInEnvelope ? ({ ok: true } as const) : validateXml('CFE', xml);
  if (xsd.ok) out.checks.push(task.xsdInEnvelope ? { control: 'xsd_cfe', ok: true, detalle: 'Validado con el XSD del sobre (CFEDefType).' } : { control: 'xsd_cfe', ok: true });
  else be('xsd_cfe', 'E05', E05, xsd.errors.slice(0, 3).join('; '));
  const key = cert === null ? undefined : cert ?? keyInfoCertificate(xml);
  const sig = key ? verifyStandaloneSignature(xml, key.publicKey)
    : cert === null ? { ok: false as const, reason: 'el certificado del sobre no se puede leer' }
    : { ok: false as const, reason: 'no hay certificado con que verificarlo: el CFE no trae X509Certificate y ningún sobre recibido del emisor trae el suyo' };
  if (sig.ok) out.checks.push({ control: 'firma', ok: true });
  else be('firma', 'E04', 'Firma electrónica no es válida', sig.reason);
  const doc = /<(?:\w+:)?DocRecep>\s*([^<]*?)\s*<\/(?:\w+:)?DocRecep>/.exec(xml)?.[1];
  if (doc === task.companyRut) out.checks.push({ control: 'receptor', ok: true });
  else be('receptor', 'E05', E05, `El receptor del CFE (${doc ?? 'ninguno'}) no es la empresa ${task.companyRut}.`);
  out.data = fiscalDataOf(xml);
  return out;
}

/** The work itself, the same inline and in a worker thread. Never throws. */
export function verifyCfes(task: CfeVerifyTask): CfeVerified[] {
  // null: the envelope's certificate does not parse (every signature is E04). The envelope's own check
  // (S03) refuses such an envelope; this is for a verification started before that check.
  let cert: X509Certificate | null | undefined;
  try {
    cert = task.certificate ? certificateOf(task.certificate) : undefined;
  } catch {
    cert = null;
  }
  return task.xmls.map((xml) => verifyOne(xml, cert, task));
}

export interface CfeVerifier {
  /**
   * Each CFE's checks, motives and fiscal data, as the results of consecutive slices of `xmls` in
   * order: with worker threads each slice is a task of its own, so the caller stores the first
   * slices while the others are still verified. Never rejects (each check reports its own failure).
   */
  check(xmls: string[], opts: Omit<CfeVerifyTask, 'xmls'>): Array<Promise<CfeVerified[]>>;
}

/**
 * CFEs per worker task: storing an envelope's first slices overlaps verifying the rest. Each slice
 * costs the database three statements (duplicates, rows, events): with 32 a slice PostgreSQL's CPU
 * per CFE was ~0.3 ms against ~0.25 with 64 and 125 (bench/intake.ts, shared machine).
 */
const SLICE = 64;

/** Adds each CFE's checks and motives to it; returns the fiscal data of each, in order. */
export function applyVerified(cfes: EnvelopeCfe[], results: CfeVerified[]): Array<FiscalData | undefined> {
  return results.map((r, i) => {
    cfes[i].checks.push(...r.checks);
    cfes[i].motivos.push(...r.motivos);
    return r.data;
  });
}

export function createCfeVerifier(opts: { workers: number }): CfeVerifier {
  const pool = opts.workers > 0
    ? createWorkerPool<CfeVerifyTask, CfeVerified[]>({ entry: workerEntry('./received-cfe.verify-worker.ts', import.meta.url), size: opts.workers, name: 'cfe-verify' })
    : undefined;
  return {
    check(xmls, o) {
      if (!pool || xmls.length < 8) return [Promise.resolve(verifyCfes({ ...o, xmls }))];
      // At least two slices per worker: the pool hands each to the least busy one, so a slower core takes fewer.
      const size = Math.ceil(xmls.length / Math.max(pool.size * 2, Math.ceil(xmls.length / SLICE)));
      const slices: Array<Promise<CfeVerified[]>> = [];
      for (let i = 0; i < xmls.length; i += size) {
        const task = { ...o, xmls: xmls.slice(i, i + size) };
        // verifyCfes does not throw (each check reports its own failure): a rejection is the pool's (a
        // worker died), and the slice is verified here rather than failing the mail's intake.
        slices.push(pool.run(task).catch(() => verifyCfes(task)));
      }
      return slices;
    },
  };
}
