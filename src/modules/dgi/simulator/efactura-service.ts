/**
 * Simulated WS_eFactura (BRIEF §5-6, §9; FSOB v05; FMR v19; FREP v13.2): envelope checks S01-S08,
 * per-CFE results after `Fechahora`, daily report AR/BR with R02-R06. Answers are DGI-shaped ACKs,
 * signed with the simulator's key (rsa-sha1, like DGI's own).
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { XmlDocument, XmlElement } from '../../../platform/xml/libxml2.ts';
import { checkChain } from '../../../platform/crypto/chain.ts';
import { validateDocument, validateXml } from '../../../platform/xml/xsd.ts';
import type { Motivo } from '../dgi.client.ts';
import { escapeXml, soapEnvelope, soapFaultXml } from '../dgi.soap.ts';
import { ackCfeXml, ackRepDiarioXml, ackSobreXml, motivo, type CaratulaValues, type CfeResult } from './ack-xml.ts';
import { cfeKey, checkCfe, summarize, type CaeRange, type CfeSummary, type RejectRule } from './cfe-checks.ts';
import { certificateOf, parseXmlText, rootChildSpans, verifyStandaloneSignature, type ElementSpan } from '../../../platform/xml/standalone-signature.ts';
import { rucFromCertificate, signAnswer } from './xmldsig.ts';
import { Decimal } from 'decimal.js';
import { factsOf, readCfeContent, type CfeContent, type CfeFacts } from './content-rules.ts';
import { checkReport } from './report-rules.ts';

const CFE_NS = 'http://cfe.dgi.gub.uy';
const MAX_ENVELOPE_BYTES = 2 * 1024 * 1024; // S07, FSOB

export interface SoapReply {
  status: number;
  body: string;
}

export interface StoredEnvelope {
  caratula: CaratulaValues & { CantenSobre: number };
  token: string;
  readyAt: number;
  results: CfeResult[];
}

/** A change to what DGI knows, journaled (simulator/state.ts) before it takes effect. */
export type EfacturaRecord =
  | { t: 'ids'; upTo: number }
  | { t: 'cae'; range: CaeRange }
  | { t: 'envelope'; id: string; key: string; envelope: StoredEnvelope; seen: string[]; facts?: Record<string, CfeFacts> }
  | { t: 'report'; key: string; seq: number };

// Ids (IDReceptor, IDRespuesta) are reserved in blocks, like a PostgreSQL sequence's cache: one
// journal line per block, and a restarted simulator continues after the block, never repeating one.
const ID_BLOCK = 1000;

/** Uruguay has had a fixed -03:00 offset since 2015. */
export function uyDateTime(ms = Date.now()): string {
  return `${new Date(ms - 3 * 3600_000).toISOString().slice(0, 19)}-03:00`;
}

export function uyDate(ms = Date.now()): string {
  return uyDateTime(ms).slice(0, 10);
}

export class EfacturaService {
  readonly caes: CaeRange[] = [];
  readonly rejectRules: RejectRule[] = [];
  /** Envelope-level rejections scripted by tests (S-codes), consumed one per received envelope. */
  readonly envelopeRejects: string[][] = [];
  ackDelayMs = 0;
  checkCaeRanges = true;
  /** Judge each CFE's content and each daily report like DGI's Testing (content-rules.ts, report-rules.ts). */
  checkContent = true;
  /** 5,000 UI in pesos (BRIEF 1); the simulator's UI value is set by startDgiSimulator. */
  uiThresholdUyu = new Decimal(5000).times('6.4');
  /** The fiscal rate of a foreign currency for a FchEmis (BRIEF 9), from the simulated BCU; set by startDgiSimulator. */
  fiscalRate: (moneda: string, fchEmis: string) => string | null = () => null;
  /** CAs whose certificates this DGI trusts (E04 otherwise); set by startDgiSimulator. Empty = no trust check. */
  trustAnchors: X509Certificate[] = [];
  /** Answer a resent Idemisor with fault 108 instead of ACKSobre BS S08. */
  duplicateAsFault = false;
  /** Persists a change before it is applied; throwing aborts it (the caller gets a SOAP fault). */
  journal: (record: EfacturaRecord) => void = () => {};
  private nextId = 306_900_000;
  private idsReservedTo = 306_900_000;
  private readonly envelopes = new Map<string, StoredEnvelope>();
  private readonly envelopeKeys = new Set<string>();
  private readonly seenCfes = new Set<string>();
  private readonly reportSeq = new Map<string, number>();
  /** `ruc:tipo:serie:nro` → what DGI keeps of the CFE it answered (references, daily-report totals). */
  private readonly facts = new Map<string, CfeFacts>();
  /**
   * `ruc:tipo:serie:nro` → IDReceptor of every envelope that carried it, in arrival order (ws_consultas): one id
   * as a string, the rare resent CFE's as an array (an array each took ~100 more bytes per CFE remembered).
   */
  private readonly cfeEnvelopes = new Map<string, string | string[]>();

  constructor(
    private readonly keys: { privateKeyPem: string; certificatePem: string },
    readonly rucDgi: string,
  ) {}

  /** Journals then applies a change: replaying the journal goes through `apply` alone. */
  commit(record: EfacturaRecord): void {
    this.journal(record);
    this.apply(record);
  }

  apply(record: EfacturaRecord): void {
    if (record.t === 'ids') {
      this.idsReservedTo = Math.max(this.idsReservedTo, record.upTo);
      this.nextId = this.idsReservedTo;
    } else if (record.t === 'cae') {
      this.caes.push(record.range);
    } else if (record.t === 'envelope') {
      this.envelopeKeys.add(record.key);
      for (const key of record.seen) this.seenCfes.add(key);
      for (const [key, f] of Object.entries(record.facts ?? {})) this.facts.set(key, f);
      this.envelopes.set(record.id, record.envelope);
      for (const r of record.envelope.results) {
        const key = cfeKey(record.envelope.caratula.RUCEmisor, r.TipoCFE, r.Serie, r.NroCFE);
        const held = this.cfeEnvelopes.get(key);
        this.cfeEnvelopes.set(key, held === undefined ? record.id : [...(typeof held === 'string' ? [held] : held), record.id]);
      }
    } else {
      this.reportSeq.set(record.key, record.seq);
    }
  }

  private newId(): string {
    if (this.nextId >= this.idsReservedTo) {
      const upTo = this.nextId + ID_BLOCK;
      this.journal({ t: 'ids', upTo });
      this.idsReservedTo = upTo;
    }
    return String(this.nextId++);
  }

  private reply(xmlData: string, operation: string): SoapReply {
    const signed = signAnswer(xmlData, this.keys.privateKeyPem, this.keys.certificatePem, 'sha1');
    return {
      status: 200,
      body: soapEnvelope(
        `<WS_eFactura.${operation}Response xmlns="http://dgi.gub.uy"><Dataout><xmlData>${escapeXml(signed)}</xmlData></Dataout>` +
          `</WS_eFactura.${operation}Response>`,
      ),
    };
  }

  /**
   * EFACRECEPCIONSOBRE. `callerCert` is the WS-Security certificate, already verified. An accepted envelope's answer
   * carries its CFEs' spans in `xmlData` (for the received-CFE store, which would otherwise scan the envelope again).
   */
  receiveEnvelope(xmlData: string, callerCert: X509Certificate): SoapReply & { ackEstado: string; idReceptor: string; cfeSpans?: ElementSpan[] } {
    const now = Date.now();
    const id = this.newId();
    const peek = (tag: string) => new RegExp(`<(?:\\w+:)?${tag}>\\s*([^<]*?)\\s*<`).exec(xmlData)?.[1] ?? '';
    const caratula: CaratulaValues & { CantidadCFE: number } = {
      RUCReceptor: this.rucDgi,
      RUCEmisor: /^\d{12}$/.test(peek('RUCEmisor')) ? peek('RUCEmisor') : '000000000000',
      IDRespuesta: id,
      NomArch: '',
      FecHRecibido: uyDateTime(now),
      IDEmisor: /^\d{1,10}$/.test(peek('Idemisor')) ? peek('Idemisor') : '0',
      IDReceptor: id,
      CantidadCFE: Math.min(250, Number(peek('CantCFE')) || 0),
      Tmst: uyDateTime(now),
    };
    const reject = (m: Motivo) => ({
      ...this.reply(ackSobreXml(caratula, 'BS', [m], null), 'EFACRECEPCIONSOBRE'),
      ackEstado: 'BS',
      idReceptor: id,
    });

    if (Buffer.byteLength(xmlData, 'utf8') > MAX_ENVELOPE_BYTES) return reject(motivo('S07'));
    // One libxml2 parse for the schema and the CFEs' identities (xmldom built a second DOM of it).
    if (/<!DOCTYPE/i.test(xmlData)) return reject(motivo('S01', 'DOCTYPE no admitido'));
    let doc: XmlDocument;
    try {
      doc = parseXmlText(xmlData);
    } catch (error) {
      return reject(motivo('S01', (error as Error).message));
    }
    const cfes: CfeSummary[] = [];
    const contents: CfeContent[] = [];
    try {
      const root = doc.root;
      if (root.name !== 'EnvioCFE' || root.namespaceUri !== CFE_NS) return reject(motivo('S01'));
      const xsd = validateDocument('EnvioCFE', doc);
      if (!xsd.ok) return reject(motivo('S04', xsd.errors[0]));
      for (let n = root.firstChild; n; n = n.next) if (n instanceof XmlElement && n.name === 'CFE') {
        cfes.push(summarize(n));
        contents.push(readCfeContent(n));
      }
    } finally {
      doc.dispose();
    }
    // The CFEs' own bytes, in the same order: signatures are checked on them, never on a DOM copy.
    const spans = (rootChildSpans(xmlData) ?? []).filter((s) => s.name.replace(/^[^:]*:/, '') === 'CFE');
    if (spans.length !== cfes.length) return reject(motivo('S01', 'No se pudo delimitar cada CFE del sobre'));
    if (cfes.length !== Number(peek('CantCFE'))) {
      return reject(motivo('S05', `CantCFE=${peek('CantCFE')}, CFE en el sobre=${cfes.length}`));
    }
    let envelopeCert: X509Certificate;
    try {
      envelopeCert = certificateOf(peek('X509Certificate'));
    } catch {
      return reject(motivo('S03', 'X509Certificate de la carátula no es un certificado'));
    }
    if (Date.parse(envelopeCert.validTo) < now || Date.parse(envelopeCert.validFrom) > now) return reject(motivo('S03'));
    if (rucFromCertificate(envelopeCert) !== caratula.RUCEmisor || rucFromCertificate(callerCert) !== caratula.RUCEmisor) {
      return reject(motivo('S02', 'EL RUC del Emisor no corresponde con el del certificado. -'));
    }
    const scripted = this.envelopeRejects.shift();
    if (scripted) return { ...this.reply(ackSobreXml(caratula, 'BS', scripted.map((c) => motivo(c, 'Rechazo programado en el simulador')), null), 'EFACRECEPCIONSOBRE'), ackEstado: 'BS', idReceptor: id };
    const envelopeKey = `${caratula.RUCEmisor}:${caratula.IDEmisor}`;
    if (this.envelopeKeys.has(envelopeKey)) {
      // DGI answers a duplicate either way (BRIEF 5): ACKSobre BS S08, or WS fault 108.
      if (this.duplicateAsFault) return { status: 500, body: soapFaultXml(108, 'Sobre duplicado'), ackEstado: 'FAULT', idReceptor: id };
      return reject(motivo('S08', `Idemisor ${caratula.IDEmisor} ya recibido`));
    }

    const today = uyDate(now);
    const trust = this.trustAnchors.length ? checkChain(envelopeCert, { anchors: this.trustAnchors, at: new Date(now) }) : undefined;
    const certificateUntrusted = trust?.problem ? `certificate not trusted: ${trust.problem.detail}` : undefined;
    // CFEs accepted by this envelope are collected apart and become known only once it is journaled.
    const seen = new Set<string>();
    const facts: Record<string, CfeFacts> = {};
    // A note may reference a CFE accepted earlier in the same envelope: DGI processes them in order.
    const rules = { uiThresholdUyu: this.uiThresholdUyu, known: (key: string) => facts[key] ?? this.facts.get(key) };
    const results = cfes.map((cfe, i) => {
      const result = checkCfe(cfe, xmlData.slice(spans[i].start, spans[i].end), i + 1, {
        certificate: envelopeCert.publicKey,
        certificateUntrusted,
        caes: this.caes,
        seen: { has: (key) => this.seenCfes.has(key) || seen.has(key), add: (key) => seen.add(key) },
        rejectRules: this.rejectRules,
        checkCaeRanges: this.checkCaeRanges,
        today,
        ...(this.checkContent ? { content: { cfe: contents[i], rules } } : {}),
      });
      // A duplicate's answer (E02) never replaces what DGI holds of the original.
      const key = cfeKey(cfe.rucEmisor, cfe.tipoCFE, cfe.serie, cfe.nro);
      if (!result.motivos.some((m) => m.Motivo === 'E02')) facts[key] = factsOf(contents[i], cfe.tmstFirma, result.Estado as CfeFacts['estado'], result.motivos[0]?.Motivo, this.uiThresholdUyu);
      return result;
    });
    const token = randomBytes(72).toString('base64');
    const readyAt = now + this.ackDelayMs;
    const envelope = { caratula: { ...caratula, CantenSobre: cfes.length }, token, readyAt, results };
    this.commit({ t: 'envelope', id, key: envelopeKey, envelope, seen: [...seen], facts });
    return {
      ...this.reply(ackSobreXml(caratula, 'AS', [], { Token: token, Fechahora: uyDateTime(readyAt) }), 'EFACRECEPCIONSOBRE'),
      ackEstado: 'AS',
      idReceptor: id,
      cfeSpans: spans,
    };
  }

  /** What DGI holds of a CFE of `ruc` (ws_consultas): the envelopes that carried it and its result in each. */
  envelopesOfCfe(ruc: string, tipoCfe: string, serie: string, nro: string): { idReceptor: string; envelope: StoredEnvelope; result: CfeResult }[] {
    const held = this.cfeEnvelopes.get(cfeKey(ruc, tipoCfe, serie, nro)) ?? [];
    return (typeof held === 'string' ? [held] : held).map((idReceptor) => {
      const envelope = this.envelopes.get(idReceptor)!;
      const result = envelope.results.find((r) => r.TipoCFE === tipoCfe && r.Serie === serie && r.NroCFE === nro)!;
      return { idReceptor, envelope, result };
    });
  }

  /** EFACCONSULTARESTADOENVIO: faults 2/3/4/104 for bad input, 105 before Fechahora. */
  queryEnvelope(xmlData: string, callerCert: X509Certificate, notReadyCode = 105): SoapReply {
    const idReceptor = /<(?:\w+:)?IdReceptor>\s*([^<]*?)\s*</.exec(xmlData)?.[1] ?? '';
    const token = /<(?:\w+:)?Token>\s*([^<]*?)\s*</.exec(xmlData)?.[1] ?? '';
    if (!/^\d+$/.test(idReceptor) || Number(idReceptor) <= 0) {
      return { status: 500, body: soapFaultXml(2, 'El IdReceptor debe ser un número positivo') };
    }
    const stored = this.envelopes.get(idReceptor);
    if (!stored) {
      return {
        status: 500,
        body: soapFaultXml(104, 'No existe un sobre con dicho Id Receptor para el RUC especificado'),
      };
    }
    if (stored.token !== token) return { status: 500, body: soapFaultXml(3, 'El Token corresponde a otro IdReceptor') };
    if (rucFromCertificate(callerCert) !== stored.caratula.RUCEmisor) {
      return { status: 500, body: soapFaultXml(4, 'El Token corresponde a otro RUC') };
    }
    if (Date.now() < stored.readyAt) {
      const text =
        notReadyCode === 13
          ? 'Su envío aún no ha sido procesado'
          : notReadyCode === 99
            ? 'Información aún no disponible'
            : 'El sobre con el Id Receptor especificado aún no ha sido procesado. Vuelva a consultar luego';
      return { status: 500, body: soapFaultXml(notReadyCode, text) };
    }
    const caratula = { ...stored.caratula, IDRespuesta: this.newId(), Tmst: uyDateTime() };
    return this.reply(ackCfeXml(caratula, stored.results), 'EFACCONSULTARESTADOENVIO');
  }

  /** The CFEs of `ruc` DGI answered whose TmstFirma falls on `fecha` (the daily report's FechaResumen, BRIEF 9). */
  factsSignedOn(ruc: string, fecha: string): Map<string, CfeFacts> {
    const out = new Map<string, CfeFacts>();
    for (const [key, f] of this.facts) if (f.fechaFirma === fecha && key.startsWith(`${ruc}:`)) out.set(key.slice(ruc.length + 1), f);
    return out;
  }

  /** EFACRECEPCIONREPORTE, answered synchronously (FREP v13.2). */
  receiveReport(xmlData: string, callerCert: X509Certificate): SoapReply & { ackEstado: string } {
    const now = Date.now();
    const peek = (tag: string) => new RegExp(`<(?:\\w+:)?${tag}>\\s*([^<]*?)\\s*<`).exec(xmlData)?.[1] ?? '';
    const id = this.newId();
    const ruc = /^\d{12}$/.test(peek('RUCEmisor')) ? peek('RUCEmisor') : '000000000000';
    const caratula: CaratulaValues = {
      RUCReceptor: this.rucDgi,
      RUCEmisor: ruc,
      IDRespuesta: id,
      NomArch: '',
      FecHRecibido: uyDateTime(now),
      IDEmisor: /^\d{1,10}$/.test(peek('IDEmisor')) ? peek('IDEmisor') : peek('SecEnvio') || '0',
      IDReceptor: id,
      Tmst: uyDateTime(now),
    };
    const answer = (estado: 'AR' | 'BR', motivos: Motivo[]) => ({
      ...this.reply(ackRepDiarioXml(caratula, estado, motivos), 'EFACRECEPCIONREPORTE'),
      ackEstado: estado,
    });
    if (!/<(?:\w+:)?Reporte[\s>]/.test(xmlData)) return answer('BR', [motivo('R01')]);
    const xsd = validateXml('Reporte', xmlData);
    if (!xsd.ok) return answer('BR', [motivo('R04', xsd.errors[0])]);
    if (rucFromCertificate(callerCert) !== ruc) return answer('BR', [motivo('R02')]);
    const signature = verifyStandaloneSignature(xmlData, callerCert.publicKey);
    if (!signature.ok) return answer('BR', [motivo('R03', signature.reason)]);

    const fechaResumen = peek('FechaResumen');
    if (fechaResumen > uyDate(now)) return answer('BR', [motivo('R06')]);
    if (this.checkContent) {
      // FREP v13.2 C26-C30 against the CFEs DGI received signed that day (report-rules.ts).
      const problems = checkReport(xmlData, { ruc, fechaResumen, facts: this.factsSignedOn(ruc, fechaResumen), fiscalRate: this.fiscalRate });
      if (problems.length) return answer('BR', problems.slice(0, 30).map((p) => motivo('R04', p)));
    }
    const seqKey = `${ruc}:${fechaResumen}`;
    const expected = (this.reportSeq.get(seqKey) ?? 0) + 1;
    if (Number(peek('SecEnvio')) !== expected) {
      return answer('BR', [motivo('R05', `SecEnvio esperado ${expected}`)]);
    }
    this.commit({ t: 'report', key: seqKey, seq: expected });
    return answer('AR', []);
  }
}
