/** Finalizing a sales order with emitirCfe through the real app: CFE issued, order finalized, events, retries, access. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { caeRanges } from '../cae/cae.tables.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let noCae: { id: number; rut: string };

const pos = { codComercio: 'C1', codTerminal: 'T1' };
const lines = [{ nombreItem: 'Yerba', cantidad: 2, precioUnitario: '189.90' }, { nombreItem: 'Azúcar', cantidad: '1.5', precioUnitario: 50, unidadMedida: 'kg' }];

async function confirmedOrder(idEmpresa: number, cliente: Record<string, unknown> = { nombre: 'Consumidor' }, token = admin) {
  const r = await t.call(token, 'POST', '/api/v1/ordenventa/crear', { idEmpresa, cliente, detalles: lines, estado: 'confirmada' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id as number;
}
const finalize = (id: number, body: unknown, token = admin) => t.call(token, 'POST', `/api/v1/ordenventa/${id}/finalizar`, body);
async function eventsOf(idEmpresa: number) {
  const r = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${idEmpresa}&length=500`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as Array<{ type: string; data: any }>;
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  noCae = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  await setUpIssuer(t.db, t.call, admin, other);
  await setUpIssuer(t.db, t.call, admin, noCae);
  await t.db.delete(caeRanges).where(and(eq(caeRanges.companyId, noCae.id), eq(caeRanges.tipoCfe, 101)));
});
after(async () => t.close());

describe('happy path', () => {
  test('confirmada → finalizar with emitirCfe: e-Ticket issued from the order, order finalizada with idCfeEmitido, both events', async () => {
    const id = await confirmedOrder(company.id);
    const r = await finalize(id, { emitirCfe: true, ...pos });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.estado, 'finalizada');
    assert.equal(typeof r.body.idCfeEmitido, 'number');

    const cfe = await t.call(admin, 'GET', `/api/v1/cfeemitido/${r.body.idCfeEmitido}`);
    assert.equal(cfe.status, 200, JSON.stringify(cfe.body));
    assert.equal(cfe.body.tipoCfe, 101);
    assert.equal(cfe.body.idEmpresa, company.id);
    assert.equal(cfe.body.idempotencyKey, `ordenventa-${id}`);
    assert.equal(cfe.body.detalles.length, 2);
    // 379.80 + 75.00 net, 22 % VAT (order prices without VAT).
    assert.equal(cfe.body.totales.MntTotal, '554.86');

    const events = await eventsOf(company.id);
    assert.ok(events.some((e) => e.type === 'Cfe.Emitido' && e.data.idCfeEmitido === r.body.idCfeEmitido));
    const fin = events.filter((e) => e.type === 'OrdenDeVenta.Finalizada' && e.data.id === id);
    assert.equal(fin.length, 1);
    assert.equal(fin[0].data.idCfeEmitido, r.body.idCfeEmitido);
  });

  test('repeating finalize returns the same order and CFE, without a new CFE or event', async () => {
    const id = await confirmedOrder(company.id);
    const first = await finalize(id, { emitirCfe: true, ...pos });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const before = (await eventsOf(company.id)).length;
    const again = await finalize(id, { emitirCfe: true, ...pos });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.idCfeEmitido, first.body.idCfeEmitido);
    assert.equal((await eventsOf(company.id)).length, before);
  });

  test('two concurrent finalize calls: one CFE, both answer the same finalized order, one Finalizada event', async () => {
    const id = await confirmedOrder(company.id);
    const [a, b] = await Promise.all([finalize(id, { emitirCfe: true, ...pos }), finalize(id, { emitirCfe: true, ...pos })]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal(a.body.idCfeEmitido, b.body.idCfeEmitido);
    const events = await eventsOf(company.id);
    assert.equal(events.filter((e) => e.type === 'OrdenDeVenta.Finalizada' && e.data.id === id).length, 1);
    assert.equal(events.filter((e) => e.type === 'Cfe.Emitido' && e.data.idCfeEmitido === a.body.idCfeEmitido).length, 1);
  });

  test('a customer with a RUT gets an e-Factura by default; receptor override and explicit tipoCfe are used', async () => {
    const rutCliente = { documento: '214844360018', nombre: 'Cliente SA' };
    const id = await confirmedOrder(company.id, rutCliente);
    const r = await finalize(id, { emitirCfe: true, ...pos, receptor: { documento: '214844360018', razonSocial: 'Cliente SA', direccion: 'Calle 2', ciudad: 'Montevideo' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const cfe = await t.call(admin, 'GET', `/api/v1/cfeemitido/${r.body.idCfeEmitido}`);
    assert.equal(cfe.body.tipoCfe, 111);
    assert.equal(cfe.body.receptor.DocRecep, '214844360018');

    const id2 = await confirmedOrder(company.id);
    const r2 = await finalize(id2, { emitirCfe: true, ...pos, tipoCfe: 101, formaPago: 2 });
    assert.equal(r2.status, 200, JSON.stringify(r2.body));
  });

  test('without emitirCfe the order is finalized with idCfeEmitido null', async () => {
    const id = await confirmedOrder(company.id);
    const r = await finalize(id, {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.idCfeEmitido, null);
  });
});

describe('errors', () => {
  test('a rejected emission (no CAE range for the type) leaves the order confirmada and records no event', async () => {
    const id = await confirmedOrder(noCae.id);
    const before = await eventsOf(noCae.id);
    const r = await finalize(id, { emitirCfe: true, ...pos });
    assert.ok(r.status === 422 || r.status === 409, `${r.status} ${JSON.stringify(r.body)}`);
    assert.ok(r.body.code && r.body.code !== 'ORDEN_ESTADO_INVALIDO', JSON.stringify(r.body));
    const order = await t.call(admin, 'GET', `/api/v1/ordenventa/${id}`);
    assert.equal(order.body.estado, 'confirmada');
    assert.equal(order.body.idCfeEmitido, null);
    assert.deepEqual(await eventsOf(noCae.id), before);
  });

  test('emitirCfe without codComercio/codTerminal is 400', async () => {
    const id = await confirmedOrder(company.id);
    const r = await finalize(id, { emitirCfe: true });
    assert.equal(r.status, 400, JSON.stringify(r.body));
  });

  test('unknown emission point passes the emitir error through; the order stays confirmada', async () => {
    const id = await confirmedOrder(company.id);
    const r = await finalize(id, { emitirCfe: true, codComercio: 'NOPE', codTerminal: 'T1' });
    assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${JSON.stringify(r.body)}`);
    assert.equal((await t.call(admin, 'GET', `/api/v1/ordenventa/${id}`)).body.estado, 'confirmada');
  });

  test('a borrador or cancelled order cannot be finalized with emitirCfe (409), no CFE issued', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/ordenventa/crear', { idEmpresa: company.id, detalles: lines });
    const fin = await finalize(r.body.id, { emitirCfe: true, ...pos });
    assert.equal(fin.status, 409, JSON.stringify(fin.body));
    assert.equal(fin.body.code, 'ORDEN_ESTADO_INVALIDO');
  });
});

describe('access', () => {
  test('lectura cannot finalize with emitirCfe (403); another company\'s order answers 404', async () => {
    const reader = await createUser(t, admin, 'lector-ov@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    const id = await confirmedOrder(company.id);
    const r = await finalize(id, { emitirCfe: true, ...pos }, reader.token);
    assert.equal(r.status, 403, JSON.stringify(r.body));

    const outsider = await createUser(t, admin, 'emisor-otra@test.uy', [{ idEmpresa: other.id, rol: 'emisor' }]);
    const o = await finalize(id, { emitirCfe: true, ...pos }, outsider.token);
    assert.equal(o.status, 404, JSON.stringify(o.body));
    assert.equal(o.body.code, 'ORDEN_NO_ENCONTRADA');
    assert.equal((await t.call(admin, 'GET', `/api/v1/ordenventa/${id}`)).body.estado, 'confirmada');
  });
});
