/**
 * Our answers to an issuer (BRIEF 8), built already in inclusive-C14N form and signed with the
 * company's certificate (enveloped XMLDSig, the CFE profile, as for CFEs_Anulados_x_RechazoDGI):
 *  - ACKSobre (ACKSobre.xsd): envelope receipt, Estado AS/BS with S01-S07/S20.
 *    File `M_<IDRespuesta>_Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml`.
 *  - ACKCFE (ACKCFE_Partes.xsd): per CFE AE/BE with E-codes; may be split in several messages.
 *    File `ME_<IDRespuesta>_Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml`.
 * Element order follows the XSDs exactly. Pure: no database.
 */
import { CFE_NAMESPACE, escapeC14nText, signCanonicalXml, type SigningKeyMaterial } from '../emission/index.js';
import { DGI_GLOSAS, isAgreedMotive, RECEIVER_COMMERCIAL_MOTIVES } from '../emission/dgi-motives.js';
import type { Motive } from './received-cfe.tables.js';

/** Motives a receiver may give per CFE (BRIEF 8): E02-E07 and E10-E12 from the format rules, and the commercial ones. */
export const CFE_MOTIVES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(['E02', 'E03', 'E04', 'E05', 'E06', 'E07', 'E10', 'E11', 'E12'].map((c) => [c, DGI_GLOSAS[c]])),
  ...RECEIVER_COMMERCIAL_MOTIVES,
};

export { isAgreedMotive };

export interface AnswerCaratula {
  /** The company (who answers). */
  rucReceptor: string;
  /** The issuer whose envelope is answered. */
  rucEmisor: string;
  idRespuesta: number;
  nomArch: string;
  fecHRecibido: string;
  idEmisor: number;
  /** Our number for the envelope (received_envelopes.id). */
  idReceptor: number;
  tmst: string;
}

export interface CfeAnswer {
  nroOrdinal: number;
  tipoCfe: number | null;
  serie: string | null;
  nroCfe: number | null;
  fechaCfe: string | null;
  tmstCfe: string | null;
  estado: 'AE' | 'BE';
  motivos: Motive[];
}

const el = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined ? '' : `<${name}>${typeof value === 'number' ? String(value) : escapeC14nText(value)}</${name}>`;
/** Glosa50Type: at most 50 characters. */
const motives = (tag: string, list: Motive[]) =>
  list.map((m) => `<${tag}>${el('Motivo', m.codigo)}${el('Glosa', m.glosa.slice(0, 50))}${el('Detalle', m.detalle ? m.detalle.slice(0, 500) : null)}</${tag}>`).join('');

const head = (c: AnswerCaratula) =>
  el('RUCReceptor', c.rucReceptor) + el('RUCEmisor', c.rucEmisor) + el('IDRespuesta', c.idRespuesta) + el('NomArch', c.nomArch.slice(0, 40)) +
  el('FecHRecibido', c.fecHRecibido) + el('IDEmisor', c.idEmisor) + el('IDReceptor', c.idReceptor);

export function buildAckSobre(c: AnswerCaratula & { cantidadCfe: number }, estado: 'AS' | 'BS', list: Motive[]): string {
  return (
    `<ACKSobre xmlns="${CFE_NAMESPACE}" version="1.0"><Caratula>${head(c)}${el('CantidadCFE', c.cantidadCfe)}${el('Tmst', c.tmst)}</Caratula>` +
    `<Detalle>${el('Estado', estado)}${motives('MotivosRechazo', list)}</Detalle></ACKSobre>`
  );
}

export function buildAckCfe(c: AnswerCaratula & { cantEnSobre: number }, results: CfeAnswer[]): string {
  const isCfc = (r: CfeAnswer) => (r.tipoCfe ?? 0) >= 200;
  const count = (f: (r: CfeAnswer) => boolean) => results.filter(f).length;
  const det = results
    .map((r) =>
      `<ACKCFE_Det>${el('Nro_ordinal', r.nroOrdinal)}${el('TipoCFE', r.tipoCfe)}${el('Serie', r.serie)}${el('NroCFE', r.nroCfe)}` +
      `${el('FechaCFE', r.fechaCfe)}${el('TmstCFE', r.tmstCfe)}${el('Estado', r.estado)}${motives('MotivosRechazoCF', r.motivos)}</ACKCFE_Det>`)
    .join('');
  return (
    `<ACKCFE xmlns="${CFE_NAMESPACE}" version="1.0"><Caratula>${head(c)}${el('CantenSobre', c.cantEnSobre)}${el('CantResponden', results.length)}` +
    `${el('CantCFEAceptados', count((r) => !isCfc(r) && r.estado === 'AE'))}${el('CantCFERechazados', count((r) => !isCfc(r) && r.estado === 'BE'))}` +
    `${el('CantCFCAceptados', count((r) => isCfc(r) && r.estado === 'AE'))}${el('CantCFCObservados', 0)}${el('CantOtrosRechazados', 0)}` +
    `${el('Tmst', c.tmst)}</Caratula>${det}</ACKCFE>`
  );
}

export const signAnswer = (unsigned: string, ctx: SigningKeyMaterial) => signCanonicalXml(unsigned, ctx).xml;

/** `M_` for ACKSobre, `ME_` for ACKCFE, followed by the envelope's own suggested name (BRIEF 8). */
export function answerFileName(tipo: 'ACKSobre' | 'ACKCFE', idRespuesta: number, rucEmisor: string, fecha: string, idemisor: number): string {
  const day = fecha.slice(0, 10).replaceAll('-', '');
  return `${tipo === 'ACKSobre' ? 'M' : 'ME'}_${idRespuesta}_Sob_${rucEmisor}_${day}_${idemisor}.xml`;
}
