/**
 * The simulator's public shapes (dgi.simulator.ts re-exports them): its options, the control API
 * that tests, the sandbox and the simulator thread (simulator/thread.ts) drive, and the request log's
 * record. Kept apart so the server file holds only the server.
 */
import type { RutInfo } from '../dgi.client.ts';
import type { CaeRange, CfeMatcher } from './cfe-checks.ts';
import type { ConsultasOperation } from './consultas-service.ts';
import type { RegistryOperation, RegistryService } from './registry-service.ts';
import type { CFE_RECIBIDOS_OPERATION, RecibidoCfe } from './recibidos-service.ts';

export interface DgiSimulatorOptions {
  port?: number; // 0 (default) = random
  host?: string; // default 127.0.0.1
  /** DGI's RUC as envelope receiver; Testing uses 219999830019 (BRIEF §5). */
  rucDgi?: string;
  /** Delay between ACKSobre and ACKCFE availability (Fechahora). Default 0. */
  ackDelayMs?: number;
  /** Reject CFEs whose number is outside a CAE issued by `control.issueCae` (E03/E09). Default true. */
  checkCaeRanges?: boolean;
  /**
   * File that keeps what this DGI knows across processes (keys, CAE, envelopes, reports, RUT and
   * rate overrides): loaded when it exists, created otherwise. Unset = in memory only (tests).
   * Scripted rejections, latency, outages and the submissions log stay per process.
   */
  statePath?: string;
  /**
   * Extra CAs this DGI trusts besides the accredited Uruguayan ones (resources/trust/uy) and its own
   * test CA; a CFE signed with a certificate that chains to none of them is E04 (BRIEF 3).
   */
  trustAnchors?: string[];
  /**
   * Judge each CFE's content (receiver per type, totals, references of notes) and each daily report
   * against the CFEs received, like DGI's Testing (simulator/content-rules.ts, report-rules.ts). Default true.
   */
  checkContent?: boolean;
  /** UI value at the close of the previous year, for the 5,000 UI e-Ticket threshold (BRIEF 1). Default '6.4', the service's UI_VALUE default. */
  uiValue?: string;
  /** How many of the newest requests `control.submissions()` keeps (default SUBMISSIONS_KEPT of dgi.simulator.ts). */
  keepSubmissions?: number;
}

export interface Submission {
  service: 'EFACRECEPCIONSOBRE' | 'EFACCONSULTARESTADOENVIO' | 'EFACRECEPCIONREPORTE' | ConsultasOperation | RegistryOperation | typeof CFE_RECIBIDOS_OPERATION | 'CONSULTAQR' | 'RUT' | 'BCU' | 'UNKNOWN';
  at: string;
  xmlData: string;
  httpStatus: number;
  ackEstado?: string;
  idReceptor?: string;
  fault?: string;
  /** The request was processed (and remembered) but its answer never left: `loseNextAnswers`. */
  answerLost?: boolean;
}

export interface IssueCaeInput {
  rucEmisor: string;
  tipoCfe: string | number;
  serie: string;
  desde: number;
  hasta: number;
  fechaVencimiento: string; // YYYY-MM-DD
  especial?: string; // CAEEspecial
}

export interface DgiSimulatorControl {
  rejectNext(match: CfeMatcher, codes: string[]): void;
  /** The next envelope that passes the format checks is rejected (BS) with these S-codes. */
  rejectNextEnvelope(codes: string[]): void;
  observe(listener: (submission: Submission) => void): () => void;
  setLatency(ms: number): void;
  setDown(down: boolean | 'reset' | '503'): void;
  /**
   * The next `count` requests to `service` are processed as usual (an envelope is received and
   * remembered) but the connection is dropped instead of answering: the crash "DGI got it, the
   * answer was lost" (issue 29).
   */
  loseNextAnswers(service: Submission['service'], count?: number): void;
  /** A resent Idemisor is answered with WS fault 108 "Sobre duplicado" instead of ACKSobre BS S08. */
  setDuplicateAsFault(on: boolean): void;
  setAckDelay(ms: number): void;
  /** The newest requests received (`keepSubmissions` of them, fewer when their XML exceeds SUBMISSION_CHARS_KEPT). */
  submissions(): Submission[];
  addRut(info: RutInfo): void;
  setRate(bcuCode: number, date: string, rate: string | null): void;
  issueCae(input: IssueCaeInput): { xml: string; NA: string };
  /**
   * Records a range with the CAE number the company was given elsewhere (typed in with
   * importar-manual), so its receipts are not answered E09/E03. `false` when already known.
   */
  registerCae(range: CaeRange): boolean;
  /** The CAE ranges this DGI has authorised. */
  caes(): CaeRange[];
  /**
   * Declares a CFE issued to `rucReceptor` as DGI would hold it (EFACCONSULTARCFERECIBIDOS, QR page):
   * e.g. one whose envelope never reached the receiver, or with other amounts or state.
   */
  addCfeRecibido(cfe: RecibidoCfe): void;
  issueCompanyCertificate(rut: string, name: string): { p12: Buffer; password: string; privateKeyPem: string; certificatePem: string };
  /** PEM of the simulator's CA and of the "DGI" certificate that signs ACKs and CAEs. */
  readonly caCertificatePem: string;
  readonly dgiCertificatePem: string;
  /** The registry of electronic issuers (simulator/registry-service.ts): `set` adds or replaces an entry. */
  readonly registry: Pick<RegistryService, 'set' | 'all'>;
}

export interface DgiSimulator {
  url: string;
  urls: { efactura: string; rut: string; bcu: string; consultas: string; consultaQr: string };
  control: DgiSimulatorControl;
  close(): Promise<void>;
}
