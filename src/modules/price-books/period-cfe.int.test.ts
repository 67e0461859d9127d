/**
 * The period CFE builder against emission itself (issue 34 point 4): a price book created through
 * the API, a period's usage rated, the body built, then parsed by emitir's own strict schema and
 * run through the emission service's `prepare` (rules, currency, receiver, totals; nothing numbered
 * or signed). The totals emission computes are checked by hand and by DGI's equations (checkSentTotales).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany, validRut } from '../../../test/support/factories.js';
import { uyToday } from '../../lib/dates.js';
import { strictSchema } from '../../platform/http/strict-body.js';
import { checkSentTotales } from '../emission/index.js';
import { issueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { buildPeriodCfe, type PeriodCfeInput } from './period-cfe.js';
import type { PriceBookVersionView } from './price-books.service.js';
import { ratePeriod, type UsageRow } from './rating.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let idCliente: number;
const today = uyToday();

const tiers = [
  { desde: '0', hasta: '1000', precioUnitario: '0' },
  { desde: '1000', hasta: '10000', precioUnitario: '0.123456' },
  { desde: '10000', hasta: null, precioUnitario: '0.1' },
];
async function createBook(extra: Record<string, unknown> = {}): Promise<PriceBookVersionView> {
  const r = await t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${company.id}`, {
    codigo: `PLAN-${Math.random().toString(36).slice(2, 8)}`, nombre: 'Plan por uso', moneda: 'UYU', vigenteDesde: '2026-01-01',
    minimoPeriodo: { monto: '5000.00', indicadorFacturacion: 3, nombreItem: 'Compromiso mínimo mensual' },
    precios: [
      { metrica: 'api_calls', modelo: 'escalonado', tramos: tiers, indicadorFacturacion: 3, nombreItem: 'Llamadas API' },
      { metrica: 'kwh', dimensiones: { region: 'norte' }, modelo: 'volumen', tramos: [{ desde: '0', hasta: '100', precioUnitario: '5' }, { desde: '100', hasta: null, precioUnitario: '4.5' }], indicadorFacturacion: 2, nombreItem: 'Energía norte', unidadMedida: 'kWh' },
      { metrica: 'kwh', modelo: 'estandar', precioUnitario: '6.25', indicadorFacturacion: 2, nombreItem: 'Energía', unidadMedida: 'kWh' },
      { metrica: 'sms', modelo: 'paquete', paquete: { tamano: '1000', precio: '150' }, minimo: '400.00', indicadorFacturacion: 1, nombreItem: 'SMS' },
    ],
    ...extra,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

const usage: UsageRow[] = [
  { metrica: 'api_calls', cantidad: '12345.6789' }, // 12345.679 billed: 0 + 9000 × 0.123456 + 2345.679 × 0.1 = 1111.10 + 234.57 = 1345.67
  { metrica: 'kwh', dimensiones: { region: 'norte' }, cantidad: '150.5' }, // volume: 150.5 × 4.5 = 677.25
  { metrica: 'kwh', dimensiones: { region: 'sur' }, cantidad: '10' }, // fallback: 10 × 6.25 = 62.50
  { metrica: 'sms', cantidad: '1200' }, // 2 packages × 150 = 300.00; minimum 400 → shortfall 100.00
];

function periodInput(extra: Partial<PeriodCfeInput> = {}): PeriodCfeInput {
  return { idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1', tipoCfe: 111, receptor: { idCliente }, fechaEmision: today, periodo: { desde: '2026-03-01', hasta: '2026-03-31' }, formaPago: 2, contrato: 'Contrato 7', ...extra };
}

/** What emitir does with the body before numbering: its strict schema, then the service's prepare. */
async function prepare(body: unknown) {
  const parsed = strictSchema(issueCfeBody).parse(body);
  return t.modules.services.issuedCfe.prepare(parsed);
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, codPais: 'UY', documento: validRut(), razonSocial: 'Cliente por uso SA', direccion: 'Calle 1', ciudad: 'Montevideo' });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  idCliente = c.body.id;
});
after(async () => t?.close());

describe('happy path: emission accepts the period CFE', () => {
  test('an e-Factura with every model, a dimension fallback and both minimums: lines and totals as computed by hand', async () => {
    const version = await createBook();
    const rating = ratePeriod(version, usage);
    // Lines 1345.67 + 677.25 + 62.50 + 300.00 + sms minimum 100.00 = 2485.42 → book minimum 5000 − 2485.42 = 2514.58
    assert.equal(rating.total, '5000.00');
    const body = buildPeriodCfe(rating, version, periodInput())!;
    const prepared = await prepare(body);
    const d = prepared.draft;
    assert.deepEqual(d.Detalle.map((i) => [i.NomItem, i.IndFact, i.Cantidad, i.PrecioUnitario, i.MontoItem]), [
      ['Llamadas API', 5, '1000', '0', '0.00'],
      ['Llamadas API', 3, '9000', '0.123456', '1111.10'],
      ['Llamadas API', 3, '2345.679', '0.1', '234.57'],
      ['Energía norte', 2, '150.5', '4.5', '677.25'],
      ['Energía', 2, '10', '6.25', '62.50'],
      ['SMS', 1, '2', '150', '300.00'],
      ['Mínimo: SMS', 1, '1', '100.00', '100.00'],
      ['Compromiso mínimo mensual', 3, '1', '2514.58', '2514.58'],
    ]);
    const T = d.Totales;
    // IndFact 1 (exento): 400.00; 2 (10 %): 739.75 → IVA 73.98 (73.975 half-up); 3 (22 %): 1111.10 + 234.57 + 2514.58 = 3860.25 → IVA 849.26 (849.255).
    assert.deepEqual([T.MntNoGrv, T.MntNetoIvaTasaMin, T.MntIVATasaMin, T.MntNetoIVATasaBasica, T.MntIVATasaBasica], ['400.00', '739.75', '73.98', '3860.25', '849.26']);
    // 400 + 739.75 + 3860.25 + 73.98 + 849.26 = 5923.24
    assert.equal(T.MntTotal, '5923.24');
    assert.equal(T.MntPagar, '5923.24');
    assert.deepEqual([d.IdDoc.PeriodoDesde, d.IdDoc.PeriodoHasta], ['2026-03-01', '2026-03-31']);
    assert.match(prepared.adenda ?? '', /Período facturado: 2026-03-01 a 2026-03-31/);
    // DGI's equations (FCFE A-C112..A-C130) hold for these totals against these lines: what emission checks on sent totals.
    checkSentTotales(T, { TipoCFE: 111, MntBruto: d.IdDoc.MntBruto, IndCobPropia: d.IdDoc.IndCobPropia, TpoMoneda: T.TpoMoneda, TpoCambio: T.TpoCambio, Detalle: d.Detalle, DscRcgGlobal: d.DscRcgGlobal });
  });

  test('sent back with its totals (as an integrator would), emission\'s totals check passes as well', async () => {
    const version = await createBook();
    const body = buildPeriodCfe(ratePeriod(version, usage), version, periodInput())!;
    const T = (await prepare(body)).draft.Totales;
    const withTotals = { ...body, cfe: { ...body.cfe, totales: {
      mntNoGrv: T.MntNoGrv, mntNetoIvaTasaMin: T.MntNetoIvaTasaMin, mntNetoIVATasaBasica: T.MntNetoIVATasaBasica, ivaTasaMin: T.IVATasaMin, ivaTasaBasica: T.IVATasaBasica,
      mntIVATasaMin: T.MntIVATasaMin, mntIVATasaBasica: T.MntIVATasaBasica, mntTotal: T.MntTotal, mntPagar: T.MntPagar,
    } } };
    assert.equal((await prepare(withTotals)).draft.Totales.MntPagar, '5923.24');
  });

  test('a USD book with a fixed rate: the CFE carries USD and the book\'s rate, as written (TpoCambio as sent, spec 2.3 rule 7)', async () => {
    const version = await createBook({ moneda: 'USD', tipoCambio: { modo: 'fijo', valor: '39.5' }, minimoPeriodo: undefined });
    const body = buildPeriodCfe(ratePeriod(version, [{ metrica: 'sms', cantidad: '10' }]), version, periodInput())!;
    const d = (await prepare(body)).draft;
    assert.deepEqual([d.Totales.TpoMoneda, d.Totales.TpoCambio, d.Totales.MntNoGrv], ['USD', '39.5', '400.00']);
  });

  test('an e-Ticket for a consumer without a customer is accepted too', async () => {
    const version = await createBook({ minimoPeriodo: undefined });
    const body = buildPeriodCfe(ratePeriod(version, [{ metrica: 'kwh', cantidad: '3' }]), version, periodInput({ tipoCfe: 101, receptor: undefined, formaPago: 1 }))!;
    const d = (await prepare(body)).draft;
    // 3 × 6.25 = 18.75, IVA 10 % 1.875 → 1.88; plus the SMS minimum billed with no SMS sent: 400.00 exento.
    assert.deepEqual(d.Detalle.map((i) => i.MontoItem), ['18.75', '400.00']);
    assert.equal(d.Totales.MntTotal, '420.63');
  });
});
