/**
 * Per-CFE checks of the simulated DGI (FMR v19 §4.3-4.4): signature (E04), CAE range (E03/E09),
 * duplicates (E02), plus rejections scripted by tests. CFCs (types 2xx) are never rejected, only
 * observed: the same findings become CE with C-codes (BRIEF §6, §10).
 */
import type { KeyObject } from 'node:crypto';
import { XmlElement } from '../../../platform/xml/libxml2.ts';
import type { Motivo } from '../dgi.client.ts';
import { GLOSAS, motivo, type CfeResult } from './ack-xml.ts';
import { verifyStandaloneSignature } from '../../../platform/xml/standalone-signature.ts';
import { checkContent, type CfeContent, type ContentContext } from './content-rules.ts';

export interface CfeSummary {
  rucEmisor: string;
  tipoCFE: string;
  serie: string;
  nro: number;
  fchEmis: string | null;
  tmstFirma: string | null;
}

export interface CaeRange {
  rucEmisor: string;
  tipoCfe: string;
  serie: string;
  desde: number;
  hasta: number;
  fechaVencimiento: string;
  especial?: string;
  NA: string;
  /** When this DGI authorised it (simulator/registry-service.ts: start of the issuer); absent on ranges learned by hand. */
  autorizadoEn?: string;
}

export type CfeMatcher = Partial<{ tipoCFE: string | number; serie: string; nro: number }> | ((cfe: CfeSummary) => boolean);

export interface RejectRule {
  match: CfeMatcher;
  codes: string[];
}

function matches(rule: CfeMatcher, cfe: CfeSummary): boolean {
  if (typeof rule === 'function') return rule(cfe);
  return (
    (rule.tipoCFE === undefined || String(rule.tipoCFE) === cfe.tipoCFE) &&
    (rule.serie === undefined || rule.serie === cfe.serie) &&
    (rule.nro === undefined || rule.nro === cfe.nro)
  );
}

/**
 * `ruc:tipo:serie:nro`, the key of what DGI holds of a CFE. Built by join, a flat string: a template literal is a
 * tree of V8 cons strings, kept as is in the Sets and Maps of a simulator that remembers every CFE it was sent
 * (186 against 70 bytes per key).
 */
export const cfeKey = (ruc: string, tipo: string | number | null, serie: string | null, nro: string | number | null): string =>
  [ruc, tipo, serie, nro].join(':');

const SUMMARY_FIELDS = ['RUCEmisor', 'TipoCFE', 'Serie', 'Nro', 'FchEmis', 'TmstFirma'] as const;

/** The CFE's identity: the first element of each name in document order, read in one walk (libxml2). */
export function summarize(cfe: XmlElement): CfeSummary {
  const found = new Map<string, string>();
  const walk = (el: XmlElement) => {
    for (let n = el.firstChild; n && found.size < SUMMARY_FIELDS.length; n = n.next) {
      if (!(n instanceof XmlElement)) continue;
      if ((SUMMARY_FIELDS as readonly string[]).includes(n.name) && !found.has(n.name)) found.set(n.name, n.content.trim());
      walk(n);
    }
  };
  walk(cfe);
  return {
    rucEmisor: found.get('RUCEmisor') ?? '',
    tipoCFE: found.get('TipoCFE') ?? '',
    serie: found.get('Serie') ?? '',
    nro: Number(found.get('Nro') ?? NaN),
    fchEmis: found.get('FchEmis') ?? null,
    tmstFirma: found.get('TmstFirma') ?? null,
  };
}

export interface CfeCheckContext {
  /** The envelope's certificate (Caratula/X509Certificate): every CFE must verify with it (S06/E04). */
  certificate: string | KeyObject;
  /**
   * Why the envelope's certificate is outside this DGI's trust store (accredited Uruguayan CAs and
   * the simulator's own test CA), if it is: every CFE signed with it is E04 "certificate not trusted"
   * (BRIEF 3; samples/acks/ack-cfe-be-e04.xml), although its signature verifies.
   */
  certificateUntrusted?: string;
  caes: CaeRange[];
  /** Keys `ruc:tipo:serie:nro` already received (AE/CE); updated by `checkCfe`. */
  seen: { has(key: string): boolean; add(key: string): unknown };
  rejectRules: RejectRule[];
  checkCaeRanges: boolean;
  today: string;
  /** The CFE's content and what DGI holds, for the Testing rules (content-rules.ts); absent = not judged. */
  content?: { cfe: CfeContent; rules: ContentContext };
}

/**
 * Evaluates one CFE of an accepted envelope: `cfe` (its identity, `summarize`), `standalone`
 * (the CFE's own bytes cut from the envelope) for the signature. Consumes a matching reject rule.
 */
export function checkCfe(cfe: CfeSummary, standalone: string, ordinal: number, ctx: CfeCheckContext): CfeResult {
  const isCfc = cfe.tipoCFE.startsWith('2');
  const found: Motivo[] = [];

  // DGI verifies each CFE as a standalone document (BRIEF §3), on the bytes it was sent with.
  const signature = verifyStandaloneSignature(standalone, ctx.certificate);
  if (!signature.ok) found.push(motivo('E04', signature.reason));
  else if (ctx.certificateUntrusted) found.push(motivo('E04', ctx.certificateUntrusted));

  const key = cfeKey(cfe.rucEmisor, cfe.tipoCFE, cfe.serie, cfe.nro);
  if (!isCfc && ctx.checkCaeRanges) {
    const forType = ctx.caes.filter((c) => c.rucEmisor === cfe.rucEmisor && c.tipoCfe === cfe.tipoCFE);
    if (forType.length === 0) found.push(motivo('E09'));
    else if (!forType.some((c) => c.serie === cfe.serie && cfe.nro >= c.desde && cfe.nro <= c.hasta && c.fechaVencimiento >= ctx.today)) {
      found.push(motivo('E03', `Serie ${cfe.serie} Nro ${cfe.nro} fuera de los rangos autorizados`));
    }
  }
  if (ctx.seen.has(key)) found.push(motivo('E02'));
  if (ctx.content) found.push(...checkContent(cfe, ctx.content.cfe, ctx.content.rules));

  const ruleIndex = ctx.rejectRules.findIndex((r) => matches(r.match, cfe));
  if (ruleIndex >= 0) {
    const [rule] = ctx.rejectRules.splice(ruleIndex, 1);
    for (const code of rule.codes) found.push(motivo(code, 'Rechazo programado en el simulador'));
  }

  let estado: CfeResult['Estado'] = found.length === 0 ? 'AE' : 'BE';
  let motivos = found;
  if (isCfc && found.length > 0) {
    estado = 'CE';
    motivos = found.map((m) => {
      const code = m.Motivo.startsWith('E') ? `C${m.Motivo.slice(1)}` : m.Motivo;
      return GLOSAS[code] ? { ...m, Motivo: code, Glosa: GLOSAS[code] } : { ...m, Motivo: 'C14', Glosa: GLOSAS.C14 };
    });
  }
  if (estado !== 'BE') ctx.seen.add(key);
  return {
    Nro_ordinal: ordinal,
    TipoCFE: cfe.tipoCFE || null,
    Serie: cfe.serie || null,
    NroCFE: Number.isFinite(cfe.nro) ? String(cfe.nro) : null,
    FechaCFE: cfe.fchEmis,
    TmstCFE: cfe.tmstFirma,
    Estado: estado,
    motivos: motivos.slice(0, estado === 'CE' ? 10 : 30),
  };
}
