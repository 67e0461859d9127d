import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Item, Totales } from './cfe.model.ts';
import { checkSentTotales, TotalsCheckError } from './totals-check.ts';
import { completeItem, type TotalsInput } from './totals.ts';

let line = 0;
function item(IndFact: number, Cantidad: string, PrecioUnitario: string, extra: Partial<Item> = {}): Item {
  line += 1;
  return completeItem({ NroLinDet: line, IndFact, NomItem: `Item ${line}`, Cantidad, UniMed: 'N/A', PrecioUnitario, ...extra });
}

// DGI's sample e-Ticket with MntBruto = 1 (BRIEF 2.4 worked example).
const SAMPLE_INPUT: TotalsInput = { TipoCFE: 101, MntBruto: 1, TpoMoneda: 'UYU', Detalle: [item(3, '40', '4200'), item(2, '18', '22'), item(1, '12', '35')] };
const SAMPLE: Totales = {
  TpoMoneda: 'UYU', MntNoGrv: '420', MntNetoIvaTasaMin: '360', MntNetoIVATasaBasica: '137704.92', IVATasaMin: '10', IVATasaBasica: '22',
  MntIVATasaMin: '36', MntIVATasaBasica: '30295.08', MntTotal: '168816', CantLinDet: 3, MntPagar: '168816',
};

function broken(sent: Partial<Totales>, input: TotalsInput = SAMPLE_INPUT): TotalsCheckError {
  const t = { ...SAMPLE, ...sent } as Totales;
  for (const k of Object.keys(t) as Array<keyof Totales>) if (t[k] === undefined) delete t[k];
  try {
    checkSentTotales(t, input);
  } catch (err) {
    if (err instanceof TotalsCheckError) return err;
    throw err;
  }
  assert.fail(`accepted ${JSON.stringify(sent)}`);
}

describe('checkSentTotales: the equations hold', () => {
  it('accepts DGI sample totals (minimal representations, MntBruto = 1)', () => {
    checkSentTotales(SAMPLE, SAMPLE_INPUT);
  });

  it('accepts a VAT amount one cent off (the client rounded elsewhere) and a net base one cent per line off with MntBruto = 1', () => {
    checkSentTotales({ ...SAMPLE, MntIVATasaBasica: '30295.09', MntTotal: '168816.01', MntPagar: '168816.01' }, SAMPLE_INPUT);
    checkSentTotales({ ...SAMPLE, MntNetoIVATasaBasica: '137704.93', MntIVATasaBasica: '30295.08', MntTotal: '168816.01', MntPagar: '168816.01' }, SAMPLE_INPUT);
  });

  it('accepts a negative MntPagar sent as 0 (A-C130)', () => {
    const input: TotalsInput = { TipoCFE: 111, Detalle: [item(6, '1', '10'), item(7, '1', '50')] };
    checkSentTotales({ TpoMoneda: 'UYU', MntTotal: '0', MontoNF: '-40', CantLinDet: 2, MntPagar: '0' }, input);
    checkSentTotales({ TpoMoneda: 'UYU', MntTotal: '0', MontoNF: '-40', CantLinDet: 2, MntPagar: '-40' }, input);
  });
});

describe('checkSentTotales: each broken equation is named with its values', () => {
  it('A-C124: MntTotal is not the sum of the components (the issue: 999.99 over 534.31)', () => {
    const e = broken({ MntTotal: '999.99', MntPagar: '999.99' });
    assert.equal(e.ecuacion, 'A-C124');
    assert.equal(e.valores.mntTotal, '999.99');
    assert.equal(e.valores.suma, '168816.00');
  });

  it('A-C124: only mntTotal and mntPagar sent over taxed lines', () => {
    const e = broken({ MntNoGrv: undefined, MntNetoIvaTasaMin: undefined, MntNetoIVATasaBasica: undefined, MntIVATasaMin: undefined, MntIVATasaBasica: undefined, MntTotal: '1.22', MntPagar: '1.22' });
    assert.equal(e.ecuacion, 'A-C124');
  });

  it('A-C121 / A-C122: a VAT amount against its base and rate', () => {
    assert.equal(broken({ MntIVATasaMin: '36.02', MntTotal: '168816.02', MntPagar: '168816.02' }).ecuacion, 'A-C121');
    const e = broken({ MntIVATasaBasica: '30000', MntTotal: '168520.92', MntPagar: '168520.92' });
    assert.equal(e.ecuacion, 'A-C122');
    assert.equal(e.valores.esperado, '30295.08');
  });

  it('A-C116 / A-C117: a base without its rate', () => {
    assert.equal(broken({ IVATasaMin: undefined }).ecuacion, 'A-C116');
    assert.equal(broken({ IVATasaBasica: undefined }).ecuacion, 'A-C117');
  });

  it('A-C121: a VAT amount without its base (the reverse)', () => {
    const e = broken({ MntNetoIvaTasaMin: undefined, MntTotal: '168456', MntPagar: '168456' });
    assert.equal(e.ecuacion, 'A-C121');
  });

  it('A-C119 / A-C120: a rate other than Tabla B', () => {
    assert.equal(broken({ IVATasaMin: '9' }).ecuacion, 'A-C119');
    assert.equal(broken({ IVATasaBasica: '23' }).ecuacion, 'A-C120');
  });

  it('A-C118: MntNetoIVAOtra and MntIVAOtra go together', () => {
    assert.equal(broken({ MntNetoIVAOtra: '100', MntTotal: '168916', MntPagar: '168916' }).ecuacion, 'A-C118');
  });

  it('A-C112 / A-C116 / A-C117: the lines against the bases', () => {
    assert.equal(broken({ MntNoGrv: '421', MntTotal: '168817', MntPagar: '168817' }).ecuacion, 'A-C112');
    assert.equal(broken({ MntNetoIvaTasaMin: '370', MntIVATasaMin: '37', MntTotal: '168827', MntPagar: '168827' }).ecuacion, 'A-C116');
    const e = broken({ MntNetoIVATasaBasica: '137704.95', MntIVATasaBasica: '30295.09', MntTotal: '168816.04', MntPagar: '168816.04' });
    assert.equal(e.ecuacion, 'A-C117');
    assert.equal(e.valores.lineas, '137704.92');
  });

  it('A-C118: IndFact 4 lines against mntNetoIVAOtra (+ mntIVAOtra with MntBruto = 1)', () => {
    const input: TotalsInput = { TipoCFE: 111, Detalle: [item(4, '1', '100')] };
    checkSentTotales({ TpoMoneda: 'UYU', MntNetoIVAOtra: '100', MntIVAOtra: '5', MntTotal: '105', CantLinDet: 1, MntPagar: '105' }, input);
    assert.throws(() => checkSentTotales({ TpoMoneda: 'UYU', MntNetoIVAOtra: '90', MntIVAOtra: '5', MntTotal: '95', CantLinDet: 1, MntPagar: '95' }, input), (e: TotalsCheckError) => e.ecuacion === 'A-C118');
    const gross: TotalsInput = { TipoCFE: 111, MntBruto: 1, Detalle: [item(4, '1', '105')] };
    checkSentTotales({ TpoMoneda: 'UYU', MntNetoIVAOtra: '100', MntIVAOtra: '5', MntTotal: '105', CantLinDet: 1, MntPagar: '105' }, gross);
  });

  it('A-C129: MontoNF against the lines of indicators 6 and 7', () => {
    const input: TotalsInput = { TipoCFE: 111, Detalle: [item(3, '1', '100'), item(6, '1', '10')] };
    const ok: Totales = { TpoMoneda: 'UYU', MntNetoIVATasaBasica: '100', IVATasaBasica: '22', MntIVATasaBasica: '22', MntTotal: '122', MontoNF: '10', CantLinDet: 2, MntPagar: '132' };
    checkSentTotales(ok, input);
    assert.throws(() => checkSentTotales({ ...ok, MontoNF: '11', MntPagar: '133' }, input), (e: TotalsCheckError) => e.ecuacion === 'A-C129');
  });

  it('A-C130: MntPagar', () => {
    const e = broken({ MntPagar: '168817' });
    assert.equal(e.ecuacion, 'A-C130');
    assert.equal(e.valores.esperado, '168816.00');
    assert.equal(broken({ MntPagar: undefined }).ecuacion, 'A-C130');
  });

  it('A-C125 / A-C128: retentions against MntTotRetenido and the lines', () => {
    const input: TotalsInput = { TipoCFE: 111, Detalle: [item(3, '1', '100', { RetencPercep: [{ CodRet: '2183211', ValRetPerc: '7' }] })] };
    const ok: Totales = { TpoMoneda: 'UYU', MntNetoIVATasaBasica: '100', IVATasaBasica: '22', MntIVATasaBasica: '22', MntTotal: '122', MntTotRetenido: '7', CantLinDet: 1, RetencPercep: [{ CodRet: '2183211', ValRetPerc: '7' }], MntPagar: '129' };
    checkSentTotales(ok, input);
    assert.throws(() => checkSentTotales({ ...ok, MntTotRetenido: '8', MntPagar: '130' }, input), (e: TotalsCheckError) => e.ecuacion === 'A-C125');
    assert.throws(() => checkSentTotales({ ...ok, MntTotRetenido: '8', RetencPercep: [{ CodRet: '2183211', ValRetPerc: '8' }], MntPagar: '130' }, input), (e: TotalsCheckError) => e.ecuacion === 'A-C128');
  });

  it('other branches: export invoice (A-C124 = MntExpoyAsim), e-Boleta with MntBruto 2 (A-C130 subtracts retentions), e-Resguardo (A-C125)', () => {
    const expo: TotalsInput = { TipoCFE: 121, TpoMoneda: 'USD', TpoCambio: '40', Detalle: [item(10, '5', '3')] };
    checkSentTotales({ TpoMoneda: 'USD', TpoCambio: '40', MntExpoyAsim: '15', MntTotal: '15', CantLinDet: 1, MntPagar: '15' }, expo);
    assert.throws(() => checkSentTotales({ TpoMoneda: 'USD', TpoCambio: '40', MntExpoyAsim: '15', MntTotal: '16', CantLinDet: 1, MntPagar: '16' }, expo), (e: TotalsCheckError) => e.ecuacion === 'A-C124');
    const boleta: TotalsInput = { TipoCFE: 151, MntBruto: 2, Detalle: [item(13, '1', '100', { RetencPercep: [{ CodRet: '2183211', ValRetPerc: '2' }] })] };
    checkSentTotales({ TpoMoneda: 'UYU', MntNoGrv: '100', MntTotal: '100', MntTotRetenido: '2', CantLinDet: 1, RetencPercep: [{ CodRet: '2183211', ValRetPerc: '2' }], MntPagar: '98' }, boleta);
    assert.throws(() => checkSentTotales({ TpoMoneda: 'UYU', MntNoGrv: '100', MntTotal: '100', MntTotRetenido: '2', CantLinDet: 1, RetencPercep: [{ CodRet: '2183211', ValRetPerc: '2' }], MntPagar: '102' }, boleta), (e: TotalsCheckError) => e.ecuacion === 'A-C130');
    const resg: TotalsInput = { TipoCFE: 182, Detalle: [{ NroLinDet: 1, RetencPercep: [{ CodRet: '2183165', ValRetPerc: '11000' }] }] };
    checkSentTotales({ TpoMoneda: 'UYU', MntTotRetenido: '11000', CantLinDet: 1, RetencPercep: [{ CodRet: '2183165', ValRetPerc: '11000' }] }, resg);
    assert.throws(() => checkSentTotales({ TpoMoneda: 'UYU', MntTotRetenido: '1000', CantLinDet: 1, RetencPercep: [{ CodRet: '2183165', ValRetPerc: '11000' }] }, resg), (e: TotalsCheckError) => e.ecuacion === 'A-C125');
  });

  it('A-C126: an e-Remito carries no amounts', () => {
    assert.throws(() => checkSentTotales({ MntTotal: '1', CantLinDet: 1 }, { TipoCFE: 181, Detalle: [{ NroLinDet: 1, NomItem: 'x', Cantidad: '1', UniMed: 'N/A' }] }), (e: TotalsCheckError) => e.ecuacion === 'A-C126');
  });
});
