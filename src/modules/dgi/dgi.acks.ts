/**
 * Parsers for DGI acknowledgements (FMR v19; XSD ACKSobre, ACKCFE_DGI, ACKCFE_Partes, ACKRepDiario).
 * Lenient about element order and prefixes, strict about the Estado vocabulary: an Estado
 * outside the XSD enumeration means we misunderstood the message, so it throws.
 */
import { XMLParser } from 'fast-xml-parser';
import type {
  AckCaratula,
  AckCfe,
  AckCfeDetalle,
  AckRepDiario,
  AckSobre,
  EstadoCfe,
  EstadoReporte,
  EstadoSobre,
  Motivo,
} from './dgi.client.ts';

type Node = Record<string, unknown>;

const ARRAY_TAGS = new Set(['MotivosRechazo', 'MotivosRechazoCF', 'ObsCFC', 'ACKCFE_Det']);

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  isArray: (name) => ARRAY_TAGS.has(name),
});

export class AckParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AckParseError';
  }
}

function root(xml: string, name: string): Node {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (error) {
    throw new AckParseError(`${name}: not well-formed XML (${(error as Error).message})`);
  }
  const node = doc[name];
  if (!node || typeof node !== 'object') throw new AckParseError(`expected root element ${name}`);
  return node as Node;
}

function text(node: Node | undefined, key: string): string | null {
  const value = node?.[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'object') return null;
  return String(value);
}

function required(node: Node | undefined, key: string, where: string): string {
  const value = text(node, key);
  if (value === null) throw new AckParseError(`${where}: missing ${key}`);
  return value;
}

function count(node: Node, key: string): number | null {
  const value = text(node, key);
  return value === null || value === '' ? null : Number(value);
}

function oneOf<T extends string>(value: string, allowed: readonly T[], where: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new AckParseError(`${where}: unexpected Estado ${value}`);
  return value as T;
}

function motivos(list: unknown): Motivo[] {
  if (!Array.isArray(list)) return [];
  return list.map((item: Node) => ({
    Motivo: required(item, 'Motivo', 'Motivo'),
    Glosa: text(item, 'Glosa') ?? '',
    Detalle: text(item, 'Detalle') || null,
  }));
}

function caratula(node: Node | undefined, where: string): AckCaratula {
  if (!node) throw new AckParseError(`${where}: missing Caratula`);
  return {
    RUCReceptor: required(node, 'RUCReceptor', where),
    RUCEmisor: required(node, 'RUCEmisor', where),
    IDRespuesta: text(node, 'IDRespuesta'),
    NomArch: text(node, 'NomArch') ?? '',
    FecHRecibido: required(node, 'FecHRecibido', where),
    IDEmisor: required(node, 'IDEmisor', where),
    IDReceptor: required(node, 'IDReceptor', where),
    Tmst: required(node, 'Tmst', where),
  };
}

/** ACKSobre: answer to EFACRECEPCIONSOBRE (Estado AS / BS / BA). */
export function parseAckSobre(xml: string): AckSobre {
  const ack = root(xml, 'ACKSobre');
  const car = ack.Caratula as Node;
  const det = ack.Detalle as Node | undefined;
  if (!det) throw new AckParseError('ACKSobre: missing Detalle');
  const param = det.ParamConsulta as Node | undefined;
  return {
    caratula: { ...caratula(car, 'ACKSobre'), CantidadCFE: Number(required(car, 'CantidadCFE', 'ACKSobre')) },
    Estado: oneOf<EstadoSobre>(required(det, 'Estado', 'ACKSobre'), ['AS', 'BS', 'BA'], 'ACKSobre'),
    motivos: motivos(det.MotivosRechazo),
    paramConsulta: param
      ? { Token: required(param, 'Token', 'ParamConsulta'), Fechahora: required(param, 'Fechahora', 'ParamConsulta') }
      : null,
    xml,
  };
}

/**
 * ACKCFE: per-CFE answer. DGI's variant (ACKCFE_DGI.xsd) allows AE/BE/CE/FE with MotivosRechazoCF
 * or ObsCFC; a receiving company's variant (ACKCFE_Partes.xsd) only AE/BE. Same root name, so the
 * caller says which one it expects.
 */
export function parseAckCfe(xml: string, variant: 'DGI' | 'Partes' = 'DGI'): AckCfe {
  const ack = root(xml, 'ACKCFE');
  const car = ack.Caratula as Node;
  const where = `ACKCFE(${variant})`;
  const allowed: EstadoCfe[] = variant === 'DGI' ? ['AE', 'BE', 'CE', 'FE'] : ['AE', 'BE'];
  const detalles: AckCfeDetalle[] = ((ack.ACKCFE_Det as Node[] | undefined) ?? []).map((d) => {
    const ori = d.InfoRespOri as Node | undefined;
    return {
      Nro_ordinal: Number(required(d, 'Nro_ordinal', where)),
      TipoCFE: text(d, 'TipoCFE'),
      Serie: text(d, 'Serie'),
      NroCFE: text(d, 'NroCFE'),
      FechaCFE: text(d, 'FechaCFE'),
      TmstCFE: text(d, 'TmstCFE'),
      Estado: oneOf(required(d, 'Estado', where), allowed, where),
      motivos: [...motivos(d.MotivosRechazoCF), ...motivos(d.ObsCFC)],
      infoRespOri: ori
        ? {
            IDRespSobre: required(ori, 'IDRespSobre', where),
            IDEmisorSobre: required(ori, 'IDEmisorSobre', where),
            IDReceptorSobre: required(ori, 'IDReceptorSobre', where),
            IDTokenSobre: required(ori, 'IDTokenSobre', where),
          }
        : null,
    };
  });
  if (detalles.length === 0) throw new AckParseError(`${where}: no ACKCFE_Det`);
  return {
    variant,
    caratula: {
      ...caratula(car, where),
      CantenSobre: Number(required(car, 'CantenSobre', where)),
      CantResponden: Number(required(car, 'CantResponden', where)),
      CantCFEAceptados: count(car, 'CantCFEAceptados'),
      CantCFERechazados: count(car, 'CantCFERechazados'),
      CantCFCAceptados: count(car, 'CantCFCAceptados'),
      CantCFCObservados: count(car, 'CantCFCObservados'),
      CantOtrosRechazados: count(car, 'CantOtrosRechazados'),
    },
    detalles,
    xml,
  };
}

/** ACKRepDiario: synchronous answer to EFACRECEPCIONREPORTE (Estado AR / BR / BA). */
export function parseAckRepDiario(xml: string): AckRepDiario {
  const ack = root(xml, 'ACKRepDiario');
  const det = ack.Detalle as Node | undefined;
  if (!det) throw new AckParseError('ACKRepDiario: missing Detalle');
  return {
    caratula: caratula(ack.Caratula as Node, 'ACKRepDiario'),
    Estado: oneOf<EstadoReporte>(required(det, 'Estado', 'ACKRepDiario'), ['AR', 'BR', 'BA'], 'ACKRepDiario'),
    motivos: motivos(det.MotivosRechazo),
    xml,
  };
}
