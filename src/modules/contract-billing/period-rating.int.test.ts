/**
 * Rating by aggregation (issue 40 point 1) through the HTTP app on a real database: every
 * aggregation × (events without group values, events in several groups, prices per dimension),
 * read three ways that must agree with amounts computed by hand: GET /contracts/{id}/usage,
 * GET /contracts/{id}/state (montoHastaAhora, rules on units) and the period's issued CFE (lines
 * and MntTotal of its XML).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { ok, send, usageCompany } from '../usage/usage.test-helpers.js';
import { periodAt } from './periods.js';

let t: TestApp;
let admin: string;
let co: Awaited<ReturnType<typeof usageCompany>>;
const METRICS = ['llamadas', 'gb', 'pico', 'usuarios', 'puestos'];
const keys = ['region', 'plan'];

/**
 * Six facts, oldest first; each sends one event per metric. Metrics declare region and plan;
 * prices by dimension use region only. Figures by hand:
 *            all   norte  sur   este+oeste (the fallback's groups)
 * count       6     2      2     2
 * sum gb     21    12.5    5     3.5
 * max pico    7     5      7     6        (per (region, plan) summed: 22)
 * unique      3     2      2     1        (u2 in both este and oeste)
 * latest      5     4      6     5        (newest of este/oeste is the last fact)
 */
const FACTS = [
  { region: 'norte', plan: 'a', gb: '10', pico: '5', usuario: 'u1', puestos: '3' },
  { region: 'norte', plan: 'b', gb: '2.5', pico: '2', usuario: 'u2', puestos: '4' },
  { region: 'sur', plan: 'a', gb: '4', pico: '7', usuario: 'u1', puestos: '9' },
  { region: 'sur', plan: 'a', gb: '1', pico: '1', usuario: 'u3', puestos: '6' },
  { region: 'este', plan: 'a', gb: '3', pico: '4', usuario: 'u2', puestos: '2' },
  { region: 'oeste', plan: 'b', gb: '0.5', pico: '6', usuario: 'u2', puestos: '5' },
];

let seq = 0;
function events(contractId: number, grouped: boolean) {
  const now = Date.now();
  return FACTS.flatMap((f, i) => {
    // Oldest first, a second apart, all inside the open period.
    const fechaHora = new Date(now - (FACTS.length - i) * 1000).toISOString();
    const g = grouped ? { region: f.region, plan: f.plan } : {};
    const props: Record<string, Record<string, string>> = { llamadas: {}, gb: { gb: f.gb }, pico: { pico: f.pico }, usuarios: { usuario: f.usuario }, puestos: { puestos: f.puestos } };
    return METRICS.map((metrica) => ({ idTransaccion: `r-${++seq}`, idContrato: contractId, metrica, fechaHora, propiedades: { ...g, ...props[metrica] } }));
  });
}

const price = (metrica: string, precioUnitario: string, region?: string) => ({
  metrica, ...(region ? { dimensiones: { region } } : {}), modelo: 'estandar', precioUnitario, indicadorFacturacion: 1,
  nombreItem: `${metrica}${region ? ` ${region}` : ''}`,
});
const BASE: Record<string, string> = { llamadas: '1', gb: '10', pico: '100', usuarios: '50', puestos: '20' };

async function book(codigo: string, byRegion: boolean) {
  const precios = byRegion
    ? METRICS.flatMap((m) => [price(m, BASE[m]!, 'norte'), price(m, String(2 * Number(BASE[m])), 'sur'), price(m, String(3 * Number(BASE[m])))])
    : METRICS.map((m) => price(m, BASE[m]!));
  return (await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${co.companyId}`, { codigo, nombre: codigo, moneda: 'UYU', vigenteDesde: '2025-01-01', precios }))).id as number;
}

/** A contract on `versionId` with the six facts sent (with or without group values) and a rule on the peak. */
async function contract(ext: string, versionId: number, grouped: boolean) {
  // Started in 2025 (the helper's default): the close first catches up every earlier period, while
  // the rule evaluation the events queued may hold the contract's terms row.
  const c = await co.contract(ext, METRICS);
  await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, {
    idVersionListaPrecios: versionId, diaAncla: 1, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', formaPago: 2,
    reglas: [{ id: 'pico7', objetivo: 'unidades', metrica: 'pico', umbral: '7', accion: 'notificar' }, { id: 'pico8', objetivo: 'unidades', metrica: 'pico', umbral: '8', accion: 'notificar' }],
  }), 200);
  await ok(send(t, admin, co.companyId, events(c.id, grouped)), 200);
  return c.id as number;
}

const usage = async (id: number, groupBy?: string) => {
  const r = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/usage${groupBy ? `?group_by=${groupBy}` : ''}`), 200);
  return r.datos.map((d: any) => [d.metrica, ...Object.values(d.grupo), d.cantidad]);
};

/** Closes the open period and answers the CFE's lines [NomItem, Cantidad, PrecioUnitario, MontoItem] and MntTotal. */
async function closeAndRead(id: number) {
  const p = periodAt(new Date(), 1);
  const close = t.modules.services.contractPeriods;
  await close.closeDue(new Date(p.end.getTime() + 100 * 3_600_000));
  const row = await close.issue(id, p.desde);
  assert.equal(row!.status, 'emitido', JSON.stringify(row));
  const xml = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${row!.issuedCfeId}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
  const tag = (s: string, name: string) => new RegExp(`<(?:\\w+:)?${name}>([^<]*)</`).exec(s)?.[1];
  const lines = [...xml.matchAll(/<(?:\w+:)?Item>([\s\S]*?)<\/(?:\w+:)?Item>/g)].map((m) => ['NomItem', 'Cantidad', 'PrecioUnitario', 'MontoItem'].map((n) => tag(m[1]!, n)));
  return { lines, total: tag(xml, 'MntTotal'), periodTotal: row!.total };
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  co = await usageCompany(t, admin, [
    { codigo: 'llamadas', nombre: 'Llamadas', unidad: 'llamada', agregacion: 'count', clavesAgrupacion: keys },
    { codigo: 'gb', nombre: 'Tráfico', unidad: 'GB', agregacion: 'sum', propiedad: 'gb', clavesAgrupacion: keys },
    { codigo: 'pico', nombre: 'Pico', unidad: 'conexiones', agregacion: 'max', propiedad: 'pico', clavesAgrupacion: keys },
    { codigo: 'usuarios', nombre: 'Usuarios', unidad: 'usuario', agregacion: 'unique_count', propiedad: 'usuario', clavesAgrupacion: keys },
    { codigo: 'puestos', nombre: 'Puestos', unidad: 'puesto', agregacion: 'latest', propiedad: 'puestos', clavesAgrupacion: keys },
  ]);
  const [company] = (await t.db.execute(sql`select id, rut from companies where id = ${co.companyId}`)).rows as Array<{ id: number; rut: string }>;
  await setUpIssuer(t.db, t.call, admin, company!);
  await t.db.execute(sql`update customers set direccion = 'Calle 1', ciudad = 'Montevideo' where id = ${co.customerId}`);
});
after(async () => t?.close());

/** Lines of the fallback-only book on the period aggregates: 6 × 1 + 21 × 10 + 7 × 100 + 3 × 50 + 5 × 20 = 1166.00. */
const AGGREGATE_LINES = [
  ['gb', '21.000', '10.000000', '210.00'], ['llamadas', '6.000', '1.000000', '6.00'], ['pico', '7.000', '100.000000', '700.00'],
  ['puestos', '5.000', '20.000000', '100.00'], ['usuarios', '3.000', '50.000000', '150.00'],
];
const AGGREGATES = [['gb', '21'], ['llamadas', '6'], ['pico', '7'], ['puestos', '5'], ['usuarios', '3']];
const sorted = <T>(xs: T[]) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
/** [name, quantity, unit price, amount] with the quantity and price to 3 decimals and the amount to 2, to compare figures not spellings. */
const numeric = (l: Array<string | undefined>) => [l[0], Number(l[1]).toFixed(3), Number(l[2]).toFixed(3), Number(l[3]).toFixed(2)];

describe('happy path: state, usage and CFE agree with the hand-computed amounts', () => {
  for (const grouped of [false, true]) {
    test(`no price by dimension, events ${grouped ? 'in several groups' : 'without group values'}: each metric is rated on its period aggregate`, async () => {
      const id = await contract(`agg-${grouped}`, await book(`AGG-${grouped}`, false), grouped);
      assert.deepEqual(await usage(id), AGGREGATES);
      const st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
      assert.equal(st.montoHastaAhora, '1166.00');
      assert.deepEqual(sorted(st.uso.map((u: any) => [u.metrica, u.cantidad])), AGGREGATES);
      // The rule on the peak sees 7, not the 22 of the (region, plan) groups added up.
      assert.deepEqual(st.reglas.map((r: any) => [r.id, r.valorObservado, r.alcanzada]), [['pico7', '7', true], ['pico8', '7', false]]);
      const cfe = await closeAndRead(id);
      assert.deepEqual(sorted(cfe.lines.map(numeric)), AGGREGATE_LINES.map(numeric));
      assert.equal(cfe.total, '1166.00'); // exento: MntTotal is the sum of the lines
      assert.equal(cfe.periodTotal, '1166.00');
    });
  }

  test('prices by region: each region priced on its own aggregate (never per region and plan), the fallback on the aggregate of the other regions\' events', async () => {
    const id = await contract('dim', await book('DIM', true), true);
    // Usage by region, the dimension prices are written with.
    assert.deepEqual(sorted(await usage(id, 'region')), sorted([
      ['gb', 'este', '3'], ['gb', 'norte', '12.5'], ['gb', 'oeste', '0.5'], ['gb', 'sur', '5'],
      ['llamadas', 'este', '1'], ['llamadas', 'norte', '2'], ['llamadas', 'oeste', '1'], ['llamadas', 'sur', '2'],
      ['pico', 'este', '4'], ['pico', 'norte', '5'], ['pico', 'oeste', '6'], ['pico', 'sur', '7'],
      ['puestos', 'este', '2'], ['puestos', 'norte', '4'], ['puestos', 'oeste', '5'], ['puestos', 'sur', '6'],
      ['usuarios', 'este', '1'], ['usuarios', 'norte', '2'], ['usuarios', 'oeste', '1'], ['usuarios', 'sur', '2'],
    ]));
    assert.deepEqual(await usage(id), AGGREGATES);
    // norte × base, sur × 2 base, other regions (este + oeste as one lot) × 3 base:
    // llamadas 2×1 + 2×2 + 2×3 = 12; gb 12.5×10 + 5×20 + 3.5×30 = 330; pico 5×100 + 7×200 + 6×300 = 3700;
    // usuarios 2×50 + 2×100 + 1×150 = 450; puestos 4×20 + 6×40 + 5×60 = 620. Total 5112.00.
    const expected = [
      ['llamadas norte', '2', '1', '2'], ['llamadas sur', '2', '2', '4'], ['llamadas', '2', '3', '6'],
      ['gb norte', '12.5', '10', '125'], ['gb sur', '5', '20', '100'], ['gb', '3.5', '30', '105'],
      ['pico norte', '5', '100', '500'], ['pico sur', '7', '200', '1400'], ['pico', '6', '300', '1800'],
      ['usuarios norte', '2', '50', '100'], ['usuarios sur', '2', '100', '200'], ['usuarios', '1', '150', '150'],
      ['puestos norte', '4', '20', '80'], ['puestos sur', '6', '40', '240'], ['puestos', '5', '60', '300'],
    ];
    const st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
    assert.equal(st.montoHastaAhora, '5112.00');
    assert.deepEqual(sorted(st.uso.map((u: any) => [u.metrica, u.dimensiones?.region ?? null, u.cantidad])), sorted([
      ...['llamadas', 'gb', 'pico', 'usuarios', 'puestos'].flatMap((m, i) => [[m, 'norte', expected[3 * i]![1]], [m, 'sur', expected[3 * i + 1]![1]], [m, null, expected[3 * i + 2]![1]]]),
    ].filter((r) => !(['llamadas', 'gb'].includes(r[0]!) && r[1] === null)).concat([
      // count and sum keep one row per other region; the rating adds them under the fallback price.
      ['llamadas', 'este', '1'], ['llamadas', 'oeste', '1'], ['gb', 'este', '3'], ['gb', 'oeste', '0.5'],
    ])));
    assert.deepEqual(st.reglas.map((r: any) => [r.id, r.valorObservado, r.alcanzada]), [['pico7', '7', true], ['pico8', '7', false]]);
    const cfe = await closeAndRead(id);
    assert.deepEqual(sorted(cfe.lines.map(numeric)), sorted(expected.map(numeric)));
    assert.equal(cfe.total, '5112.00');
    assert.equal(cfe.periodTotal, '5112.00');
  });
});
