/**
 * DGI's rules for the data of a CAE (BRIEF 10, FCAE; CAEType.xsd), checked the same way for a
 * typed-in (manual) CAE and for the contents of a file. Pure.
 */
import { isCalendarDate } from '../../lib/dates.js';
import { CFE_TYPE_CODES } from '../emission/cfe-types.js';

/** CAEType.xsd DNro/HNro are NroCFEType: at most 7 digits (DGITypes.xsd). */
export const MAX_CFE_NUMBER = 9_999_999;
/** BRIEF 10: at most 1,000,000 numbers per CAE request. */
export const MAX_CAE_QUANTITY = 1_000_000;
/** BRIEF 10: a CAE is valid 24 months from FA (or less for special due dates), never more. */
export const CAE_VALIDITY_YEARS = 2;

export interface CaeRuleInput {
  tipoCfe: number;
  dNro: number;
  hNro: number;
  fa: string;
  fvd: string;
}

export type CaeRuleProblem = { code: 'CAE_TIPO_INVALIDO' | 'CAE_RANGO_INVALIDO'; message: string };

/** Same day `years` later (29 Feb → 1 Mar). */
function addYears(ymd: string, years: number): string {
  const d = new Date(`${ymd}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
}

/** Every rule the data breaks; `today` is the date in Uruguay. */
export function caeRuleProblems(d: CaeRuleInput, today: string): CaeRuleProblem[] {
  const out: CaeRuleProblem[] = [];
  // BRIEF 1 and 10: a CAE (constancia type E) authorizes electronic types only; paper contingency
  // ranges (2xx, constancia type F) are registered with altaCfc.
  if (!CFE_TYPE_CODES.includes(d.tipoCfe)) {
    out.push({ code: 'CAE_TIPO_INVALIDO', message: `El tipo ${d.tipoCfe} no es un tipo de CFE electrónico (101-103, 111-113, 121-124, 131-133, 141-143, 151-153, 181, 182); los rangos de contingencia (2xx) se registran con altaCfc.` });
  }
  const range = (m: string) => out.push({ code: 'CAE_RANGO_INVALIDO', message: m });
  if (!Number.isInteger(d.dNro) || !Number.isInteger(d.hNro) || d.dNro < 1 || d.hNro < d.dNro || d.hNro > MAX_CFE_NUMBER) {
    range(`Rango inválido: DNro ${d.dNro}, HNro ${d.hNro} (1 ≤ DNro ≤ HNro ≤ ${MAX_CFE_NUMBER}).`);
  } else if (d.hNro - d.dNro + 1 > MAX_CAE_QUANTITY) {
    range(`El rango tiene ${d.hNro - d.dNro + 1} números; DGI autoriza como máximo ${MAX_CAE_QUANTITY} por CAE.`);
  }
  if (!isCalendarDate(d.fa) || !isCalendarDate(d.fvd)) {
    range(`Fechas inválidas: FA ${d.fa}, FVD ${d.fvd}.`);
    return out;
  }
  if (d.fvd < d.fa) range(`La fecha de vencimiento (FVD ${d.fvd}) es anterior a la de autorización (FA ${d.fa}).`);
  const limit = addYears(d.fa, CAE_VALIDITY_YEARS);
  if (d.fvd > limit) range(`Un CAE vence a lo sumo ${CAE_VALIDITY_YEARS * 12} meses después de autorizado: FVD ${d.fvd} es posterior a ${limit}.`);
  if (d.fa > today) range(`La fecha de autorización (FA ${d.fa}) es posterior a hoy (${today}).`);
  return out;
}
