/**
 * The rules of BRIEF 12 that can be checked from a declaration's facts. Pure: the service gathers
 * the facts (company regime, start date as an issuer, UI and USD values from BCU) and turns the
 * first broken rule into a 422 carrying its code; every broken rule is listed in the details.
 * Fiscal years are calendar years (the common case; companies with another closing date declare
 * the calendar year their fiscal year ends in).
 */
import { Decimal } from 'decimal.js';

export const REGIMES = ['decreto_206_019', 'decreto_324_011'] as const;
export type Regime = (typeof REGIMES)[number];
export const GROUNDS = ['literal_e', 'ingresos_hasta_750000_ui', 'inicio_actividad'] as const;
export type Ground = (typeof GROUNDS)[number];
export const INVESTMENT_TYPES = ['hardware', 'software', 'saas'] as const;

/** Decreto 206/019: small taxpayers' prior-year income cap, in UI (BRIEF 12). */
export const INCOME_CAP_UI = 750_000;
/** Decreto 206/019: monthly credit of up to 80 UI (BRIEF 12). */
export const MONTHLY_CREDIT_UI = 80;
export const DECREE_206_FIRST_YEAR = 2019;
/** Decreto 324/011: SaaS e-invoicing counts since 17/10/2015, up to USD 8,000 (CEDE / large) or 3,000 (others), without VAT. */
export const SAAS_SINCE = '2015-10-17';
export const SAAS_CAP_USD = { large: 8000, other: 3000 } as const;

export interface Investment {
  descripcion: string;
  tipo: (typeof INVESTMENT_TYPES)[number];
  fecha: string;
  moneda: 'UYU' | 'USD';
  montoSinIva: string;
}

export interface DeclarationFacts {
  regimen: Regime;
  anioFiscal: number;
  fundamento?: Ground;
  /** Prior-year income in pesos, and the UI value at 31/12 of that year (BRIEF 11). */
  ingresosAnioAnterior?: string;
  valorUiCierre?: string | null;
  fechaInicioActividad?: string;
  grandeContribuyente?: boolean;
  inversiones?: Investment[];
  /** USD value (pesos per dollar) of the UYU investments' dates, by date; null = BCU had none. */
  usdRates?: Map<string, string | null>;
  /** The company's start as an electronic issuer (registry or company), and a date declared, if any. */
  fechaInicioEmisor: string | null;
  fechaInicioEmisorDeclarada?: string;
  regimenTributario: string;
  today: string;
  decree206LastYear: number;
}

export interface RuleProblem {
  code: RuleCode;
  campo: string;
  mensaje: string;
}

export type RuleCode =
  | 'BENEFICIO_DATO_REQUERIDO' | 'BENEFICIO_DATO_NO_CORRESPONDE' | 'BENEFICIO_ANIO_FISCAL_FUTURO'
  | 'BENEFICIO_206_FUERA_DE_VIGENCIA' | 'BENEFICIO_206_NO_LITERAL_E' | 'BENEFICIO_206_EJERCICIO_NO_CERRADO'
  | 'BENEFICIO_206_INGRESOS_SUPERAN_TOPE' | 'BENEFICIO_206_INICIO_FUERA_DE_PLAZO' | 'BENEFICIO_VALOR_UI_NO_DISPONIBLE'
  | 'BENEFICIO_FECHA_INICIO_DESCONOCIDA' | 'BENEFICIO_FECHA_INICIO_DISTINTA' | 'BENEFICIO_324_INVERSION_FUERA_DE_PLAZO'
  | 'BENEFICIO_324_SAAS_ANTES_DE_2015' | 'BENEFICIO_324_SAAS_SUPERA_TOPE' | 'BENEFICIO_324_FUERA_DE_PLAZO' | 'BENEFICIO_COTIZACION_NO_DISPONIBLE';

/** YYYY-MM-DD moved by whole months (day clamped to the month's end). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return target.toISOString().slice(0, 10);
}

/** Decreto 324/011's exemption for a start date (BRIEF 12): 50 % over 5 years capped at 60 % of the tax since 2016, 70 % over 10 years before. */
export function exemptionTerms(startDate: string): { porcentaje: number; ejercicios: number; topeImpuestoPorcentaje: number | null } {
  return startDate >= '2016-01-01' ? { porcentaje: 50, ejercicios: 5, topeImpuestoPorcentaje: 60 } : { porcentaje: 70, ejercicios: 10, topeImpuestoPorcentaje: null };
}

/** Prior-year income in UI (2 decimals), or null without a UI value. */
export function incomeInUi(pesos: string, uiValue: string | null | undefined): string | null {
  return uiValue ? new Decimal(pesos).div(uiValue).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2) : null;
}

/** 80 UI in pesos at `uiValue`, rounded to cents. */
export function monthlyCreditPesos(uiValue: string): string {
  return new Decimal(MONTHLY_CREDIT_UI).times(uiValue).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}

function check206(f: DeclarationFacts, out: RuleProblem[]): void {
  const p = (code: RuleCode, campo: string, mensaje: string): void => void out.push({ code, campo, mensaje });
  if (f.inversiones?.length) p('BENEFICIO_DATO_NO_CORRESPONDE', 'inversiones', 'Las inversiones se declaran en el régimen del Decreto 324/011, no en el 206/019.');
  if (f.anioFiscal < DECREE_206_FIRST_YEAR || f.anioFiscal > f.decree206LastYear) {
    p('BENEFICIO_206_FUERA_DE_VIGENCIA', 'anioFiscal', `El crédito del Decreto 206/019 rige para los ejercicios ${DECREE_206_FIRST_YEAR} a ${f.decree206LastYear} (BRIEF 12: prorrogado a 31/12/${f.decree206LastYear}).`);
  }
  if (!f.fundamento) return p('BENEFICIO_DATO_REQUERIDO', 'fundamento', 'El Decreto 206/019 requiere el fundamento: literal_e, ingresos_hasta_750000_ui o inicio_actividad.');
  if (f.fundamento === 'literal_e' && f.regimenTributario !== 'iva_minimo') {
    p('BENEFICIO_206_NO_LITERAL_E', 'fundamento', `La empresa no está en el régimen de literal E (IVA mínimo); su régimen registrado es ${f.regimenTributario}.`);
  }
  if (f.fundamento === 'ingresos_hasta_750000_ui') {
    if (f.ingresosAnioAnterior === undefined) return p('BENEFICIO_DATO_REQUERIDO', 'ingresosAnioAnterior', 'Indique los ingresos del ejercicio anterior, en pesos.');
    if (Number(f.today.slice(0, 4)) <= f.anioFiscal - 1) {
      p('BENEFICIO_206_EJERCICIO_NO_CERRADO', 'anioFiscal', `El ejercicio ${f.anioFiscal - 1} no está cerrado: sus ingresos todavía no se pueden declarar.`);
      return;
    }
    const ui = incomeInUi(f.ingresosAnioAnterior, f.valorUiCierre);
    if (ui === null) return p('BENEFICIO_VALOR_UI_NO_DISPONIBLE', 'ingresosAnioAnterior', `No se obtuvo del BCU el valor de la UI al 31/12/${f.anioFiscal - 1}; intente más tarde.`);
    if (new Decimal(ui).gt(INCOME_CAP_UI)) {
      p('BENEFICIO_206_INGRESOS_SUPERAN_TOPE', 'ingresosAnioAnterior', `Los ingresos del ejercicio anterior equivalen a ${ui} UI, más que el tope de ${INCOME_CAP_UI} UI del Decreto 206/019.`);
    }
  } else if (f.ingresosAnioAnterior !== undefined) {
    p('BENEFICIO_DATO_NO_CORRESPONDE', 'ingresosAnioAnterior', 'Los ingresos del ejercicio anterior solo se declaran con el fundamento ingresos_hasta_750000_ui.');
  }
  if (f.fundamento === 'inicio_actividad') {
    const start = f.fechaInicioActividad ?? f.fechaInicioEmisor;
    if (!start) return p('BENEFICIO_DATO_REQUERIDO', 'fechaInicioActividad', 'Indique la fecha de inicio de actividad.');
    // [I] "starting activity" (BRIEF 12): the start falls in the declared year or the one before, and not in the future.
    const year = Number(start.slice(0, 4));
    if (start > f.today || year < f.anioFiscal - 1 || year > f.anioFiscal) {
      p('BENEFICIO_206_INICIO_FUERA_DE_PLAZO', 'fechaInicioActividad', `El inicio de actividad (${start}) debe estar en el ejercicio ${f.anioFiscal} o el anterior, y no ser futuro.`);
    }
  }
}

function check324(f: DeclarationFacts, out: RuleProblem[]): void {
  const p = (code: RuleCode, campo: string, mensaje: string): void => void out.push({ code, campo, mensaje });
  if (f.fundamento) p('BENEFICIO_DATO_NO_CORRESPONDE', 'fundamento', 'El fundamento corresponde al Decreto 206/019.');
  if (f.ingresosAnioAnterior !== undefined) p('BENEFICIO_DATO_NO_CORRESPONDE', 'ingresosAnioAnterior', 'Los ingresos corresponden al Decreto 206/019.');
  const inversiones = f.inversiones ?? [];
  if (!inversiones.length) return p('BENEFICIO_DATO_REQUERIDO', 'inversiones', 'El Decreto 324/011 requiere al menos una inversión inicial (hardware, software o saas).');
  const start = f.fechaInicioEmisor ?? f.fechaInicioEmisorDeclarada ?? null;
  if (!start) return p('BENEFICIO_FECHA_INICIO_DESCONOCIDA', 'fechaInicioEmisor', 'No se conoce la fecha de inicio como emisor electrónico (ni en el registro de DGI ni en la empresa): indíquela en fechaInicioEmisor.');
  if (f.fechaInicioEmisor && f.fechaInicioEmisorDeclarada && f.fechaInicioEmisorDeclarada !== f.fechaInicioEmisor) {
    p('BENEFICIO_FECHA_INICIO_DISTINTA', 'fechaInicioEmisor', `La fecha declarada (${f.fechaInicioEmisorDeclarada}) no coincide con la conocida (${f.fechaInicioEmisor}).`);
  }
  const from = addMonths(start, -12);
  const to = addMonths(start, 4);
  let saasUsd = new Decimal(0);
  inversiones.forEach((inv, i) => {
    if (inv.fecha < from || inv.fecha > to) {
      p('BENEFICIO_324_INVERSION_FUERA_DE_PLAZO', `inversiones.${i}.fecha`, `La inversión "${inv.descripcion}" (${inv.fecha}) está fuera del plazo: de 12 meses antes a 4 meses después del inicio como emisor (${from} a ${to}).`);
    }
    if (inv.tipo !== 'saas') return;
    if (inv.fecha < SAAS_SINCE) p('BENEFICIO_324_SAAS_ANTES_DE_2015', `inversiones.${i}.fecha`, `El servicio de facturación electrónica (saas) cuenta desde el 17/10/2015; "${inv.descripcion}" es del ${inv.fecha}.`);
    if (inv.moneda === 'USD') saasUsd = saasUsd.plus(inv.montoSinIva);
    else {
      const rate = f.usdRates?.get(inv.fecha);
      if (!rate) return p('BENEFICIO_COTIZACION_NO_DISPONIBLE', `inversiones.${i}.moneda`, `No se obtuvo del BCU la cotización del dólar del ${inv.fecha}; intente más tarde o declare el monto en USD.`);
      saasUsd = saasUsd.plus(new Decimal(inv.montoSinIva).div(rate));
    }
  });
  const cap = f.grandeContribuyente ? SAAS_CAP_USD.large : SAAS_CAP_USD.other;
  if (saasUsd.gt(cap)) {
    p('BENEFICIO_324_SAAS_SUPERA_TOPE', 'inversiones', `El servicio de facturación electrónica suma USD ${saasUsd.toFixed(2)} sin IVA: el tope es USD ${cap} (${f.grandeContribuyente ? 'CEDE o gran contribuyente' : 'demás contribuyentes'}).`);
  }
  const { ejercicios } = exemptionTerms(start);
  const first = Number(start.slice(0, 4));
  if (f.anioFiscal < first || f.anioFiscal >= first + ejercicios) {
    p('BENEFICIO_324_FUERA_DE_PLAZO', 'anioFiscal', `La exoneración se aplica en ${ejercicios} ejercicios desde el inicio como emisor: ${first} a ${first + ejercicios - 1}.`);
  }
}

/** Every broken rule, in the order the fields are read; empty = the declaration may be saved. */
export function declarationProblems(f: DeclarationFacts): RuleProblem[] {
  const out: RuleProblem[] = [];
  if (f.anioFiscal > Number(f.today.slice(0, 4)) + 1) {
    out.push({ code: 'BENEFICIO_ANIO_FISCAL_FUTURO', campo: 'anioFiscal', mensaje: 'Se puede declarar hasta el ejercicio siguiente al actual.' });
  }
  if (f.regimen === 'decreto_206_019') check206(f, out);
  else check324(f, out);
  return out;
}
