/**
 * Contracts of the tax-authority (DGI) and central-bank (BCU) clients.
 * The real SOAP clients (`dgi.soap-client.ts`, `rut.soap-client.ts`, `bcu.soap-client.ts`) and the
 * simulator-backed tests share these shapes; callers depend only on this file.
 * Field names that come from DGI documents keep DGI's spelling (Estado, Motivo, Glosa, IDReceptor…).
 */

/** Fiscal address of the main establishment, from `WS_DomFiscalLocPrincipal` (BRIEF §11). */
export interface RutAddress {
  street: string | null; // Calle_Nom
  number: string | null; // Dom_Pta_Nro
  apartment: string | null; // Dom_Ap_Nro
  city: string | null; // Loc_Nom
  department: string | null; // Dpto_Nom
  postalCode: string | null; // Dom_Pst_Cod
  contacts: { type: string; value: string }[]; // Contactos: TipoCtt_Des / DomCtt_Val
}

export interface RutActivity {
  code: string; // GiroCod
  name: string; // GiroNom
  startDate: string | null; // GiroFec_Ini
}

/** Estados of `EstadoActividad` (BRIEF §11). */
export type EstadoActividad = 'AA' | 'AF' | 'CC' | 'CH' | 'NT' | (string & {});

export interface RutInfo {
  RUT: string;
  Denominacion: string;
  NombreFantasia: string | null;
  TipoEntidad: string | null;
  DescripcionTipoEntidad: string | null;
  EstadoActividad: EstadoActividad;
  FechaInicioActividad: string | null; // DGI spells it FechaInicioActivdad
  address: RutAddress | null;
  activities: RutActivity[];
}

export interface RutLookupClient {
  /**
   * `null` for every DGI fault that means "no usable company" (5 bad length, 10 never had
   * activity, 11 cancelled, 12 starts in the future, 14 not available in Testing);
   * `lookupDetailed` tells them apart. Transport failures throw `DgiTransientError`.
   */
  lookup(rut: string): Promise<RutInfo | null>;
  /** Same call, keeping DGI's reason when there is no RutInfo. */
  lookupDetailed(rut: string): Promise<RutLookupOutcome>;
}

export type RutLookupOutcome =
  | { kind: 'found'; info: RutInfo }
  | { kind: 'invalid'; codigo: 5 } // bad RUT length
  | { kind: 'not-found'; codigo: 10 | 14 } // never had activity / not available (Testing)
  | { kind: 'inactive'; codigo: 11 | 12; EstadoActividad: 'CC' | 'AF' }; // cancelled / starts in the future

export interface ExchangeRate {
  rate: string; // decimal string, BCU TCC (buyer) quote
  date: string; // YYYY-MM-DD of the quote actually used (may be earlier than requested)
  source: 'BCU';
  currencyCode: number; // BCU Moneda code
}

export interface ExchangeRateClient {
  /** `null` when no quote exists within the bounded walk-back window. */
  getRate(isoCurrency: string, date: string): Promise<ExchangeRate | null>;
}

// ---- WS_eFactura acknowledgements (FMR v19; XSD ACKSobre / ACKCFE_DGI / ACKRepDiario) ----

export interface Motivo {
  Motivo: string; // S01…, E01…, C03…, R01…
  Glosa: string;
  Detalle: string | null;
}

export type EstadoSobre = 'AS' | 'BS' | 'BA';
export type EstadoCfe = 'AE' | 'BE' | 'CE' | 'FE';
export type EstadoReporte = 'AR' | 'BR' | 'BA';

export interface AckCaratula {
  RUCReceptor: string;
  RUCEmisor: string;
  IDRespuesta: string | null; // absent in ACKRepDiario
  NomArch: string;
  FecHRecibido: string;
  IDEmisor: string;
  IDReceptor: string;
  Tmst: string;
}

export interface AckSobre {
  caratula: AckCaratula & { CantidadCFE: number };
  Estado: EstadoSobre;
  motivos: Motivo[];
  /** Present when Estado is AS: what to send to EFACCONSULTARESTADOENVIO, and from when. */
  paramConsulta: { Token: string; Fechahora: string } | null;
  xml: string;
}

export interface AckCfeDetalle {
  Nro_ordinal: number;
  TipoCFE: string | null;
  Serie: string | null;
  NroCFE: string | null;
  FechaCFE: string | null;
  TmstCFE: string | null;
  Estado: EstadoCfe;
  motivos: Motivo[]; // MotivosRechazoCF (BE) or ObsCFC (CE)
  infoRespOri: { IDRespSobre: string; IDEmisorSobre: string; IDReceptorSobre: string; IDTokenSobre: string } | null;
}

export interface AckCfe {
  variant: 'DGI' | 'Partes';
  caratula: AckCaratula & {
    CantenSobre: number;
    CantResponden: number;
    CantCFEAceptados: number | null;
    CantCFERechazados: number | null;
    CantCFCAceptados: number | null;
    CantCFCObservados: number | null;
    CantOtrosRechazados: number | null;
  };
  detalles: AckCfeDetalle[];
  xml: string;
}

export interface AckRepDiario {
  caratula: AckCaratula;
  Estado: EstadoReporte;
  motivos: Motivo[];
  xml: string;
}

/** Faults 13 / 99 / 105: "su envío aún no ha sido procesado" — poll again later (BRIEF §6). */
export interface EnvelopeNotReady {
  ready: false;
  codigo: number;
  descripcion: string;
}

export type EnvelopeStatus = ({ ready: true } & AckCfe) | EnvelopeNotReady;

export interface DgiReceptionClient {
  /** EFACRECEPCIONSOBRE: EnvioCFE → ACKSobre. */
  sendEnvelope(envioCfeXml: string): Promise<AckSobre>;
  /** EFACCONSULTARESTADOENVIO: IdReceptor + Token → ACKCFE, or not-ready. */
  queryEnvelopeStatus(idReceptor: string, token: string): Promise<EnvelopeStatus>;
  /** EFACRECEPCIONREPORTE: Reporte → ACKRepDiario (synchronous). */
  sendDailyReport(reporteXml: string): Promise<AckRepDiario>;
}

/** Per-company credentials for WS-Security (PEM strings, already extracted from the .p12). */
export interface WsSecurityCredentials {
  privateKeyPem: string;
  certificatePem: string;
  /** Defaults to rsa-sha1/sha1 as in DGI's examples (BRIEF §6); sha256 also passes DGI's layer. */
  algorithm?: 'sha1' | 'sha256';
}

// ---- ws_consultas (BRIEF 7, WSC v1.10): what DGI holds, asked after an answer was lost ----

/** Cfeid: a CFE by its DGI identity. */
export interface CfeId {
  TipoCFE: number;
  Serie: string;
  Nro: number;
}

/** DatosSobre of EFACCONSULTARENVIOSCFE: one envelope that carried the CFE. */
export interface DatosSobre {
  /** The envelope's ACKSobre state at DGI: AS received, BS/BA rejected. */
  EstadoSobre: string;
  FechaHoraSobre: string | null;
  IdEmisor: string;
  IdReceptor: string;
  /** What EFACCONSULTARESTADOENVIO needs for the envelope's ACKCFE (absent when not received). */
  ParamConsulta: { Token: string; Fechahora: string } | null;
}

/** Ackconsultaestadocfe of EFACCONSULTARESTADOCFE: the CFE's state and its first envelope. */
export interface EstadoCfeConsulta {
  EstadoCFE: string;
  IdEmisor: string;
  IdReceptor: string;
  ParamConsulta: { Token: string; Fechahora: string } | null;
}

export interface DgiConsultasClient {
  /** EFACCONSULTARENVIOSCFE: every envelope DGI received that carried the CFE (empty: none). */
  cfeEnvelopes(cfe: CfeId): Promise<DatosSobre[]>;
  /** EFACCONSULTARESTADOCFE: the CFE's state at DGI; null when DGI holds no such CFE. */
  cfeState(cfe: CfeId): Promise<EstadoCfeConsulta | null>;
}
