/**
 * Builders for the simulator's acknowledgements. Element order follows ACKSobre.xsd, ACKCFE_DGI.xsd
 * and ACKRepDiario.xsd exactly; glosas are the XSD enumeration values verbatim (DGITypes.xsd), with
 * codes per FMR v19 §4 (the XSD comments carry an older, shifted E-code table: BRIEF §6).
 */
import type { Motivo } from '../dgi.client.ts';
import { escapeXml } from '../dgi.soap.ts';

export { DGI_GLOSAS as GLOSAS } from '../../emission/dgi-motives.ts';
import { DGI_GLOSAS as GLOSAS } from '../../emission/dgi-motives.ts';

export function motivo(code: string, detalle?: string): Motivo {
  return { Motivo: code, Glosa: GLOSAS[code] ?? GLOSAS.E14, Detalle: detalle ? detalle.slice(0, 500) : null };
}

const el = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined ? '' : `<${name}>${escapeXml(String(value))}</${name}>`;

function motivosXml(tag: string, list: Motivo[]): string {
  return list
    .map((m) => `<${tag}>${el('Motivo', m.Motivo)}${el('Glosa', m.Glosa)}${el('Detalle', m.Detalle)}</${tag}>`)
    .join('');
}

export interface CaratulaValues {
  RUCReceptor: string;
  RUCEmisor: string;
  IDRespuesta: string;
  NomArch: string;
  FecHRecibido: string;
  IDEmisor: string;
  IDReceptor: string;
  Tmst: string;
}

const ROOT_ATTRS = 'xmlns="http://cfe.dgi.gub.uy" version="1.0"';

/** Unsigned ACKSobre; the caller appends the enveloped signature. */
export function ackSobreXml(
  c: CaratulaValues & { CantidadCFE: number },
  Estado: 'AS' | 'BS' | 'BA',
  motivos: Motivo[],
  param: { Token: string; Fechahora: string } | null,
): string {
  return (
    `<ACKSobre ${ROOT_ATTRS}><Caratula>${el('RUCReceptor', c.RUCReceptor)}${el('RUCEmisor', c.RUCEmisor)}` +
    `${el('IDRespuesta', c.IDRespuesta)}<NomArch>${escapeXml(c.NomArch)}</NomArch>${el('FecHRecibido', c.FecHRecibido)}` +
    `${el('IDEmisor', c.IDEmisor)}${el('IDReceptor', c.IDReceptor)}${el('CantidadCFE', c.CantidadCFE)}${el('Tmst', c.Tmst)}` +
    `</Caratula><Detalle>${el('Estado', Estado)}${motivosXml('MotivosRechazo', motivos)}` +
    (param ? `<ParamConsulta>${el('Token', param.Token)}${el('Fechahora', param.Fechahora)}</ParamConsulta>` : '') +
    `</Detalle></ACKSobre>`
  );
}

export interface CfeResult {
  Nro_ordinal: number;
  TipoCFE: string | null;
  Serie: string | null;
  NroCFE: string | null;
  FechaCFE: string | null;
  TmstCFE: string | null;
  Estado: 'AE' | 'BE' | 'CE';
  motivos: Motivo[];
}

/** Unsigned ACKCFE (DGI variant). CFC observations go in ObsCFC, CFE rejections in MotivosRechazoCF. */
export function ackCfeXml(c: CaratulaValues & { CantenSobre: number }, results: CfeResult[]): string {
  const isCfc = (r: CfeResult) => r.TipoCFE?.startsWith('2') ?? false;
  const counts = {
    CantCFEAceptados: results.filter((r) => !isCfc(r) && r.Estado === 'AE').length,
    CantCFERechazados: results.filter((r) => !isCfc(r) && r.Estado === 'BE').length,
    CantCFCAceptados: results.filter((r) => isCfc(r) && r.Estado === 'AE').length,
    CantCFCObservados: results.filter((r) => isCfc(r) && r.Estado === 'CE').length,
  };
  const det = results
    .map(
      (r) =>
        `<ACKCFE_Det>${el('Nro_ordinal', r.Nro_ordinal)}${el('TipoCFE', r.TipoCFE)}${el('Serie', r.Serie)}` +
        `${el('NroCFE', r.NroCFE)}${el('FechaCFE', r.FechaCFE)}${el('TmstCFE', r.TmstCFE)}${el('Estado', r.Estado)}` +
        motivosXml(r.Estado === 'CE' ? 'ObsCFC' : 'MotivosRechazoCF', r.motivos) +
        `</ACKCFE_Det>`,
    )
    .join('');
  return (
    `<ACKCFE ${ROOT_ATTRS}><Caratula>${el('RUCReceptor', c.RUCReceptor)}${el('RUCEmisor', c.RUCEmisor)}` +
    `${el('IDRespuesta', c.IDRespuesta)}<NomArch>${escapeXml(c.NomArch)}</NomArch>${el('FecHRecibido', c.FecHRecibido)}` +
    `${el('IDEmisor', c.IDEmisor)}${el('IDReceptor', c.IDReceptor)}${el('CantenSobre', c.CantenSobre)}` +
    `${el('CantResponden', results.length)}${el('CantCFEAceptados', counts.CantCFEAceptados)}` +
    `${el('CantCFERechazados', counts.CantCFERechazados)}${el('CantCFCAceptados', counts.CantCFCAceptados)}` +
    `${el('CantCFCObservados', counts.CantCFCObservados)}${el('CantOtrosRechazados', 0)}${el('Tmst', c.Tmst)}` +
    `</Caratula>${det}</ACKCFE>`
  );
}

/** Unsigned ACKRepDiario (no IDRespuesta, no counts: ACKRepDiario.xsd). */
export function ackRepDiarioXml(c: CaratulaValues, Estado: 'AR' | 'BR' | 'BA', motivos: Motivo[]): string {
  return (
    `<ACKRepDiario ${ROOT_ATTRS}><Caratula>${el('RUCReceptor', c.RUCReceptor)}${el('RUCEmisor', c.RUCEmisor)}` +
    `<NomArch>${escapeXml(c.NomArch)}</NomArch>${el('FecHRecibido', c.FecHRecibido)}${el('IDEmisor', c.IDEmisor)}` +
    `${el('IDReceptor', c.IDReceptor)}${el('Tmst', c.Tmst)}</Caratula>` +
    `<Detalle>${el('Estado', Estado)}${motivosXml('MotivosRechazo', motivos)}</Detalle></ACKRepDiario>`
  );
}
