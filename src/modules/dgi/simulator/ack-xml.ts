/**
 * Builders for the simulator's acknowledgements. Element order follows ACKSobre.xsd, ACKCFE_DGI.xsd
 * and ACKRepDiario.xsd exactly; glosas are the XSD enumeration values verbatim (DGITypes.xsd), with
 * codes per FMR v19 §4 (the XSD comments carry an older, shifted E-code table: BRIEF §6).
 */
import type { Motivo } from '../dgi.client.ts';
import { escapeXml } from '../dgi.soap.ts';

export const GLOSAS: Readonly<Record<string, string>> = {
  S01: 'Formato del archivo no es el indicado',
  S02: 'No coincide RUC de Sobre, Certificado, envío o CFE',
  S03: 'Certificado electrónico no es válido',
  S04: 'No cumple validaciones según Formato de sobre',
  S05: 'No coinciden cantidad CFE de carátula y contenido',
  S06: 'No coinciden certificado de sobre y comprobantes',
  S07: 'Sobre enviado supera el tamaño máximo admitido',
  S08: 'Sobre enviado ya existe en los registros de DGI',
  E01: 'Tipo y Nº de CFE ya fue reportado como anulado',
  E02: 'Tipo y Nº de CFE ya existe en los registros',
  E03: 'Tipo y Nº de CFE no se corresponden con el CAE',
  E04: 'Firma electrónica no es válida',
  E05: 'No cumple validaciones de Formato comprobantes',
  E06: 'Importe informado en el CFE excede montos habituales',
  E07: 'Fecha Firma de CFE no se corresponde con fecha CAE',
  E08: 'No coincide RUC de CFE y Complemento Fiscal',
  E09: 'RUC emisor y/o tipo de CFE no se corresponden con el CAE',
  E10: 'Tipo de cambio no válido',
  E11: 'Tipo de CAE especial del CFE no se corresponde con el CAE',
  E12: 'Información en Zona de Referencia no existe en los registros',
  E13: 'Tipo de CAE  del CFE  no se corresponde con el CAE utilizado', // double spaces: XSD verbatim
  E14: 'Irregularidades detectadas',
  E15: 'Deudor contumaz sin informar situación',
  C03: 'Constancia no autorizada según registros',
  C04: 'Firma electrónica no es válida',
  C05: 'No cumple validaciones de Formato comprobantes',
  C06: 'Importe informado en el CFE excede montos habituales',
  C10: 'Tipo de cambio no válido',
  C14: 'Irregularidades detectadas',
  R01: 'Formato del archivo no es el indicado',
  R02: 'No coincide RUC en Reporte, Certificado o envío',
  R03: 'Firma o Certificado electrónicos no son válidos',
  R04: 'No cumple validaciones según Formato de Reporte',
  R05: 'La secuencia indicada en el reporte no es correcta',
  R06: 'Fecha recepción no puede ser menor a fecha resumen',
};

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
