/**
 * What the emission flow needs from other modules (STYLE 5.3: reached only through their services,
 * wired in modules/index.ts). Kept as interfaces so unit tests and the bench can pass fakes.
 */
import type { SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { SigningContext } from '../emission/index.js';
import type { RutInfo } from '../dgi/dgi.client.js';

export interface CustomerRecord {
  id: number;
  companyId: number;
  tipoDocumento: number;
  codPais: string;
  documento: string;
  razonSocial: string;
  direccion?: string | null;
  ciudad?: string | null;
  departamento?: string | null;
  pais?: string | null;
  codigoPostal?: string | null;
}

/** What an emitir line with idVariante takes from the variant and its product (issued-cfe.variants.ts). */
export interface VariantLine {
  codigo: string;
  nombre: string;
  unidadMedida: string | null;
  precioUnitario: string | null;
  indicadorFacturacion: number | null;
}

export interface EmissionPoint {
  company: { id: number; rut: string; razonSocial: string; nombreComercial?: string | null; domicilioFiscal?: string | null; ciudad?: string | null; departamento?: string | null; telefono?: string | null; email?: string | null; actividad?: string | null; limiteCfeMensual?: number | null; urlVerificacion?: string | null };
  branch: { id: number; codComercio: string; nombre?: string | null; direccion?: string | null; ciudad?: string | null; departamento?: string | null; telefono?: string | null; email?: string | null };
  point: { id: number; codTerminal: string };
  codigoDgiSucursal: number;
}

export interface ReservedNumber {
  caeRangeId: number;
  serie: string;
  numero: number;
  cae: { NA: string; DNro: number; HNro: number; FVD: string; CAEEspecial?: number; CausalCAEEsp?: number };
}

/** Disjoint numbers for processes that sign ahead for the same CAE range (cae.repository claimBlock). */
export interface NumberClaims {
  /** The first of `count` numbers no other process has claimed, or undefined when the range cannot hold them. */
  claim(caeRangeId: number, count: number): Promise<number | undefined>;
  /** The range's committed cursor. */
  nextNumber(caeRangeId: number): Promise<number | undefined>;
  /** Forgets the outstanding claims (one of them will never be stored). */
  reset(caeRangeId: number): Promise<void>;
}

export interface IssuedCfePorts {
  resolveEmissionPoint(input: { idEmpresa: number; codComercio: string; codTerminal: string; fecha: string }): Promise<EmissionPoint>;
  /** `count` numbers in one go for an emission batch (all or nothing; CAE_SIN_NUMEROS otherwise). */
  reserveNumbers(tx: DbOrTx, input: { companyId: number; branchId: number; tipoCfe: number; fecha: string }, count: number): Promise<ReservedNumber[]>;
  /**
   * CTEs ending in `reserved` that take exactly numbers first..first+count-1 of the range when it is
   * still the one reserveNumbers would use and `first` is its next number; nothing otherwise (cae module).
   */
  exactReservationCtes(input: { companyId: number; branchId: number; tipoCfe: number; fecha: string }, block: { caeRangeId: number; first: number; count: number }): SQL;
  /** Number claims for several processes signing ahead for the same range (cae module `claims`). */
  numberClaims?: NumberClaims;
  /** Marks a paper CFC's number used, once, inside a registered CFC range (cae module; 422 otherwise). */
  reserveContingencyNumber(tx: DbOrTx, input: { companyId: number; tipoCfc: number; serie: string; numero: number; fecha: string }): Promise<{ cfcRangeId: number; serie: string; numero: number; constancia: string; fechaVencimiento: string; desde: number; hasta: number }>;
  signingContext(companyId: number): Promise<SigningContext | undefined>;
  customerById(companyId: number, id: number): Promise<CustomerRecord | undefined>;
  customerByDocument(companyId: number, documento: string): Promise<CustomerRecord | undefined>;
  /** Spec 2.4 rule 3 (products module): variants of the company, lot/serial ids required and owned; throws its 422s. One answer per line, in order. */
  checkProductLines(companyId: number, lines: Array<{ idVariante: number; datosTrazabilidad?: { id_lote?: number; id_serie?: number } }>): Promise<VariantLine[]>;
  currencyExists(code: string): Promise<boolean>;
  companyRate(companyId: number, currency: string, fecha: string): Promise<string | undefined>;
  /** The outbox INSERT of the events a query yields (company_id, type, data), as a CTE of the batch statement (events module). */
  insertEventsFrom(select: SQL): SQL;
  /** Outbox events, one INSERT (events module). */
  recordEvents(tx: DbOrTx, inputs: Array<{ type: 'Cfe.Emitido'; companyId: number; resource: Record<string, unknown> }>): Promise<unknown>;
  /** DGI RUT lookup (cached); null = no usable company under that RUT. */
  lookupRut(companyId: number, rut: string): Promise<RutInfo | null>;
  /** Central-bank rate (cached), UYU per unit. */
  bcuRate(currency: string, fecha: string): Promise<string | undefined>;
}
