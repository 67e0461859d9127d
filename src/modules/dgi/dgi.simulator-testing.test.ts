/**
 * The simulated DGI judges like DGI's Testing (issue 47 point 2; BRIEF 13): a correct set of the six
 * types of the "Prueba de Testing" is received, and a set with one deliberate error per type is
 * refused with the motive DGI gives (FMR v19 §4.3), as is a daily report that does not add up with
 * what DGI received (FREP v13.2, R04). CFEs are built, totalled and signed by the emission library.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Decimal } from 'decimal.js';
import { DgiSoapReceptionClient } from './dgi.soap-client.ts';
import { startDgiSimulator, type DgiSimulator } from './dgi.simulator.ts';
import { envelope, type Signer } from './dgi.test-helpers.ts';
import { uyDate, uyDateTime } from './simulator/efactura-service.ts';
import { sampleCfe } from '../emission/sample-cfes.ts';
import { completeCfe } from '../emission/complete-cfe.ts';
import { createSigningContext, signCfe, type SigningContext } from '../emission/signer.ts';
import { buildReporteDiario, signReporteDiario, type ReporteCfe } from '../emission/reporte-diario.ts';
import type { Cfe } from '../emission/cfe.model.ts';

const RUC = '211234560019';
let sim: DgiSimulator;
let company: Signer;
let ctx: SigningContext;
let dgi: DgiSoapReceptionClient;
let idEmisor = 1;
const nros = new Map<number, number>();

before(async () => {
  sim = await startDgiSimulator({ port: 0 });
  company = sim.control.issueCompanyCertificate(RUC, 'Empresa Testing SA');
  for (const tipoCfe of [101, 102, 103, 111, 112, 113]) sim.control.issueCae({ rucEmisor: RUC, tipoCfe, serie: 'A', desde: 1, hasta: 1000, fechaVencimiento: '2099-12-31' });
  ctx = createSigningContext({ privateKey: company.privateKeyPem, certificate: company.certificatePem });
  dgi = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
});
after(() => sim.close());

/** A sample CFE of `tipo` for our RUC, next number, signed now; `edit` changes the finished CFE (after totals). */
function cfe(tipo: number, opts: { ref?: Cfe; edit?: (c: Cfe) => void; draft?: (c: Cfe) => Cfe } = {}): Cfe {
  const nro = (nros.get(tipo) ?? 0) + 1;
  nros.set(tipo, nro);
  let c = sampleCfe(tipo, { Nro: nro, TmstFirma: uyDateTime(Date.now() - 60_000) });
  c.Emisor = { ...c.Emisor, RUCEmisor: RUC };
  if (opts.ref) {
    const r = opts.ref;
    c.Referencia = [{ NroLinRef: 1, TpoDocRef: r.IdDoc.TipoCFE, Serie: r.IdDoc.Serie, NroCFERef: r.IdDoc.Nro, RazonRef: 'Devolución', FechaCFEref: r.IdDoc.FchEmis }];
  }
  if (opts.draft) c = opts.draft(c);
  opts.edit?.(c);
  return c;
}

async function judge(list: Cfe[]) {
  const ack = await dgi.sendEnvelope(envelope(company, { rucEmisor: RUC, idEmisor: idEmisor++, cfes: list.map((c) => signCfe(c, ctx).xml) }));
  assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
  const status = await dgi.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
  if (!status.ready) throw new Error('not ready');
  return status.detalles.map((d) => ({ tipo: Number(d.TipoCFE), nro: Number(d.NroCFE), estado: d.Estado, codes: d.motivos.map((m) => m.Motivo), detalle: d.motivos.map((m) => m.Detalle).join(' | ') }));
}

function report(cfes: Array<{ c: Cfe; estado: 'emitido' | 'anulado' }>, secEnvio: number, edit?: (xml: string) => string) {
  const rows: ReporteCfe[] = cfes.map(({ c, estado }) => ({
    tipoCfe: c.IdDoc.TipoCFE, serie: c.IdDoc.Serie, nro: c.IdDoc.Nro, fchEmis: c.IdDoc.FchEmis, cdgDGISucur: Number(c.Emisor.CdgDGISucur),
    totales: c.Totales as ReporteCfe['totales'], estado,
    ...(c.Totales.TpoMoneda !== 'UYU' && c.Totales.TpoCambio ? { tpoMoneda: c.Totales.TpoMoneda, tpoCambio: c.Totales.TpoCambio! } : {}),
  }));
  const xml = buildReporteDiario({ rucEmisor: RUC, fechaResumen: uyDate(), secEnvio, tmstFirmaEnv: uyDateTime(), cfes: rows, anulados: [] });
  return signReporteDiario(edit ? edit(xml) : xml, ctx).xml;
}

describe('DGI Testing rules in the simulator', () => {
  const good: Cfe[] = [];
  const bad: Cfe[] = [];

  test('a correct set of 101, 102, 103, 111, 112, 113 (notes referencing their receipts) is received', async () => {
    const t = cfe(101);
    const f = cfe(111);
    // Notes in the same envelope as their receipts, after them: DGI takes them in order.
    good.push(t, f, cfe(102, { ref: t }), cfe(103, { ref: t }), cfe(112, { ref: f }), cfe(113, { ref: f }));
    const results = await judge(good);
    assert.deepEqual(results.map((r) => [r.tipo, r.estado, r.detalle]), good.map((c) => [c.IdDoc.TipoCFE, 'AE', '']));
  });

  test('one deliberate error per type, each refused with its code', async () => {
    const [t1, f1] = good;
    const bigTicket = cfe(101, {
      draft: (c) => completeCfe({ ...c, Receptor: undefined, Totales: undefined as never, Detalle: [{ NroLinDet: 1, IndFact: 3, NomItem: 'Heladera', Cantidad: '1', UniMed: 'N/A', PrecioUnitario: '61000' }], DscRcgGlobal: undefined }),
    });
    const cases: Array<[Cfe, string, RegExp]> = [
      [bigTicket, 'E05', /tope de 5\.000 UI/],
      [cfe(102, { edit: (c) => void (c.Referencia = undefined) }), 'E05', /nota sin Zona de Referencia/],
      [cfe(103, { ref: { ...t1, IdDoc: { ...t1.IdDoc, Nro: 999 } } }), 'E12', /no fue recibido por DGI/],
      [cfe(111, { edit: (c) => void (c.Receptor = { ...c.Receptor!, DocRecep: '214844360019' }) }), 'E05', /no es un RUC válido/],
      [cfe(112, { ref: f1, edit: (c) => void (c.Referencia![0].FechaCFEref = '2026-01-02') }), 'E12', /FechaCFEref/],
      [cfe(113, { ref: f1, edit: (c) => void (c.Totales.MntTotal = new Decimal(c.Totales.MntTotal!).plus(1).toFixed(2)) }), 'E05', /A-C124/],
      [cfe(111, { edit: (c) => void (c.Totales = { ...c.Totales, TpoMoneda: 'USD' }) }), 'E10', /sin TpoCambio/],
      // Net and VAT moved together so every other equation still holds: only the lines disagree (A-C117).
      [cfe(101, { edit: (c) => void (c.Totales = { ...c.Totales, MntNetoIVATasaBasica: new Decimal(c.Totales.MntNetoIVATasaBasica!).plus(100).toFixed(2), MntIVATasaBasica: new Decimal(c.Totales.MntIVATasaBasica!).plus(22).toFixed(2), MntTotal: new Decimal(c.Totales.MntTotal!).plus(122).toFixed(2), MntPagar: new Decimal(c.Totales.MntPagar!).plus(122).toFixed(2) }) }), 'E05', /MntNetoIVATasaBasica .* de las líneas con IndFact 3 .*A-C117/],
    ];
    bad.push(...cases.map(([c]) => c));
    const results = await judge(bad);
    cases.forEach(([c, code, detail], i) => {
      assert.equal(results[i].estado, 'BE', `${c.IdDoc.TipoCFE} ${c.IdDoc.Nro}`);
      assert.equal(results[i].codes[0], code, `${c.IdDoc.TipoCFE}: ${results[i].detalle}`);
      assert.match(results[i].detalle, detail);
    });
  });

  test('the daily report must add up with what DGI received: R04 otherwise, AR when right', async () => {
    const right = [...good.map((c) => ({ c, estado: 'emitido' as const })), ...bad.map((c) => ({ c, estado: 'anulado' as const }))];
    // A receipt DGI received left out.
    const missing = await dgi.sendDailyReport(report(right.filter(({ c }) => !(c.IdDoc.TipoCFE === 111 && c.IdDoc.Nro === 1)), 1));
    assert.equal(missing.Estado, 'BR');
    assert.equal(missing.motivos[0].Motivo, 'R04');
    assert.match(missing.motivos.map((m) => m.Detalle).join('\n'), /Tipo 111: CFE A 1 recibido por DGI no está informado/);
    // Totals that do not match the receipts.
    const wrongTotal = await dgi.sendDailyReport(report(right, 1, (xml) => xml.replace(/(<[\w:]*Rsmn_Fac>[\s\S]*?<[\w:]*TotMntTotal>)([\d.]+)/, (_m, head: string, v: string) => head + new Decimal(v).plus(100).toFixed(2))));
    assert.equal(wrongTotal.Estado, 'BR');
    assert.match(wrongTotal.motivos.map((m) => m.Detalle).join('\n'), /Tipo 111: TotMntTotal informado/);
    // A rejected receipt reported as emitted rather than annulled.
    const notVoided = await dgi.sendDailyReport(report(right.map((r) => ({ ...r, estado: 'emitido' as const })), 1));
    assert.equal(notVoided.Estado, 'BR');
    assert.match(notVoided.motivos.map((m) => m.Detalle).join('\n'), /rechazado por DGI \(E0\d\) no está informado como anulado/);

    // e-Tickets above 5,000 UI miscounted (C27).
    const tope = await dgi.sendDailyReport(report(right, 1, (xml) => xml.replace(/(<[\w:]*Rsmn_Tck>[\s\S]*?<[\w:]*CantDocsMay_topeUI>)0/, '$13')));
    assert.equal(tope.Estado, 'BR');
    assert.match(tope.motivos.map((m) => m.Detalle).join('\n'), /Tipo 101: CantDocsMay_topeUI 3 ≠ 0 .*C27/);
    const ok = await dgi.sendDailyReport(report(right, 1));
    assert.equal(ok.Estado, 'AR', JSON.stringify(ok.motivos));
  });
});

describe('what DGI holds survives a restart of the simulator (state file)', () => {
  test('a note sent after a restart references a receipt received before it: AE, not E12; the day\'s report still adds up', async () => {
    const statePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sim-testing-')), 'state.jsonl');
    const RUC2 = '212222220016';
    const first = await startDgiSimulator({ port: 0, statePath });
    const signer = first.control.issueCompanyCertificate(RUC2, 'Empresa Reinicio SA');
    for (const tipoCfe of [111, 112]) first.control.issueCae({ rucEmisor: RUC2, tipoCfe, serie: 'A', desde: 1, hasta: 100, fechaVencimiento: '2099-12-31' });
    const sctx = createSigningContext({ privateKey: signer.privateKeyPem, certificate: signer.certificatePem });
    const make = (tipo: number, ref?: Cfe) => {
      const c = sampleCfe(tipo, { Nro: 1, TmstFirma: uyDateTime(Date.now() - 60_000) });
      c.Emisor = { ...c.Emisor, RUCEmisor: RUC2 };
      if (ref) c.Referencia = [{ NroLinRef: 1, TpoDocRef: ref.IdDoc.TipoCFE, Serie: ref.IdDoc.Serie, NroCFERef: ref.IdDoc.Nro, RazonRef: 'Devolución', FechaCFEref: ref.IdDoc.FchEmis }];
      return c;
    };
    const sendTo = async (sim: DgiSimulator, c: Cfe, id: number) => {
      const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: signer, timeoutMs: 5000 });
      const ack = await client.sendEnvelope(envelope(signer, { rucEmisor: RUC2, idEmisor: id, cfes: [signCfe(c, sctx).xml] }));
      const status = await client.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
      if (!status.ready) throw new Error('not ready');
      return { client, detalle: status.detalles[0] };
    };
    const factura = make(111);
    assert.equal((await sendTo(first, factura, 1)).detalle.Estado, 'AE');
    await first.close();

    const second = await startDgiSimulator({ port: 0, statePath });
    try {
      const nota = make(112, factura);
      const { client, detalle } = await sendTo(second, nota, 2);
      assert.deepEqual([detalle.Estado, detalle.motivos], ['AE', []]);
      const reportXml = buildReporteDiario({
        rucEmisor: RUC2, fechaResumen: uyDate(), secEnvio: 1, tmstFirmaEnv: uyDateTime(), anulados: [],
        cfes: [factura, nota].map((c) => ({ tipoCfe: c.IdDoc.TipoCFE, serie: c.IdDoc.Serie, nro: c.IdDoc.Nro, fchEmis: c.IdDoc.FchEmis, cdgDGISucur: Number(c.Emisor.CdgDGISucur), totales: c.Totales as ReporteCfe['totales'], estado: 'emitido' as const })),
      });
      const ack = await client.sendDailyReport(signReporteDiario(reportXml, sctx).xml);
      assert.equal(ack.Estado, 'AR', JSON.stringify(ack.motivos));
    } finally {
      await second.close();
    }
  });
});
