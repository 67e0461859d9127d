/**
 * References to the company's own CFEs checked against them before numbering (BRIEF 2.8): the date
 * sent as FechaCFEref must be the referenced CFE's, and a CFE that DGI rejected cannot be referenced
 * (DGI answers E12). References to receipts issued elsewhere are left to DGI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { addDays, uyToday } from '../../lib/dates.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
const today = uyToday();
const yesterday = addDays(today, -1);
const twoDaysAgo = addDays(today, -2);
const receptor = { documento: '214844360018', razonSocial: 'Cliente SA', direccion: 'Calle 2', ciudad: 'Montevideo' };
const line = { indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '189.90' };

const emit = (idEmpresa: number, cfe: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/comprobante/emitir', headers: { authorization: `Bearer ${admin}` }, payload: { idEmpresa, codComercio: 'C1', codTerminal: 'T1', cfe: { receptor, detalles: [line], ...cfe } } })
    .then((r) => ({ status: r.statusCode, body: r.json() }));
const invoice = (idEmpresa: number, fechaEmision: string) => emit(idEmpresa, { idDoc: { tipoCfe: 111, fechaEmision } });
const creditNote = (idEmpresa: number, ref: Record<string, unknown>) => emit(idEmpresa, { idDoc: { tipoCfe: 112, fechaEmision: today }, referencias: [{ tipoCfe: 111, serie: 'A', razon: 'Devolución', ...ref }] });
const issuedCount = async () => ((await t.db.execute(sql`select count(*)::int as n from issued_cfes`)).rows[0] as { n: number }).n;

let ours: { numero: number; id: number };
before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  await setUpIssuer(t.db, t.call, admin, other);
  const r = await invoice(company.id, yesterday);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  ours = { numero: r.body.numero, id: r.body.id };
});
after(async () => t.close());

describe('happy path', () => {
  test('a credit note with the referenced e-Factura\'s own date is issued, FechaCFEref as sent', async () => {
    const r = await creditNote(company.id, { numero: ours.numero, fecha: yesterday });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const xml = await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } });
    assert.match(xml.body, new RegExp(`<FechaCFEref>${yesterday}</FechaCFEref>`));
  });

  test('without a date, or referencing a receipt issued elsewhere, nothing is checked here', async () => {
    assert.equal((await creditNote(company.id, { numero: ours.numero })).status, 200);
    const elsewhere = await creditNote(company.id, { numero: 987_654, fecha: twoDaysAgo });
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
  });
});

const ext = { documento: 'AR-30712345678', tipoDocumento: 4, codPais: 'AR', razonSocial: 'Importadora', direccion: 'Corrientes 1', ciudad: 'Buenos Aires', departamento: 'CABA', pais: 'Argentina' };
const exportDoc = (tipoCfe: number, extra: Record<string, unknown> = {}) => ({
  idDoc: { tipoCfe, fechaEmision: today, clauVenta: 'FOB', viaTransp: 1, modVenta: 1 }, receptor: ext, totales: { tipoMoneda: 'USD', tipoCambio: 39.5 },
  detalles: [{ indicadorFacturacion: 10, nombreItem: 'Lana', cantidad: 2, precioUnitario: '50.00' }], ...extra,
});

describe('happy path (Formato v25 reference fields)', () => {
  test('monto, tipoMoneda and tipoCambio of the referenced export invoice go to MntCFEref, TpoMonedaRef, TpoCambioRef', async () => {
    const inv = await emit(company.id, exportDoc(121));
    assert.equal(inv.status, 200, JSON.stringify(inv.body));
    const ref = { tipoCfe: 121, serie: 'A', numero: inv.body.numero, razon: 'Devolución', fecha: today, monto: '100.00', tipoMoneda: 'USD', tipoCambio: '39.500' };
    const nc = await emit(company.id, exportDoc(122, { referencias: [ref] }));
    assert.equal(nc.status, 200, JSON.stringify(nc.body));
    const xml = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${nc.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
    assert.match(xml, /<FechaCFEref>[^<]+<\/FechaCFEref><MntCFEref>100\.00<\/MntCFEref><TpoMonedaRef>USD<\/TpoMonedaRef><TpoCambioRef>39\.500<\/TpoCambioRef>/);
    assert.deepEqual(validateXml('CFE', xml), { ok: true });
    assert.equal(nc.body.referencias[0].MntCFEref, '100.00');

    const over = await emit(company.id, exportDoc(122, { referencias: [{ ...ref, monto: '100.01' }] }));
    assert.equal(over.body.code, 'REFERENCIA_MONTO_EXCEDE', JSON.stringify(over.body));
    const rate = await emit(company.id, exportDoc(122, { referencias: [{ ...ref, tipoCambio: '40' }] }));
    assert.equal(rate.body.code, 'REFERENCIA_MONEDA_DISTINTA', JSON.stringify(rate.body));
    const noRate = await emit(company.id, exportDoc(122, { referencias: [{ ...ref, tipoCambio: undefined }] }));
    assert.equal(noRate.body.code, 'REFERENCIA_TIPO_CAMBIO_REQUERIDO', JSON.stringify(noRate.body));
    const negative = await emit(company.id, exportDoc(122, { referencias: [{ ...ref, monto: '-1' }] }));
    assert.equal(negative.status, 400, JSON.stringify(negative.body));
  });
});

describe('errors', () => {
  test('a date other than the referenced CFE\'s is REFERENCIA_FECHA_DISTINTA, before any number is taken', async () => {
    const before = await issuedCount();
    const r = await creditNote(company.id, { numero: ours.numero, fecha: today });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'REFERENCIA_FECHA_DISTINTA');
    assert.ok(r.body.error.includes(`A-${ours.numero}`) && r.body.error.includes(yesterday.split('-').reverse().join('/')), r.body.error);
    assert.equal(await issuedCount(), before);
  });

  test('a CFE that DGI rejected cannot be referenced (REFERENCIA_RECHAZADA_DGI)', async () => {
    const rejected = await invoice(company.id, yesterday);
    await t.db.execute(sql`update issued_cfes set estado = 'rechazado' where id = ${rejected.body.id}`);
    const before = await issuedCount();
    const r = await creditNote(company.id, { numero: rejected.body.numero });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'REFERENCIA_RECHAZADA_DGI');
    assert.equal(await issuedCount(), before);
  });

  test('but one rejected with E02 is in DGI\'s records (the original was received) and can be referenced', async () => {
    const dup = await invoice(company.id, yesterday);
    await t.db.execute(sql`update issued_cfes set estado = 'rechazado' where id = ${dup.body.id}`);
    await t.db.execute(sql`insert into issued_cfe_state_history (issued_cfe_id, company_id, lado, estado_anterior, estado, codigo, motivos)
      values (${dup.body.id}, ${company.id}, 'dgi', 'sobre_recibido', 'rechazado', 'E02', ${JSON.stringify([{ codigo: 'E02', glosa: 'Comprobante ya recibido' }])}::jsonb)`);
    const r = await creditNote(company.id, { numero: dup.body.numero, fecha: yesterday });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });
});

describe('access', () => {
  test('another company\'s receipts are not ours: neither their date nor their state is checked or revealed', async () => {
    await invoice(other.id, twoDaysAgo);
    let theirs = await invoice(other.id, twoDaysAgo);
    // A number the company itself has not issued on 111 A, so only the other company's receipt matches.
    while (theirs.body.numero <= ours.numero + 5) theirs = await invoice(other.id, twoDaysAgo);
    await t.db.execute(sql`update issued_cfes set estado = 'rechazado' where id = ${theirs.body.id}`);
    const mine = await t.db.execute(sql`select count(*)::int as n from issued_cfes where company_id = ${company.id} and tipo_cfe = 111 and numero = ${theirs.body.numero}`);
    assert.equal((mine.rows[0] as { n: number }).n, 0);
    const r = await creditNote(company.id, { numero: theirs.body.numero, fecha: today });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });
});
