import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DRG_Item, Item } from './cfe.model.ts';
import { TotalsError, computeMontoItem, computeTotales, completeItem } from './totals.ts';

let line = 0;
function item(IndFact: number | undefined, Cantidad: string, PrecioUnitario: string, extra: Partial<Item> = {}): Item {
  line += 1;
  return { NroLinDet: line, IndFact, NomItem: `Item ${line}`, Cantidad, UniMed: 'N/A', PrecioUnitario, ...extra };
}
function drg(TpoMovDR: 'D' | 'R', IndFactDR: number, ValorDR: string, TpoDR: 1 | 2 = 1): DRG_Item {
  return { NroLinDR: 1, TpoMovDR, TpoDR, GlosaDR: 'x', ValorDR, IndFactDR };
}

describe('computeTotales', () => {
  it('reproduces DGI worked example (sample envelope CFE 1, e-Ticket MntBruto=1) exactly', () => {
    const t = computeTotales({
      TipoCFE: 101,
      MntBruto: 1,
      TpoMoneda: 'UYU',
      Detalle: [item(3, '40', '4200'), item(2, '18', '22'), item(1, '12', '35')],
    });
    assert.deepEqual(t, {
      TpoMoneda: 'UYU',
      MntNoGrv: '420.00',
      MntNetoIvaTasaMin: '360.00',
      MntNetoIVATasaBasica: '137704.92',
      IVATasaMin: '10.000',
      IVATasaBasica: '22.000',
      MntIVATasaMin: '36.00',
      MntIVATasaBasica: '30295.08',
      MntTotal: '168816.00',
      CantLinDet: 3,
      MntPagar: '168816.00',
    });
  });

  it('sample CFE 4 (e-Factura with MontoNF, MntBruto absent = net prices)', () => {
    const t = computeTotales({ TipoCFE: 111, Detalle: [item(3, '10', '1000'), item(3, '5', '2000'), item(6, '1', '5000')] });
    assert.equal(t.MntNetoIVATasaBasica, '20000.00');
    assert.equal(t.MntIVATasaBasica, '4400.00');
    assert.equal(t.MntTotal, '24400.00');
    assert.equal(t.MontoNF, '5000.00');
    assert.equal(t.MntPagar, '29400.00');
  });

  it('MntBruto=2: amounts are net, VAT added on top', () => {
    const t = computeTotales({ TipoCFE: 111, MntBruto: 2, Detalle: [item(3, '1', '100'), item(2, '1', '100')] });
    assert.equal(t.MntNetoIVATasaBasica, '100.00');
    assert.equal(t.MntIVATasaBasica, '22.00');
    assert.equal(t.MntNetoIvaTasaMin, '100.00');
    assert.equal(t.MntIVATasaMin, '10.00');
    assert.equal(t.MntTotal, '232.00');
  });

  it('MntBruto=3: IVA mínimo seller uses IndFact 16 (MntNoGrv) and rejects taxed indicators', () => {
    const t = computeTotales({ TipoCFE: 101, MntBruto: 3, Detalle: [item(16, '2', '50')] });
    assert.equal(t.MntNoGrv, '100.00');
    assert.equal(t.MntTotal, '100.00');
    assert.throws(() => computeTotales({ TipoCFE: 101, MntBruto: 3, Detalle: [item(3, '1', '1')] }), TotalsError);
  });

  it('each indicator lands in its own total (1, 10, 11, 12, 16)', () => {
    const t = computeTotales({
      TipoCFE: 111,
      Detalle: [item(1, '1', '10'), item(10, '1', '20'), item(11, '1', '30'), item(12, '1', '40'), item(16, '1', '5')],
    });
    assert.equal(t.MntNoGrv, '15.00');
    assert.equal(t.MntExpoyAsim, '20.00');
    assert.equal(t.MntImpuestoPerc, '30.00');
    assert.equal(t.MntIVaenSusp, '40.00');
    assert.equal(t.MntTotal, '105.00');
    assert.equal(t.MntNetoIvaTasaMin, undefined);
  });

  it('IndFact 4 (otra tasa) needs the rate and computes MntIVAOtra', () => {
    const detalle = [item(4, '1', '1000')];
    assert.throws(() => computeTotales({ TipoCFE: 111, Detalle: detalle }), TotalsError);
    const t = computeTotales({ TipoCFE: 111, Detalle: detalle }, { tasaOtra: '5' });
    assert.equal(t.MntNetoIVAOtra, '1000.00');
    assert.equal(t.MntIVAOtra, '50.00');
    assert.equal(t.MntTotal, '1050.00');
  });

  it('IndFact 5 (entrega gratuita) has MontoItem 0', () => {
    assert.equal(computeMontoItem(item(5, '3', '0')), '0.00');
    const t = computeTotales({ TipoCFE: 101, MntBruto: 1, Detalle: [item(3, '1', '122'), item(5, '1', '0', { MontoItem: '0' })] });
    assert.equal(t.MntTotal, '122.00');
  });

  it('MontoNF: indicator 7 is negative, with global discounts/surcharges on 6 and 7', () => {
    const t = computeTotales({
      TipoCFE: 111,
      Detalle: [item(3, '1', '100'), item(6, '1', '500'), item(7, '1', '200')],
      DscRcgGlobal: [drg('D', 6, '50'), drg('R', 7, '20')],
    });
    // (500 − 50) − (200 + 20) = 230
    assert.equal(t.MontoNF, '230.00');
    assert.equal(t.MntPagar, '352.00');
  });

  it('MontoNF may be negative and MntPagar follows', () => {
    const t = computeTotales({ TipoCFE: 111, Detalle: [item(3, '1', '100'), item(7, '1', '300')] });
    assert.equal(t.MontoNF, '-300.00');
    assert.equal(t.MntPagar, '-178.00');
  });

  it('global discount (amount and %) reduces the VAT base before dividing by 1+rate', () => {
    const t = computeTotales({
      TipoCFE: 101,
      MntBruto: 1,
      Detalle: [item(3, '1', '1220'), item(2, '1', '110')],
      DscRcgGlobal: [drg('D', 3, '122'), drg('D', 2, '10', 2)],
    });
    assert.equal(t.MntNetoIVATasaBasica, '900.00');
    assert.equal(t.MntIVATasaBasica, '198.00');
    assert.equal(t.MntNetoIvaTasaMin, '90.00');
    assert.equal(t.MntIVATasaMin, '9.00');
    assert.equal(t.MntTotal, '1197.00');
  });

  it('global surcharge adds to the base', () => {
    const t = computeTotales({ TipoCFE: 111, Detalle: [item(1, '1', '100')], DscRcgGlobal: [drg('R', 1, '5.5')] });
    assert.equal(t.MntNoGrv, '105.50');
  });

  it('line discounts and surcharges: MontoItem = qty × price − DescuentoMonto + RecargoMnt (B-C24)', () => {
    assert.equal(computeMontoItem(item(3, '2.5', '10.123456', { DescuentoMonto: '1.30', RecargoMnt: '0.05' })), '24.06');
    const completed = completeItem(item(3, '2', '50', { DescuentoPct: '10' }));
    assert.equal(completed.DescuentoMonto, '10.00');
    assert.equal(completed.MontoItem, '90.00');
  });

  it('rounds half-up once per total, not per line', () => {
    // 3 × 0.005 per line would round each to 0.01 (0.03); the total 0.015 rounds to 0.02
    const t = computeTotales({ TipoCFE: 111, Detalle: [item(1, '1', '0.005', { MontoItem: '0.005' }), item(1, '1', '0.01', { MontoItem: '0.01' })] });
    assert.equal(t.MntNoGrv, '0.02');
  });

  it('retentions vs tax credits (2181xxx) and MntPagar = MntTotal + MntTotRetenido + MontoNF', () => {
    const t = computeTotales({
      TipoCFE: 111,
      Detalle: [
        item(3, '1', '1000', { IndAgenteResp: 'R', RetencPercep: [{ CodRet: '2183211', ValRetPerc: '60' }] }),
        item(3, '1', '1000', {
          IndAgenteResp: 'R',
          RetencPercep: [
            { CodRet: '2183211', ValRetPerc: '40' },
            { CodRet: '2181101', ValRetPerc: '15' },
          ],
        }),
      ],
    });
    assert.deepEqual(t.RetencPercep, [
      { CodRet: '2183211', ValRetPerc: '100.00' },
      { CodRet: '2181101', ValRetPerc: '15.00' },
    ]);
    assert.equal(t.MntTotRetenido, '100.00');
    assert.equal(t.MntTotCredFisc, '15.00');
    assert.equal(t.MntTotal, '2440.00');
    assert.equal(t.MntPagar, '2540.00');
  });

  it('e-Resguardo: MntTotRetenido from item retentions, IndFact 9 lines subtract', () => {
    const t = computeTotales({
      TipoCFE: 182,
      Detalle: [
        { NroLinDet: 1, RetencPercep: [{ CodRet: '2183165', Tasa: '50', MntSujetoaRet: '22000', ValRetPerc: '11000' }] },
        { NroLinDet: 2, RetencPercep: [{ CodRet: '2183165', Tasa: '50', MntSujetoaRet: '88000', ValRetPerc: '44000' }] },
        { NroLinDet: 3, IndFact: 9, RetencPercep: [{ CodRet: '2183165', MntSujetoaRet: '2000', ValRetPerc: '1000' }] },
      ],
    });
    assert.deepEqual(t, {
      TpoMoneda: 'UYU',
      MntTotRetenido: '54000.00',
      CantLinDet: 3,
      RetencPercep: [{ CodRet: '2183165', ValRetPerc: '54000.00' }],
    });
  });

  it('e-Remito: only CantLinDet', () => {
    assert.deepEqual(computeTotales({ TipoCFE: 181, Detalle: [{ NroLinDet: 1, NomItem: 'x', Cantidad: '1', UniMed: 'kg' }] }), { CantLinDet: 1 });
  });

  it('e-Remito de Exportación: MntExpoyAsim = items − items to deduct (IndFact 8)', () => {
    const t = computeTotales({ TipoCFE: 124, TpoMoneda: 'USD', TpoCambio: '40', Detalle: [item(undefined, '2', '100'), item(8, '1', '30')] });
    assert.equal(t.MntExpoyAsim, '170.00');
    assert.equal(t.MntTotal, '170.00');
  });

  it('e-Factura de Exportación: MntExpoyAsim = MntTotal, plus MontoNF', () => {
    const t = computeTotales({ TipoCFE: 121, TpoMoneda: 'USD', TpoCambio: '39.5', Detalle: [item(10, '3', '100'), item(6, '1', '10')] });
    assert.equal(t.MntExpoyAsim, '300.00');
    assert.equal(t.MntTotal, '300.00');
    assert.equal(t.MontoNF, '10.00');
    assert.equal(t.MntPagar, '310.00');
    assert.throws(() => computeTotales({ TipoCFE: 121, TpoMoneda: 'USD', Detalle: [item(10, '1', '1')] }), TotalsError);
  });

  it('e-Boleta: indicators 13/14/15/17 → MntNoGrv, 12 → MntIVaenSusp; MntBruto=2 subtracts retentions', () => {
    const detalle = [
      item(13, '1', '100'),
      item(14, '1', '50'),
      item(15, '1', '25', { RetencPercep: [{ CodRet: '2183111', ValRetPerc: '5' }] }),
      item(17, '1', '10'),
      item(12, '1', '40'),
    ];
    const t = computeTotales({ TipoCFE: 151, MntBruto: 2, Detalle: detalle });
    assert.equal(t.MntNoGrv, '185.00');
    assert.equal(t.MntIVaenSusp, '40.00');
    assert.equal(t.MntTotal, '225.00');
    assert.equal(t.MntTotRetenido, '5.00');
    assert.equal(t.MntPagar, '220.00');
    assert.equal(computeTotales({ TipoCFE: 151, Detalle: detalle }).MntPagar, '230.00');
  });

  it('rejects indicators not allowed in the branch, and too many lines', () => {
    assert.throws(() => computeTotales({ TipoCFE: 121, TpoMoneda: 'USD', TpoCambio: '1', Detalle: [item(3, '1', '1')] }), /no se admite en un/);
    assert.throws(() => computeTotales({ TipoCFE: 151, Detalle: [item(1, '1', '1')] }), /no se admite en un/);
    const many = Array.from({ length: 201 }, () => item(3, '1', '1'));
    assert.throws(() => computeTotales({ TipoCFE: 111, Detalle: many }), /de 1 a 200 líneas/);
    assert.doesNotThrow(() => computeTotales({ TipoCFE: 101, Detalle: many }));
  });

  it('IndCobPropia=1 allows only 6/7 and always emits MontoNF', () => {
    const t = computeTotales({ TipoCFE: 111, IndCobPropia: 1, Detalle: [item(6, '1', '80')] });
    assert.equal(t.MontoNF, '80.00');
    assert.equal(t.MntPagar, '80.00');
    assert.throws(() => computeTotales({ TipoCFE: 111, IndCobPropia: 1, Detalle: [item(3, '1', '1')] }), TotalsError);
  });
});
