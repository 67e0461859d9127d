/**
 * Daily report: XSD-valid once signed (in-process and xmllint), signature verified by xmlsec1,
 * each counting rule of BRIEF 9 asserted, and the DGI simulator answering AR.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { C14nCanonicalization } from 'xml-crypto';
import { createTestCa, issueTestCertificate, type TestCa, type TestCertificate } from '../../platform/crypto/pki.ts';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.ts';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.ts';
import { startDgiSimulator } from '../dgi/dgi.simulator.ts';
import { uyDate, uyDateTime } from '../dgi/simulator/efactura-service.ts';
import { sampleCfe } from './sample-cfes.ts';
import {
  buildReporteDiario,
  planReporteDiario,
  reporteFileName,
  ReporteError,
  reportRate,
  signReporteDiario,
  toRanges,
  type ReporteBlock,
  type ReporteCfe,
  type ReporteDiarioInput,
} from './reporte-diario.ts';
import { createSigningContext, verifyXmlSignature, type SigningContext } from './signer.ts';

const RUC = '219999830019';
const DAY = '2026-07-08';
const TMST = '2026-07-08T23:30:00-03:00';

/** A report line from a sample CFE of the type, with its real computed Totales. */
function line(tipoCfe: number, nro: number, extra: Partial<ReporteCfe> = {}): ReporteCfe {
  const cfe = sampleCfe(tipoCfe, { Nro: nro });
  return {
    tipoCfe,
    serie: 'A',
    nro,
    fchEmis: cfe.IdDoc.FchEmis,
    cdgDGISucur: 1,
    tpoMoneda: cfe.Totales.TpoMoneda,
    tpoCambio: cfe.Totales.TpoCambio,
    totales: cfe.Totales,
    estado: 'emitido',
    ...extra,
  };
}

const usd = { tpoMoneda: 'USD', tpoCambio: '39.9', fiscalRate: '40.1' } as const;

/** e-Tickets (one above the UI threshold, two branches, one paid on behalf of third parties),
 *  voided numbers and a DGI-rejected ticket, e-Facturas in USD in two series, an NC in USD,
 *  CFCs, and one of each other family. */
function busyDay(): ReporteDiarioInput {
  return {
    rucEmisor: RUC,
    fechaResumen: DAY,
    idEmisor: 7,
    secEnvio: 1,
    tmstFirmaEnv: TMST,
    cfes: [
      line(101, 1),
      line(101, 2, { superaTopeUI: true }),
      line(101, 3, { cdgDGISucur: 2 }),
      line(101, 4, { indPagCta3ros: 1 }),
      line(101, 8, { estado: 'anulado' }), // rejected by DGI (E04): voided
      line(111, 1, usd),
      line(111, 2, usd),
      line(111, 1, { ...usd, serie: 'B' }),
      line(112, 1, usd),
      line(201, 953001),
      line(201, 953002, { superaTopeUI: true }),
      line(211, 17),
      line(281, 953001),
      line(121, 1),
      line(124, 1),
      line(131, 1),
      line(141, 1),
      line(151, 1),
      line(181, 1),
      line(182, 1, { tpoMoneda: 'USD', tpoCambio: '39.9', fiscalRate: '40.1' }),
    ],
    anulados: [
      { tipoCfe: 101, serie: 'A', nro: 5 },
      { tipoCfe: 101, serie: 'A', nro: 6 },
      { tipoCfe: 111, serie: 'A', nro: 3 },
    ],
  };
}

const block = (blocks: ReporteBlock[], tipo: number) => {
  const b = blocks.find((x) => x.tipoComp === tipo);
  assert.ok(b, `block ${tipo}`);
  return b;
};
const value = (b: ReporteBlock, i: number, name: string) => b.montos[i].values.find(([k]) => k === name)?.[1];

describe('Reporte diario: XSD, signature, simulator', () => {
  let dir: string;
  let ca: TestCa;
  let cert: TestCertificate;
  let ctx: SigningContext;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'reporte-'));
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(join(dir, name), content);
    ca = createTestCa();
    cert = issueTestCertificate(ca, { rut: RUC, name: 'Empresa Demo SA' });
    ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'cert.pem'), cert.certPem);
  });

  const cases: Array<[string, () => ReporteDiarioInput]> = [
    ['zero report', () => ({ rucEmisor: RUC, fechaResumen: DAY, secEnvio: 1, tmstFirmaEnv: TMST, cfes: [], anulados: [] })],
    ['busy day (e-Tickets over UI, USD e-Facturas, voided numbers, CFCs, every family)', busyDay],
    ['only voided numbers', () => ({ rucEmisor: RUC, fechaResumen: DAY, secEnvio: 2, tmstFirmaEnv: TMST, cfes: [], anulados: [{ tipoCfe: 111, serie: 'A', nro: 9 }] })],
  ];

  for (const [name, input] of cases) {
    it(`${name}: canonical, signed, valid in-process and with xmllint, verified by xmlsec1`, () => {
      const unsigned = buildReporteDiario(input());
      const doc = new DOMParser().parseFromString(unsigned, 'text/xml');
      assert.equal(new C14nCanonicalization().process(doc.documentElement as unknown as Node, {}), unsigned, 'already canonical');
      const { xml } = signReporteDiario(unsigned, ctx);
      assert.ok(xml.endsWith('</Signature></Reporte>'));
      assert.deepEqual(validateXml('Reporte', xml), { ok: true });
      assert.equal(verifyXmlSignature(xml, { certificate: cert.certPem }).valid, true);
      const file = join(dir, `${name.split(' ')[0]}.xml`);
      writeFileSync(file, xml);
      const lint = spawnSync('xmllint', ['--noout', '--nonet', '--schema', join(dir, 'ReporteDiarioCFE.xsd'), file], { encoding: 'utf8' });
      if (lint.error) assert.fail(`xmllint missing (libxml2-utils): ${lint.error.message}`);
      assert.equal(lint.status, 0, lint.stderr);
      const sec = spawnSync('xmlsec1', ['--verify', '--untrusted-pem', join(dir, 'cert.pem'), '--trusted-pem', join(dir, 'ca.pem'), file], { encoding: 'utf8' });
      if (sec.error) assert.fail(`xmlsec1 missing: ${sec.error.message}`);
      assert.equal(sec.status, 0, `${sec.stdout}${sec.stderr}`);
    });
  }

  it('zero report: CantComprobantes 0 and no Rsmn block', () => {
    const xml = buildReporteDiario(cases[0][1]());
    assert.match(xml, /<CantComprobantes>0<\/CantComprobantes><\/Caratula><\/Reporte>$/);
  });

  it('a tampered amount fails xmlsec1', () => {
    const { xml } = signReporteDiario(buildReporteDiario(busyDay()), ctx);
    const file = join(dir, 'tampered.xml');
    writeFileSync(file, xml.replace('<CantDocsUtil>7</CantDocsUtil>', '<CantDocsUtil>8</CantDocsUtil>'));
    const sec = spawnSync('xmlsec1', ['--verify', '--untrusted-pem', join(dir, 'cert.pem'), '--trusted-pem', join(dir, 'ca.pem'), file], { encoding: 'utf8' });
    assert.notEqual(sec.status, 0);
  });

  it('the DGI simulator answers AR (zero report and a day with CFEs), then R05 for a repeated SecEnvio', async () => {
    // The busy day's CFEs were never sent to this simulator, so its Testing checks (report totals against the
    // CFEs received, dgi.simulator-testing.test.ts) are off: this test is about the AR and R05 answers.
    const sim = await startDgiSimulator({ port: 0, checkContent: false });
    try {
      const ruc = '211234560019';
      const company = sim.control.issueCompanyCertificate(ruc, 'Empresa Simulada SA');
      const simCtx = createSigningContext({ privateKey: company.privateKeyPem, certificate: company.certificatePem });
      const dgi = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
      const today = uyDate();
      const zero = buildReporteDiario({ rucEmisor: ruc, fechaResumen: today, secEnvio: 1, tmstFirmaEnv: uyDateTime(), cfes: [], anulados: [] });
      const first = await dgi.sendDailyReport(signReporteDiario(zero, simCtx).xml);
      assert.equal(first.Estado, 'AR', JSON.stringify(first.motivos));
      const day = busyDay();
      const full = buildReporteDiario({ ...day, rucEmisor: ruc, fechaResumen: today, secEnvio: 2, tmstFirmaEnv: uyDateTime() });
      const second = await dgi.sendDailyReport(signReporteDiario(full, simCtx).xml);
      assert.equal(second.Estado, 'AR', JSON.stringify(second.motivos));
      const again = await dgi.sendDailyReport(signReporteDiario(full, simCtx).xml);
      assert.deepEqual([again.Estado, again.motivos[0]?.Motivo], ['BR', 'R05']);
    } finally {
      await sim.close();
    }
  });
});

describe('Reporte diario: counting rules (BRIEF 9)', () => {
  const plan = planReporteDiario(busyDay());

  it('blocks follow the XSD order; 2xx go to the _Cont blocks', () => {
    assert.deepEqual(
      plan.blocks.map((b) => b.element),
      ['Rsmn_Tck', 'Rsmn_Tck_Cont', 'Rsmn_Tck_CtaAj', 'Rsmn_Fac', 'Rsmn_Fac_Nota_Credito', 'Rsmn_Fac_Cont', 'Rsmn_Fac_CtaAj', 'Rsmn_Fac_Exp', 'Rsmn_Rem', 'Rsmn_Rem_Cont', 'Rsmn_Rem_Exp', 'Rsmn_Resg', 'Rsmn_Bol'],
    );
  });

  it('C26 CantDocsUtil = emitted + annulled by DGI + voided by the company = Σ RngDocsUtil', () => {
    const tck = block(plan.blocks, 101);
    assert.equal(tck.cantDocsUtil, 4 + 1 + 2);
    for (const b of plan.blocks.filter((x) => !x.contingency)) {
      assert.equal(b.cantDocsUtil, b.rngDocsUtil!.reduce((n, r) => n + r.NroHasta - r.NroDesde + 1, 0), b.element);
    }
  });

  it('C28 CantDocsAnulados counts DGI-rejected and voided numbers; C29 CantDocsEmi = C26 − C28', () => {
    const tck = block(plan.blocks, 101);
    assert.equal(tck.cantDocsAnulados, 3);
    assert.equal(tck.cantDocsEmi, 4);
    for (const b of plan.blocks.filter((x) => !x.contingency)) assert.equal(b.cantDocsEmi, b.cantDocsUtil! - b.cantDocsAnulados!, b.element);
    const nc = block(plan.blocks, 112);
    assert.equal(nc.cantDocsAnulados, 0, 'an NC cancels nothing in the count');
  });

  it('ranges: contiguous per serie, a serie change or a gap starts a new range', () => {
    assert.deepEqual(block(plan.blocks, 101).rngDocsUtil, [{ Serie: 'A', NroDesde: 1, NroHasta: 6 }, { Serie: 'A', NroDesde: 8, NroHasta: 8 }]);
    assert.deepEqual(block(plan.blocks, 101).rngDocsAnulados, [{ Serie: 'A', NroDesde: 5, NroHasta: 6 }, { Serie: 'A', NroDesde: 8, NroHasta: 8 }]);
    assert.deepEqual(block(plan.blocks, 111).rngDocsUtil, [{ Serie: 'A', NroDesde: 1, NroHasta: 3 }, { Serie: 'B', NroDesde: 1, NroHasta: 1 }]);
    assert.deepEqual(toRanges([{ serie: 'B', nro: 2 }, { serie: 'A', nro: 3 }, { serie: 'A', nro: 1 }, { serie: 'A', nro: 2 }]), [
      { Serie: 'A', NroDesde: 1, NroHasta: 3 },
      { Serie: 'B', NroDesde: 2, NroHasta: 2 },
    ]);
  });

  it('CantDocsMay_topeUI in e-Ticket blocks (CFE and CFC) only', () => {
    assert.equal(block(plan.blocks, 101).cantDocsMayTopeUI, 1);
    assert.equal(block(plan.blocks, 201).cantDocsMayTopeUI, 1);
    assert.equal(block(plan.blocks, 111).cantDocsMayTopeUI, undefined);
    const xml = buildReporteDiario(busyDay());
    assert.match(xml, /<CantDocsUtil>7<\/CantDocsUtil><CantDocsMay_topeUI>1<\/CantDocsMay_topeUI><CantDocsAnulados>3<\/CantDocsAnulados><CantDocsEmi>4<\/CantDocsEmi>/);
  });

  it('CFC blocks: CantCFCEmi, no ranges; CantComprobantes = Σ C26 + Σ CFC', () => {
    const cont = block(plan.blocks, 201);
    assert.equal(cont.cantCfcEmi, 2);
    assert.equal(cont.rngDocsUtil, undefined);
    const c26 = plan.blocks.reduce((n, b) => n + (b.cantDocsUtil ?? 0), 0);
    const cfc = plan.blocks.reduce((n, b) => n + (b.cantCfcEmi ?? 0), 0);
    assert.equal(cfc, 4);
    assert.equal(plan.cantComprobantes, c26 + cfc);
    assert.equal(plan.cantComprobantes, 7 + 4 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 4);
  });

  it('Montos grouped by (FchEmis, branch, IndPagCta3ros); DGI-rejected CFEs add no amounts', () => {
    const tck = block(plan.blocks, 101);
    assert.deepEqual(tck.montos.map((m) => [m.Fecha, m.CodSuc, m.IndPagCta3ros]), [[DAY, 1, undefined], [DAY, 1, 1], [DAY, 2, undefined]]);
    const one = sampleCfe(101).Totales.MntTotal!;
    assert.equal(value(tck, 0, 'TotMntTotal'), (Number(one) * 2).toFixed(2), 'nros 1 and 2; the rejected nro 8 is not summed');
    assert.equal(value(tck, 0, 'IVATasaBas'), '22');
  });

  it('amounts in UYU: fiscal rate for e-Facturas, the CFE rate for NC and e-Resguardos', () => {
    const fac = sampleCfe(111).Totales;
    const amount = (v: string, rate: string) => Math.round(Number(v) * Number(rate) * 100) / 100;
    assert.equal(value(block(plan.blocks, 111), 0, 'TotMntTotal'), (amount(fac.MntTotal!, '40.1') * 3).toFixed(2));
    assert.equal(value(block(plan.blocks, 112), 0, 'TotMntTotal'), amount(sampleCfe(112).Totales.MntTotal!, '39.9').toFixed(2));
    assert.equal(value(block(plan.blocks, 182), 0, 'TotMntRetenido'), amount(sampleCfe(182).Totales.MntTotRetenido!, '39.9').toFixed(2));
    assert.deepEqual(reportRate(line(111, 1, usd), TMST), { rate: '40.1', source: 'fiscal' });
    assert.deepEqual(reportRate(line(111, 1, { ...usd, tpoMoneda: 'UYI' }), TMST), { rate: '39.9', source: 'cfe' });
    assert.deepEqual(reportRate(line(111, 1, { ...usd, fchEmis: '2026-07-09' }), TMST), { rate: '39.9', source: 'cfe' }, 'FchEmis after signing');
    assert.deepEqual(reportRate(line(111, 1, { tpoMoneda: 'USD', tpoCambio: '39.9' }), TMST), { rate: '39.9', source: 'cfe' }, 'no fiscal quote');
    assert.deepEqual(reportRate(line(111, 1), TMST), { rate: '1', source: 'UYU' });
    assert.throws(() => reportRate(line(111, 1, { tpoMoneda: 'USD' }), TMST), ReporteError);
  });

  it('reduced Montos per family: e-Remito only Fecha/CodSuc, export totals, e-Boleta subset', () => {
    assert.deepEqual(block(plan.blocks, 181).montos[0].values, []);
    assert.deepEqual(block(plan.blocks, 121).montos[0].values.map(([k]) => k), ['TotMntExpyAsim', 'TotMntTotal']);
    assert.deepEqual(block(plan.blocks, 124).montos[0].values.map(([k]) => k), ['TotMntExpyAsim', 'TotMntTotal']);
    assert.deepEqual(block(plan.blocks, 151).montos[0].values.map(([k]) => k).slice(0, 3), ['TotMntNoGrv', 'TotMntIVAenSusp', 'TotMntTotal']);
  });

  it('refuses inputs DGI would reject or that break the counts', () => {
    const base = busyDay();
    assert.throws(() => planReporteDiario({ ...base, anulados: [...base.anulados, { tipoCfe: 101, serie: 'A', nro: 1 }] }), /reported twice/);
    assert.throws(() => planReporteDiario({ ...base, anulados: [{ tipoCfe: 201, serie: 'A', nro: 1 }] }), /CFCs are not reported/);
    assert.throws(() => planReporteDiario({ ...base, secEnvio: 100 }), /SecEnvio/);
    assert.throws(() => planReporteDiario({ ...base, fechaResumen: '2051-01-01' }), /FechaResumen/);
    assert.throws(() => planReporteDiario({ ...base, cfes: [{ ...line(101, 1), tipoCfe: 199 }] }), /Unknown CFE type 199/);
  });

  it('file name per FREP', () => assert.equal(reporteFileName(RUC, DAY, 1), 'Rep_219999830019_20260708_01.xml'));
});
