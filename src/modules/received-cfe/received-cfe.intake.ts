/**
 * The one intake pipeline of received CFEs (issue 30 point 2): the mailbox poller, the upload
 * (`POST /api/v1/cferecibido/importar`) and mail between two companies of this service all end here.
 *
 * One transaction per document, under the company's counter lock (so `secuencia` follows commit
 * order): the raw bytes, the envelope verdict (ACKSobre AS/BS), each CFE with its checks and state,
 * history rows, `CfeRecibido.Registrado` events, and our signed answers with their mail jobs.
 * Idempotent: the same bytes again return what was stored (nothing new is answered); another
 * envelope with an Idemisor already accepted is answered BS S20; a CFE already received (issuer,
 * type, serie, number) is stored as `duplicado` and answered BE E02 (BRIEF 8).
 */
import { createHash } from 'node:crypto';
import type { DbOrTx } from '../../platform/db/client.js';
import { createSigningContext, formatTmstFirma, type SigningContext } from '../emission/index.js';
import { answerFileName, buildAckCfe, buildAckSobre, CFE_MOTIVES, signAnswer, type CfeAnswer } from './received-cfe.answers.js';
import { caratulaCertificateFor, decodeXmlBytes, hasDoctype, readEnvelope, SOBRE_GLOSAS, type EnvelopeCfe } from './received-cfe.envelope.js';
import { applyVerified, type CfeVerified, type CfeVerifier } from './received-cfe.verify.js';
import { receivedErrors as E } from './received-cfe.errors.js';
import * as repo from './received-cfe.repository.js';
import type { Motive, ReceivedCfeRow, ReceivedCfeState, ReceivedEnvelopeRow, receivedCfes, receivedEnvelopes } from './received-cfe.tables.js';
import { receivedCfeView, type FiscalData, type ReceivedCfeView } from './received-cfe.view.js';

export interface IntakeSource {
  canal: 'correo' | 'importacion';
  /** Where our answers go; null = stored for download only. */
  emailRespuesta: string | null;
  fileName?: string | null;
  mailUid?: string | null;
}

export interface IntakePorts {
  signingContext(companyId: number): Promise<SigningContext | undefined>;
  /** Days the company gives itself to decide (company setting), for vencimientoRespuesta. */
  responseDays(companyId: number): Promise<number>;
  recordEvents(tx: DbOrTx, events: Array<{ type: 'CfeRecibido.Registrado'; companyId: number; resource: Record<string, unknown> }>): Promise<void>;
  /**
   * Whether the issuer's certificate chains to an accredited CA (certificates module's trust store).
   * `enforce` (DGI_MODE=real): an untrusted one is S03; otherwise the finding is only recorded.
   */
  issuerTrust?: { enforce: boolean; check(certificatePem: string, at: Date): Promise<string[]> };
  /** Queues the e-mail of a stored answer (in the same transaction). */
  queueAnswerMail(tx: DbOrTx, answerId: number): Promise<void>;
  /** Each CFE's own checks and fiscal data (inline or in worker threads). */
  verifier: CfeVerifier;
}

export interface IntakeResult {
  sobre: { id: number; estado: 'AS' | 'BS'; motivos: Motive[]; repetido: boolean; sinSobre: boolean } | null;
  cfes: ReturnType<typeof receivedCfeView>[];
}

const addDays = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const today = () => new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10); // Uruguay, UTC−3

/** Signs and stores one answer (IDRespuesta = its id); queues its mail when there is an address. */
export async function storeAnswer(
  tx: DbOrTx, ports: Pick<IntakePorts, 'signingContext' | 'queueAnswerMail'>, env: ReceivedEnvelopeRow, companyRut: string,
  build: (id: number, nomArch: string, tmst: string) => { tipo: 'ACKSobre' | 'ACKCFE'; xml: string },
): Promise<number> {
  const id = await repo.nextAnswerId(tx);
  const tmst = formatTmstFirma(new Date());
  const envName = env.fileName && env.fileName.length <= 40 ? env.fileName : `Sob_${env.rutEmisor ?? '000000000000'}_${(env.fecha ?? tmst).slice(0, 10).replaceAll('-', '')}_${env.idemisor ?? 0}.xml`;
  const built = build(id, envName, tmst);
  const company = await ports.signingContext(env.companyId);
  // The issuer verifies a standalone answer, so the certificate travels in KeyInfo (as in CFEs_Anulados notices).
  const ctx = company && createSigningContext({ privateKey: company.privateKey, certificate: company.certificate.der, hash: company.hash, includeCertificate: true });
  const fileName = answerFileName(built.tipo, id, env.rutEmisor ?? '000000000000', env.fecha ?? tmst, env.idemisor ?? 0);
  const estado = !ctx ? 'sin_certificado' : env.emailRespuesta ? 'pendiente' : 'sin_destino';
  await repo.insertAnswer(tx, { id, companyId: env.companyId, envelopeId: env.id, tipo: built.tipo, fileName, xml: ctx ? signAnswer(built.xml, ctx) : built.xml, email: env.emailRespuesta, estado });
  if (estado === 'pendiente') await ports.queueAnswerMail(tx, id);
  void companyRut;
  return id;
}

/**
 * The same bytes again, now naming an address (issue 42 point 3): our stored answers go there
 * unless they already went (or are queued) to it, and later decisions' ACKCFE follow when the
 * envelope had no address. Unsigned ones (no certificate) are not mailed.
 */
async function remailAnswers(tx: DbOrTx, ports: Pick<IntakePorts, 'queueAnswerMail'>, env: ReceivedEnvelopeRow, email: string): Promise<void> {
  if (!env.emailRespuesta) await repo.setEnvelopeEmail(tx, env.id, email);
  for (const a of await repo.answersOfEnvelope(tx, env.id)) {
    if (a.estado === 'sin_certificado') continue;
    if ((a.estado === 'enviado' || a.estado === 'pendiente') && a.email?.toLowerCase() === email.toLowerCase()) continue;
    await repo.updateAnswer(tx, a.id, { email, estado: 'pendiente', intentos: 0, ultimoError: null });
    await ports.queueAnswerMail(tx, a.id);
  }
}

export function cfeAnswerOf(row: ReceivedCfeRow, estado: 'AE' | 'BE', motivos: Motive[]): CfeAnswer {
  return { nroOrdinal: row.nroOrdinal ?? 1, tipoCfe: row.tipoCfe, serie: row.serie, nroCfe: row.numero, fechaCfe: row.fechaEmision, tmstCfe: row.tmstFirma, estado, motivos };
}

export function caratulaOf(env: ReceivedEnvelopeRow, companyRut: string, id: number, nomArch: string, tmst: string) {
  return { rucReceptor: companyRut, rucEmisor: env.rutEmisor ?? '000000000000', idRespuesta: id, nomArch, fecHRecibido: formatTmstFirma(env.recibidoEn), idEmisor: env.idemisor ?? 0, idReceptor: env.id, tmst };
}

/**
 * The envelope row a lone uploaded CFE stands under (sinSobre). DGI's answers name an envelope: no
 * ACKSobre is made (none was received), but each decision's ACKCFE is, so the issuer can learn a
 * rejection with its motive. Its Caratula says IDEmisor 0 (the issuer gave no Idemisor; IDRecEmiType
 * needs a number) and NomArch the uploaded file's name; issuers match the answer per CFE by type,
 * serie and number (as this service's receiver-exchange does). It is e-mailed to emailRespuesta when
 * the upload names one, else kept for download (GET /api/v1/cferecibido/respuesta/{id}).
 */
function loneCfeEnvelope(
  companyId: number, companyRut: string, k: { rutEmisor: string; tipoCfe: number; serie: string; numero: number }, bytes: Buffer, sha256: string, source: IntakeSource,
): typeof receivedEnvelopes.$inferInsert {
  return {
    companyId, canal: source.canal, rutEmisor: k.rutEmisor, idemisor: null, rutReceptor: companyRut, fecha: null, cantCfe: 1,
    fileName: source.fileName ?? `CFE_${k.rutEmisor}_${k.tipoCfe}_${k.serie}${k.numero}.xml`, bytes, sha256, estado: 'AS', motivos: [],
    verificaciones: [{ control: 'sin_sobre', ok: true, detalle: 'CFE subido sin su sobre: no hay ACKSobre; cada decisión se responde con un ACKCFE (IDEmisor 0).' }],
    emailRespuesta: source.emailRespuesta, mailUid: null, sinSobre: true,
  };
}

export async function intake(tx: DbOrTx, ports: IntakePorts, companyId: number, companyRut: string, bytes: Buffer, source: IntakeSource): Promise<IntakeResult> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let last = await repo.lockCounter(tx, companyId);
  const existing = await repo.envelopeBySha(tx, companyId, sha256);
  if (existing) {
    if (source.emailRespuesta) await remailAnswers(tx, ports, existing, source.emailRespuesta);
    const rows = await repo.cfesOfEnvelope(tx, existing.id);
    return { sobre: { id: existing.id, estado: existing.estado, motivos: existing.motivos, repetido: true, sinSobre: existing.sinSobre }, cfes: rows.map((r) => receivedCfeView(r, existing)) };
  }
  const text = decodeXmlBytes(bytes);
  const isSingleCfe = !hasDoctype(text) && /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[\w.-]+:)?CFE[\s>]/.test(text);
  let cfes: EnvelopeCfe[];
  let env: ReceivedEnvelopeRow | undefined;
  let certificate: string | null = null;
  // An envelope's CFEs are verified (worker threads) from the moment they are cut from its text, while
  // the envelope is parsed and checked, and its row and ACKSobre written, here.
  let early: { xmls: string[]; certificate: string | null; results: Array<Promise<CfeVerified[]>> } | undefined;
  if (isSingleCfe) {
    // A lone signed CFE uploaded by a user: no envelope (see loneCfeEnvelope for its answers).
    cfes = [{ nroOrdinal: 1, xml: text, adenda: null, checks: [], motivos: [] }];
    const rut = /<(?:\w+:)?RUCEmisor>\s*(\d{12})\s*</.exec(text)?.[1];
    if (rut && !/<(?:\w+:)?X509Certificate>/.test(text)) {
      certificate = caratulaCertificateFor(text, await repo.acceptedEnvelopeBytes(tx, companyId, rut)) ?? null;
      cfes[0].checks.push(certificate
        ? { control: 'certificado', ok: true, detalle: 'El certificado de un sobre anterior del emisor (X509IssuerSerial del CFE).' }
        : { control: 'certificado', ok: false, detalle: 'El CFE nombra su certificado por X509IssuerSerial y ningún sobre recibido del emisor lo trae: suba el sobre.' });
    }
  } else {
    const reading = readEnvelope(bytes, companyRut, (cut) => {
      const xmls = cut.cfes.filter((x) => x !== null);
      if (xmls.length === cut.cfes.length) early = { xmls, certificate: cut.certificate, results: ports.verifier.check(xmls, { certificate: cut.certificate, companyRut, xsdInEnvelope: true }) };
    });
    if (reading.estado === 'AS' && reading.certificate && ports.issuerTrust) {
      const pem = `-----BEGIN CERTIFICATE-----\n${reading.certificate.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
      const problems = await ports.issuerTrust.check(pem, reading.fecha ? new Date(reading.fecha) : new Date());
      if (problems.length && ports.issuerTrust.enforce) {
        reading.estado = 'BS';
        reading.motivos.push({ codigo: 'S03', glosa: SOBRE_GLOSAS.S03, detalle: problems.join(' ').slice(0, 500) });
        reading.checks.push({ control: 'confianza_certificado', ok: false, codigo: 'S03', detalle: problems.join(' ').slice(0, 500) });
        reading.cfes = [];
      } else reading.checks.push(problems.length ? { control: 'confianza_certificado', ok: false, detalle: `Solo advertencia (DGI simulado): ${problems.join(' ')}`.slice(0, 500) } : { control: 'confianza_certificado', ok: true });
    }
    if (reading.estado === 'AS' && reading.rutEmisor && reading.idemisor !== null && (await repo.acceptedEnvelopeExists(tx, companyId, reading.rutEmisor, reading.idemisor))) {
      reading.estado = 'BS';
      reading.motivos.push({ codigo: 'S20', glosa: SOBRE_GLOSAS.S20, detalle: `El sobre ${reading.idemisor} del RUT ${reading.rutEmisor} ya fue recibido.` });
      reading.checks.push({ control: 'sobre_repetido', ok: false, codigo: 'S20' });
      reading.cfes = [];
    }
    env = await repo.insertEnvelope(tx, {
      companyId, canal: source.canal, rutEmisor: reading.rutEmisor, idemisor: reading.idemisor, rutReceptor: reading.rutReceptor, fecha: reading.fecha,
      cantCfe: reading.cantCfe, fileName: source.fileName ?? null, bytes, sha256, estado: reading.estado, motivos: reading.motivos,
      verificaciones: reading.checks, emailRespuesta: source.emailRespuesta, mailUid: source.mailUid ?? null,
    });
    cfes = reading.cfes;
    certificate = reading.certificate;
    const envelope = env;
    await storeAnswer(tx, ports, envelope, companyRut, (id, nomArch, tmst) => ({
      tipo: 'ACKSobre',
      xml: buildAckSobre({ ...caratulaOf(envelope, companyRut, id, nomArch, tmst), cantidadCfe: Math.min(reading.cantCfe ?? 0, 999) }, reading.estado, reading.motivos),
    }));
  }

  const days = await ports.responseDays(companyId);
  // What was started at the cut counts only for the very CFEs and certificate the envelope's checks
  // kept (a refused envelope keeps none, or those before the refusing one).
  const same = !!env && !!early && early.certificate === certificate && early.xmls.length === cfes.length && cfes.every((c, i) => c.xml === early!.xmls[i]);
  if (early && !same) await Promise.all(early.results);
  const slices = same ? early!.results : ports.verifier.check(cfes.map((c) => c.xml), { certificate, companyRut, xsdInEnvelope: !!env });
  const identity = (d: FiscalData | undefined) =>
    d?.rutEmisor && d.tipoCfe !== null && d.serie && d.numero !== null ? { rutEmisor: d.rutEmisor, tipoCfe: d.tipoCfe, serie: d.serie, numero: d.numero } : undefined;
  const known = new Set<string>();
  const rows: ReceivedCfeRow[] = [];
  const views: ReceivedCfeView[] = [];
  // Slice by slice, in order, as the verification hands them over: each is stored while the next ones
  // are still being verified. Same rows, secuencia, states and events as storing the envelope at once.
  for (const slice of slices) {
    const part = cfes.slice(rows.length, rows.length + (await slice).length);
    const read = applyVerified(part, await slice).map((data, i) => ({ c: part[i], data }));
    for (const k of await repo.liveIdentities(tx, companyId, read.flatMap(({ c, data }) => (c.motivos.length ? [] : [identity(data)].filter((x) => x !== undefined))))) known.add(k);
    const values: (typeof receivedCfes.$inferInsert)[] = [];
    for (const { c, data } of read) {
      if (!data && !c.motivos.length) c.motivos.push({ codigo: 'E05', glosa: CFE_MOTIVES.E05, detalle: 'El CFE no se pudo leer.' });
      let estado: ReceivedCfeState = c.motivos.length ? 'rechazado_formato' : 'pendiente';
      const k = identity(data);
      if (estado === 'pendiente' && k) {
        const key = `${k.rutEmisor}/${k.tipoCfe}/${k.serie}/${k.numero}`;
        // Known before this envelope, or earlier in it: DGI's E02 (BRIEF 8).
        if (known.has(key)) {
          estado = 'duplicado';
          c.motivos.push({ codigo: 'E02', glosa: CFE_MOTIVES.E02, detalle: `El CFE ${k.tipoCfe} ${k.serie}-${k.numero} del RUT ${k.rutEmisor} ya fue recibido.` });
          c.checks.push({ control: 'duplicado', ok: false, codigo: 'E02' });
        } else c.checks.push({ control: 'duplicado', ok: true });
        known.add(key);
      }
      last += 1;
      values.push({
        companyId, secuencia: last, envelopeId: env?.id ?? null, nroOrdinal: c.nroOrdinal, canal: source.canal,
        rutEmisor: data?.rutEmisor ?? null, razonSocialEmisor: data?.razonSocialEmisor ?? null, tipoCfe: data?.tipoCfe ?? null, serie: data?.serie?.slice(0, 2) ?? null,
        numero: data?.numero ?? null, fechaEmision: data?.fechaEmision ?? null, tmstFirma: data?.tmstFirma ?? null, moneda: data?.moneda?.slice(0, 3) ?? null,
        tipoCambio: data?.tipoCambio ?? null, mntTotal: data?.mntTotal ?? null, mntPagar: data?.mntPagar ?? null, datos: data?.datos ?? null,
        adenda: c.adenda, xml: c.xml, verificaciones: c.checks, estado, motivos: c.motivos,
        vencimientoRespuesta: estado === 'pendiente' ? addDays(today(), days) : null,
      });
    }
    if (isSingleCfe) {
      // Nothing a user can act on: an upload that fails the format checks, or repeats a CFE the company
      // has, is refused outright (no row, no E02 to an issuer who sent nothing twice).
      if (values[0].estado === 'rechazado_formato') {
        throw E.DOCUMENTO_RECIBIDO_INVALIDO(`El CFE no pasa los controles de formato: ${cfes[0].motivos.map((m) => `${m.codigo} ${m.detalle ?? m.glosa}`).join('; ')}`, { motivos: cfes[0].motivos });
      }
      const k = identity(read[0].data);
      if (!k) throw E.DOCUMENTO_RECIBIDO_INVALIDO('El CFE no trae su identidad legible (RUCEmisor, TipoCFE, Serie, Nro).');
      if (values[0].estado === 'duplicado') throw E.CFE_RECIBIDO_YA_REGISTRADO(undefined, { idCfeRecibido: await repo.liveCfeId(tx, companyId, k) ?? null });
      env = await repo.insertEnvelope(tx, loneCfeEnvelope(companyId, companyRut, k, bytes, sha256, source));
      values[0].envelopeId = env.id;
    }
    const stored = await repo.insertCfes(tx, values, `Recibido por ${source.canal}`);
    const shown = stored.map((r) => receivedCfeView(r, env));
    await ports.recordEvents(tx, shown.map((v) => ({ type: 'CfeRecibido.Registrado' as const, companyId, resource: v })));
    rows.push(...stored);
    views.push(...shown);
  }
  await repo.setCounter(tx, companyId, last);
  // Format rejections and duplicates are answered at once (BE); the rest waits for the company's decision.
  const refused = rows.filter((r) => r.estado !== 'pendiente');
  if (env && refused.length) {
    const envelope = env;
    const answerId = await storeAnswer(tx, ports, envelope, companyRut, (id, nomArch, tmst) => ({
      tipo: 'ACKCFE',
      xml: buildAckCfe({ ...caratulaOf(envelope, companyRut, id, nomArch, tmst), cantEnSobre: envelope.cantCfe ?? rows.length }, refused.map((r) => cfeAnswerOf(r, 'BE', r.motivos))),
    }));
    await repo.setAnswer(tx, refused.map((r) => r.id), answerId);
  }
  if (!isSingleCfe && !env) throw new Error('unreachable');
  return { sobre: env ? { id: env.id, estado: env.estado, motivos: env.motivos, repetido: false, sinSobre: env.sinSobre } : null, cfes: views };
}
