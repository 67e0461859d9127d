/**
 * Sent totals are checked, not recalculated (spec 2.3 rule 1; issue 28 point 2): every DGI equation
 * of BRIEF 2.4 (FCFE A-C112..A-C130) that a sent field takes part in is verified against the other
 * sent fields and against the lines; the first broken one is reported with its values. The totals
 * themselves are still written as sent.
 *
 * Tolerance. The Formato states strict equalities and publishes no tolerance (BRIEF 2.4 [I]). Sums
 * of sent 2-decimal amounts involve no rounding and must be exact. Where the client has to round
 * (a VAT amount from its base, a net base from VAT-inclusive lines with MntBruto = 1) one cent per
 * rounding step is accepted: 0.01 for a VAT amount, 0.01 per line of the indicator for a net base.
 */
import { FixedDecimal } from '../../lib/fixed-decimal.ts';
import { getCfeType } from './cfe-types.ts';
import type { Totales } from './cfe.model.ts';
import { computeTotales, IVA_TASA_BASICA, IVA_TASA_MINIMA, type TotalsInput } from './totals.ts';

type Dec = FixedDecimal;
const D = FixedDecimal.from;
const ZERO = FixedDecimal.ZERO;
const CENT = D('0.01');

/** A broken DGI equation: its Formato id, a sentence, and the values compared. */
export class TotalsCheckError extends Error {
  constructor(
    readonly ecuacion: string,
    message: string,
    readonly valores: Record<string, string>,
  ) {
    super(message);
    this.name = 'TotalsCheckError';
  }
}

type AmountField = Exclude<keyof Totales, 'TpoMoneda' | 'CantLinDet' | 'RetencPercep'>;

// Request names (lowerCamel, issued-cfe.schemas.ts) so the message names what the client sent.
const NAME: Record<AmountField, string> = {
  TpoCambio: 'tipoCambio', MntNoGrv: 'mntNoGrv', MntExpoyAsim: 'mntExpoyAsim', MntImpuestoPerc: 'mntImpuestoPerc', MntIVaenSusp: 'mntIVaenSusp',
  MntNetoIvaTasaMin: 'mntNetoIvaTasaMin', MntNetoIVATasaBasica: 'mntNetoIVATasaBasica', MntNetoIVAOtra: 'mntNetoIVAOtra',
  IVATasaMin: 'ivaTasaMin', IVATasaBasica: 'ivaTasaBasica', MntIVATasaMin: 'mntIVATasaMin', MntIVATasaBasica: 'mntIVATasaBasica', MntIVAOtra: 'mntIVAOtra',
  MntTotal: 'mntTotal', MntTotRetenido: 'mntTotRetenido', MntTotCredFisc: 'mntTotCredFisc', MontoNF: 'montoNF', MntPagar: 'mntPagar',
};

const COMPONENTS: AmountField[] = ['MntNoGrv', 'MntExpoyAsim', 'MntImpuestoPerc', 'MntIVaenSusp', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra', 'MntIVATasaMin', 'MntIVATasaBasica', 'MntIVAOtra'];
// Bases DGI computes from the lines with no rounding (A-C112..A-C115, A-C129): exact.
const EXACT_BASES: Array<[AmountField, string]> = [['MntNoGrv', 'A-C112'], ['MntExpoyAsim', 'A-C113'], ['MntImpuestoPerc', 'A-C114'], ['MntIVaenSusp', 'A-C115'], ['MontoNF', 'A-C129']];

const val = (t: Totales, f: AmountField): Dec => (t[f] === undefined ? ZERO : D(t[f]!));
const show = (x: Dec): string => x.toFixed(2);
const abs = (x: Dec): Dec => (x.coefficient < 0n ? x.neg() : x);
const isZero = (x: Dec): boolean => x.coefficient === 0n;
const isPositive = (x: Dec): boolean => x.coefficient > 0n;
const isNegative = (x: Dec): boolean => x.coefficient < 0n;
const within = (a: Dec, b: Dec, tol: Dec): boolean => !isNegative(tol.minus(abs(a.minus(b))));

function fail(ecuacion: string, message: string, valores: Record<string, string>): never {
  throw new TotalsCheckError(ecuacion, `${ecuacion}: ${message}`, valores);
}

// MontoType (≥ 0) in every Totales type of CFEType.xsd, except MntTotal of the e-Remito de exportación (Monto_admite_negType).
const NON_NEGATIVE: AmountField[] = ['MntNoGrv', 'MntImpuestoPerc', 'MntIVaenSusp', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra', 'MntIVATasaMin', 'MntIVATasaBasica', 'MntIVAOtra', 'MntTotal'];

/** The first total the XSD wants ≥ 0 that is negative (computed from lines with negative quantities, or sent), with its request name. */
export function negativeTotal(tipoCfe: number, t: Totales): { campo: string; valor: string } | undefined {
  const { branch } = getCfeType(tipoCfe);
  for (const f of NON_NEGATIVE) {
    if (f === 'MntTotal' && branch === 'eRem_Exp') continue;
    if (t[f] !== undefined && isNegative(D(t[f]!))) return { campo: NAME[f], valor: t[f]! };
  }
  return undefined;
}

/**
 * Checks sent Totales (DGI names, as sent) against each other and against the completed lines.
 * `input` is what computeTotales takes (the items with MontoItem filled).
 */
export function checkSentTotales(sent: Totales, input: TotalsInput): void {
  const { branch } = getCfeType(input.TipoCFE);
  if (branch === 'eRem') {
    const extra = (Object.keys(NAME) as AmountField[]).find((f) => f !== 'TpoCambio' && sent[f] !== undefined);
    if (extra || sent.RetencPercep?.length) fail('A-C126', `un e-Remito no lleva montos en totales (solo la cantidad de líneas); quite ${extra ? NAME[extra] : 'retencPercep'}`, {});
    return;
  }
  const negative = negativeTotal(input.TipoCFE, sent);
  if (negative) fail('MontoType', `${negative.campo} ${negative.valor} es negativo y DGI solo lo admite mayor o igual que 0`, { [negative.campo]: negative.valor });
  // The lines' own totals; IndFact 4's rate is not in the request, so its gross is compared below.
  const lines = computeTotales(input, { tasaOtra: '0' });
  if (branch !== 'eResg') {
    checkRates(sent);
    checkVat(sent);
    checkTotal(sent, branch);
    checkLinesAgainstBases(sent, lines, input);
  }
  checkRetentions(sent, lines);
  if (branch !== 'eResg' && branch !== 'eRem_Exp') checkPagar(sent, branch === 'eBoleta' && input.MntBruto === 2);
}

/** A-C119/A-C120: the rates of Tabla B (10 and 22 %); a base needs its rate (A-C116/A-C117). */
function checkRates(t: Totales): void {
  for (const [rate, expected, base, id] of [['IVATasaMin', IVA_TASA_MINIMA, 'MntNetoIvaTasaMin', 'A-C119'], ['IVATasaBasica', IVA_TASA_BASICA, 'MntNetoIVATasaBasica', 'A-C120']] as const) {
    if (t[rate] !== undefined && !isZero(D(t[rate]!).minus(expected))) {
      fail(id, `${NAME[rate]} es ${t[rate]} y la tasa vigente es ${Number(expected)} (Tabla B)`, { [NAME[rate]]: t[rate]!, esperado: expected });
    }
    if (isPositive(val(t, base)) && t[rate] === undefined) {
      fail(id === 'A-C119' ? 'A-C116' : 'A-C117', `se envió ${NAME[base]} ${t[base]} sin ${NAME[rate]}: una base gravada lleva su tasa`, { [NAME[base]]: t[base]! });
    }
  }
}

/** A-C121 = A-C116 × A-C119, A-C122 = A-C117 × A-C120 (one cent of rounding); A-C118 > 0 ⇔ A-C123 > 0. */
function checkVat(t: Totales): void {
  for (const [vat, base, rate, id] of [['MntIVATasaMin', 'MntNetoIvaTasaMin', 'IVATasaMin', 'A-C121'], ['MntIVATasaBasica', 'MntNetoIVATasaBasica', 'IVATasaBasica', 'A-C122']] as const) {
    if (t[vat] === undefined && t[base] === undefined) continue;
    const expected = val(t, base).times(t[rate] ?? 0).div(100).round(2);
    if (!within(val(t, vat), expected, CENT)) {
      fail(id, `${NAME[vat]} ${t[vat] ?? '(no enviado)'} no es ${NAME[base]} ${t[base] ?? '0'} × ${t[rate] ?? '0'} % = ${show(expected)}`, {
        [NAME[vat]]: t[vat] ?? '0', [NAME[base]]: t[base] ?? '0', [NAME[rate]]: t[rate] ?? '0', esperado: show(expected),
      });
    }
  }
  if (isPositive(val(t, 'MntNetoIVAOtra')) !== isPositive(val(t, 'MntIVAOtra'))) {
    fail('A-C118', `mntNetoIVAOtra (${t.MntNetoIVAOtra ?? 'no enviado'}) y mntIVAOtra (${t.MntIVAOtra ?? 'no enviado'}) van juntos: uno es mayor que 0 si y solo si el otro lo es`, {
      mntNetoIVAOtra: t.MntNetoIVAOtra ?? '0', mntIVAOtra: t.MntIVAOtra ?? '0',
    });
  }
}

/** A-C124 = Σ(A-C112..A-C118) + Σ(A-C121..A-C123), exact. */
function checkTotal(t: Totales, branch: string): void {
  if (t.MntTotal === undefined) fail('A-C124', 'falta mntTotal: con totales enviados el total es obligatorio', {});
  let sum = ZERO;
  const valores: Record<string, string> = {};
  for (const f of COMPONENTS) {
    if (t[f] === undefined) continue;
    sum = sum.plus(t[f]!);
    valores[NAME[f]] = t[f]!;
  }
  if (!isZero(D(t.MntTotal!).minus(sum))) {
    const what = branch === 'eFact_Exp' || branch === 'eRem_Exp' ? 'mntExpoyAsim' : 'la suma de sus componentes';
    fail('A-C124', `mntTotal ${t.MntTotal} no es ${what} = ${show(sum)}`, { mntTotal: t.MntTotal!, ...valores, suma: show(sum) });
  }
}

/**
 * The bases against the lines (A-C112..A-C118, A-C129): a base the lines give must be sent and equal;
 * one they do not give must be 0 or absent. With MntBruto = 1 the net bases allow one cent per line.
 */
function checkLinesAgainstBases(t: Totales, lines: Totales, input: TotalsInput): void {
  for (const [f, id] of EXACT_BASES) compareBase(t, lines, f, id, ZERO);
  const count = new Map<number, number>();
  for (const item of input.Detalle) if (item.IndFact !== undefined) count.set(item.IndFact, (count.get(item.IndFact) ?? 0) + 1);
  const tol = (k: number) => (input.MntBruto === 1 ? CENT.times(count.get(k) ?? 1) : ZERO);
  compareBase(t, lines, 'MntNetoIvaTasaMin', 'A-C116', tol(2));
  compareBase(t, lines, 'MntNetoIVATasaBasica', 'A-C117', tol(3));
  // IndFact 4: with MntBruto = 1 the lines hold net + VAT at a rate the request does not carry.
  const otra = input.MntBruto === 1 ? val(t, 'MntNetoIVAOtra').plus(val(t, 'MntIVAOtra')) : val(t, 'MntNetoIVAOtra');
  const gross = val(lines, 'MntNetoIVAOtra');
  if (!within(otra, gross, tol(4))) {
    const what = input.MntBruto === 1 ? 'mntNetoIVAOtra + mntIVAOtra' : 'mntNetoIVAOtra';
    fail('A-C118', `${what} = ${show(otra)} no coincide con las líneas de indicadorFacturacion 4 = ${show(gross)}`, { [what]: show(otra), lineas: show(gross) });
  }
}

function compareBase(t: Totales, lines: Totales, f: AmountField, id: string, tol: Dec): void {
  const fromLines = val(lines, f);
  if (within(val(t, f), fromLines, tol)) return;
  fail(id, `${NAME[f]} ${t[f] ?? '(no enviado)'} no coincide con el que dan las líneas de detalle = ${show(fromLines)}`, { [NAME[f]]: t[f] ?? '0', lineas: show(fromLines) });
}

/**
 * A-C125/A-C125.1/A-C128: MntTotRetenido and MntTotCredFisc are the sums of RetencPercep (codes 2181xxx
 * are tax credits), and RetencPercep is the lines' retentions per code.
 */
function checkRetentions(t: Totales, lines: Totales): void {
  const list = t.RetencPercep ?? lines.RetencPercep ?? [];
  if (t.RetencPercep && lines.RetencPercep) {
    const byCode = new Map(lines.RetencPercep.map((r) => [r.CodRet, D(r.ValRetPerc)]));
    for (const r of t.RetencPercep) {
      const fromLines = byCode.get(r.CodRet) ?? ZERO;
      if (!isZero(D(r.ValRetPerc).minus(fromLines))) {
        fail('A-C128', `retencPercep ${r.CodRet}: ${r.ValRetPerc} no es la suma de las líneas = ${show(fromLines)}`, { codRet: r.CodRet, valRetPerc: r.ValRetPerc, lineas: show(fromLines) });
      }
    }
  }
  let retenido = ZERO;
  let cred = ZERO;
  for (const r of list) if (r.CodRet.startsWith('2181')) cred = cred.plus(r.ValRetPerc); else retenido = retenido.plus(r.ValRetPerc);
  for (const [f, expected, id] of [['MntTotRetenido', retenido, 'A-C125'], ['MntTotCredFisc', cred, 'A-C125.1']] as const) {
    if (!isZero(val(t, f).minus(expected))) {
      fail(id, `${NAME[f]} ${t[f] ?? '(no enviado)'} no es la suma de las retenciones/percepciones = ${show(expected)}`, { [NAME[f]]: t[f] ?? '0', suma: show(expected) });
    }
  }
}

/** A-C130 = A-C124 + A-C125 + A-C129 (e-Boleta with MntBruto 2: A-C124 − A-C125 + A-C129); a negative sum may be sent as 0. */
function checkPagar(t: Totales, boletaNeto: boolean): void {
  if (t.MntPagar === undefined) fail('A-C130', 'falta mntPagar: con totales enviados el monto a pagar es obligatorio', {});
  const ret = val(t, 'MntTotRetenido');
  const expected = val(t, 'MntTotal').plus(boletaNeto ? ret.neg() : ret).plus(val(t, 'MontoNF'));
  const pagar = D(t.MntPagar!);
  if (isZero(pagar.minus(expected)) || (isNegative(expected) && isZero(pagar))) return;
  fail('A-C130', `mntPagar ${t.MntPagar} no es mntTotal ${boletaNeto ? '−' : '+'} mntTotRetenido + montoNF = ${show(expected)}`, {
    mntPagar: t.MntPagar!, mntTotal: t.MntTotal ?? '0', mntTotRetenido: t.MntTotRetenido ?? '0', montoNF: t.MontoNF ?? '0', esperado: show(expected),
  });
}
