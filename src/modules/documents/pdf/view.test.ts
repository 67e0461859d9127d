import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleCfe } from '../../emission/index.ts';
import { creditNote, exportInvoice, oneLineInvoice } from './sample-receipts.ts';
import { buildCfeView, mentionsIva } from './view.ts';

const digestValue = 'dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=';

describe('buildCfeView', () => {
  it('receiver box label per CFE type (BRIEF 4)', () => {
    assert.equal(buildCfeView({ cfe: sampleCfe(101), digestValue }).receptor.label, 'CONSUMO FINAL');
    assert.equal(buildCfeView({ cfe: sampleCfe(111), digestValue }).receptor.label, 'RUC COMPRADOR');
    const boleta = sampleCfe(151);
    assert.equal(buildCfeView({ cfe: boleta, digestValue }).receptor.label, 'C.I. VENDEDOR');
    const rucSeller = { ...boleta, Receptor: { ...boleta.Receptor, TipoDocRecep: 2, DocRecep: '214844360018' } };
    assert.equal(buildCfeView({ cfe: rucSeller, digestValue }).receptor.label, 'RUC VENDEDOR');
    const withCi = sampleCfe(101);
    withCi.Receptor = { TipoDocRecep: 3, CodPaisRecep: 'UY', DocRecep: '13353214' };
    assert.deepEqual(buildCfeView({ cfe: withCi, digestValue }).receptor, { label: 'C.I. COMPRADOR', documento: '13353214', lines: [] });
  });

  it('a reference prints type, number, date, the Formato v25 amount with its currency and rate, and the reason', () => {
    const nc = sampleCfe(112);
    nc.Referencia = [{ NroLinRef: 1, TpoDocRef: 121, Serie: 'A', NroCFERef: 7, FechaCFEref: '2026-07-01', MntCFEref: '100.00', TpoMonedaRef: 'USD', TpoCambioRef: '39.500', RazonRef: 'Devolución' }];
    const [line] = buildCfeView({ cfe: nc, digestValue }).referencias;
    assert.match(line, /^Ref\.: .+ A-7 del 01\/07\/2026 por U\$S 100,00 \(T\/C 39\.500\) - Devolución$/);
  });

  it('IVA is not mentioned for IVA-mínimo / Monotributo issuers', () => {
    const cfe = sampleCfe(101);
    assert.equal(mentionsIva(cfe), true);
    for (const CAEEspecial of [2, 3, 4] as const) assert.equal(mentionsIva({ ...cfe, CAEData: { ...cfe.CAEData, CAEEspecial } }), false);
    assert.equal(mentionsIva({ ...cfe, IdDoc: { ...cfe.IdDoc, MntBruto: 3 } }), false);
    const v = buildCfeView({ cfe: { ...cfe, CAEData: { ...cfe.CAEData, CAEEspecial: 3 } }, digestValue });
    assert.ok(!v.legends.some((l) => l.includes('IVA')));
    assert.ok(!v.totals.some((t) => t.label.includes('IVA')));
  });

  it('IVAalDia present means NOT up to date: no "IVA al día" legend', () => {
    const cfe = sampleCfe(111);
    assert.ok(buildCfeView({ cfe, digestValue }).legends.includes('IVA al día'));
    const late = { ...cfe, IdDoc: { ...cfe.IdDoc, IVAalDia: 1 } };
    assert.ok(!buildCfeView({ cfe: late, digestValue }).legends.includes('IVA al día'));
  });

  it('legend: the company website only on e-Tickets', () => {
    const site = 'www.demo.com.uy/cfe';
    assert.equal(buildCfeView({ cfe: sampleCfe(101), digestValue, sitioWebVerificacion: site }).legends[0], `Puede verificar comprobante en ${site}`);
    assert.equal(buildCfeView({ cfe: sampleCfe(101), digestValue }).legends[0], 'Puede verificar comprobante en www.dgi.gub.uy');
    assert.equal(buildCfeView({ cfe: sampleCfe(111), digestValue, sitioWebVerificacion: site }).legends[0], 'Puede verificar comprobante en www.dgi.gub.uy');
  });

  it('legend: the buyers\' public page (issue 47) on every type, once on e-Tickets when it is also the verification site', () => {
    const page = 'facturas.example.uy/consulta/219999830019';
    assert.deepEqual(buildCfeView({ cfe: sampleCfe(101), digestValue, sitioWebVerificacion: page, urlConsulta: page }).legends.slice(0, 1), [`Puede verificar y obtener este comprobante (PDF y XML) en ${page}`]);
    assert.deepEqual(buildCfeView({ cfe: sampleCfe(111), digestValue, urlConsulta: page }).legends.slice(0, 2), ['Puede verificar comprobante en www.dgi.gub.uy', `Obtenga este comprobante (PDF y XML) en ${page}`]);
    assert.deepEqual(buildCfeView({ cfe: sampleCfe(101), digestValue, sitioWebVerificacion: 'www.demo.com.uy/cfe', urlConsulta: page }).legends.slice(0, 2), ['Puede verificar comprobante en www.demo.com.uy/cfe', `Obtenga este comprobante (PDF y XML) en ${page}`]);
  });

  it('non-billable negative items (IndFact 7) print their sign; QR URL and security code', () => {
    const cfe = sampleCfe(101);
    cfe.Detalle = [{ ...cfe.Detalle[0], IndFact: 7, MontoItem: '50' }];
    const v = buildCfeView({ cfe, digestValue });
    assert.equal(v.lines[0].importe, '$ -50,00');
    assert.equal(v.securityCode, 'dpmLMf');
    assert.match(v.qrUrl ?? '', /^https:\/\/www\.efactura\.dgi\.gub\.uy\/consultaQR\/cfe\?219999830019,101,A,1,/);
    assert.equal(buildCfeView({ cfe, digestValue, qrUrl: 'https://example.test/qr' }).qrUrl, 'https://example.test/qr');
  });

  it('the payment due date comes from IdDoc FchVenc only (never the CAE expiry); code and unit from CodItem and UniMed', () => {
    const v = buildCfeView({ cfe: oneLineInvoice(), digestValue });
    assert.equal(v.vencimiento, '07/08/2026');
    assert.equal(v.cae.vencimiento, '31/12/2027');
    assert.deepEqual([v.lines[0].codigo, v.lines[0].unidad], ['CEM-50', 'unid']);
    assert.equal(buildCfeView({ cfe: sampleCfe(111), digestValue }).vencimiento, undefined);
    // "N/A" is DGI's "no unit": nothing to print.
    assert.equal(buildCfeView({ cfe: sampleCfe(111), digestValue }).lines[0].unidad, '');
  });

  it('export terms in words; a credit note totals what is credited', () => {
    assert.equal(buildCfeView({ cfe: exportInvoice(), digestValue }).exportacion, 'Cláusula de venta: FOB - Modalidad: Régimen general - Vía de transporte: Terrestre');
    assert.equal(buildCfeView({ cfe: sampleCfe(111), digestValue }).exportacion, undefined);
    const nc = buildCfeView({ cfe: creditNote(), digestValue }).totals;
    assert.equal(nc[nc.length - 1].label, 'TOTAL A ACREDITAR');
    const fact = buildCfeView({ cfe: sampleCfe(111), digestValue }).totals;
    assert.equal(fact[fact.length - 1].label, 'TOTAL A PAGAR');
  });
});
