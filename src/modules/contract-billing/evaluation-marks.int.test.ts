/**
 * Durable rule evaluations (issue 45, evaluation-queue.ts) on a real database: the mark a batch
 * writes before its events commit is evaluated by another process's sweep when the writer died
 * before its flush; a batch marking a contract while its evaluation runs, or still storing when the
 * flush begins, keeps its mark; a live process leaves no mark behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import type { Actor } from '../../platform/http/actor.js';
import { createIngestionService } from '../usage/ingestion.service.js';
import { createUsageBillingPort } from '../usage/usage.billing-port.js';
import { ok, send, usageCompany } from '../usage/usage.test-helpers.js';
import { silentLogger } from '../webhooks/webhooks.test-helpers.js';
import { createEvaluationQueue } from './evaluation-queue.js';

let t: TestApp;
let admin: string;
let co: Awaited<ReturnType<typeof usageCompany>>;
let seq = 0;
const calls = (contractId: number, n: number) =>
  Array.from({ length: n }, () => ({ idTransaccion: `mk-${++seq}`, idContrato: contractId, metrica: 'api_calls', fechaHora: new Date().toISOString() }));
const operator: Actor = { userId: 0, email: 'other-process@test.uy', isOperator: true, companies: new Map() };

/** A contract whose rule suspends it at `umbral` calls. */
async function ruledContract(name: string, umbral = '2') {
  const c = await co.contract(name, ['api_calls']);
  await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, {
    codigoListaPrecios: 'API', diaAncla: 1, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', formaPago: 2,
    reglas: [{ id: 'corte', objetivo: 'unidades', metrica: 'api_calls', umbral, accion: 'suspender' }],
  }), 200);
  return c.id as number;
}

const marksOf = async (contractId: number) =>
  (await t.db.execute(sql`select owner::text, generation::text from rule_evaluation_marks where contract_id = ${contractId}`)).rows as Array<{ owner: string; generation: string }>;
const stateOf = async (contractId: number) => (await ok(t.call(admin, 'GET', `/api/v1/contracts/${contractId}/state`), 200)).estado as string;

/** Another process's evaluation queue on the same database (`contract`: the usage port's read of a contract, to hold an evaluation). */
function otherQueue(contract?: (id: number) => Promise<unknown>) {
  const port = createUsageBillingPort({ db: t.db, defaultGraceHours: t.config.usage.defaultGraceHours });
  const usage = contract ? { ...port, contract: async (id: number) => (await contract(id), port.contract(id)) } : port;
  const s = t.modules.services;
  return createEvaluationQueue({ db: t.db, usage, priceBooks: s.priceBooks, events: s.events, logger: silentLogger, versions: new Map(), invalidation: t.database.invalidation });
}

/** A process that dies right after each batch's events commit (before the batch is over): its marks are all it leaves. */
function dyingIngestion(queue: ReturnType<typeof otherQueue>, onMarked?: () => Promise<void>) {
  return createIngestionService({
    db: t.db, defaultGraceHours: t.config.usage.defaultGraceHours,
    beforeStore: async (_companyId, events) => {
      await queue.mark(events.map((e) => e.contractId));
      await onMarked?.();
      return () => undefined;
    },
  });
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  co = await usageCompany(t, admin, [{ codigo: 'api_calls', nombre: 'Llamadas', unidad: 'llamada', agregacion: 'count' }]);
  await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${co.companyId}`, {
    codigo: 'API', nombre: 'API', moneda: 'UYU', vigenteDesde: '2025-01-01',
    precios: [{ metrica: 'api_calls', modelo: 'estandar', precioUnitario: '2.5', indicadorFacturacion: 3, nombreItem: 'Llamadas API' }],
  }));
});
after(async () => {
  await t?.close();
});

describe('happy path', () => {
  test('a live process: the batch marks its contract with rules before storing, the flush evaluates it and deletes the mark; a contract without rules gets none', async () => {
    const c = await ruledContract('live');
    const plain = (await co.contract('live-no-rules', ['api_calls'])).id as number;
    await ok(send(t, admin, co.companyId, [...calls(c, 2), ...calls(plain, 1)]), 200);
    await t.modules.services.contractRulesQueue.flush();
    assert.equal(await stateOf(c), 'suspendido');
    assert.deepEqual(await marksOf(c), []);
    assert.deepEqual(await marksOf(plain), []);
  });

  test('rules given to a contract a process knew without rules: its next batch is marked (terms changes empty what the process kept)', async () => {
    const c = (await co.contract('rules-later', ['api_calls'])).id as number;
    const ingestion = dyingIngestion(otherQueue());
    await ingestion.ingest(operator, co.companyId, calls(c, 1));
    assert.deepEqual(await marksOf(c), [], 'no terms, no mark');
    await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c}/terms`, {
      codigoListaPrecios: 'API', diaAncla: 1, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', formaPago: 2,
      reglas: [{ id: 'corte', objetivo: 'unidades', metrica: 'api_calls', umbral: '5', accion: 'suspender' }],
    }), 200);
    await ingestion.ingest(operator, co.companyId, calls(c, 1));
    assert.equal((await marksOf(c)).length, 1);
    await t.db.execute(sql`delete from rule_evaluation_marks where contract_id = ${c}`);
  });
});

describe('cost', () => {
  test('concurrent batches of one process write a contract\'s mark once; later batches within the flush window write nothing', async () => {
    const c = await ruledContract('once', '1000');
    const q = otherQueue();
    const seqValue = async () => BigInt((await t.db.execute(sql`select (case when is_called then last_value else last_value - 1 end)::text as v from rule_evaluation_marks_generation_seq`)).rows[0]!.v as string);
    const before = await seqValue();
    const dones = await Promise.all([q.mark([c]), q.mark([c]), q.mark([c])]);
    assert.equal(await seqValue(), before + 1n, 'one write for three batches');
    dones.push(await q.mark([c]));
    assert.equal(await seqValue(), before + 1n, 'known marked: no write');
    for (const d of dones) d();
    await q.flush();
    assert.deepEqual(await marksOf(c), []);
  });
});

describe('takeover of a killed process', () => {
  test("a process killed after its batch committed, before its flush: another process's sweep evaluates the mark once it is stale, and the rule suspends the contract", async () => {
    const c = await ruledContract('killed');
    // The dead process: it marks and stores, and dies before the batch is over (its queue never learns of it).
    let storedWhenMarked: unknown;
    const ingestion = dyingIngestion(otherQueue(), async () => {
      storedWhenMarked = (await t.db.execute(sql`select count(*)::int as n from usage_events where contract_id = ${c}`)).rows[0]!.n;
    });
    const r = await ingestion.ingest(operator, co.companyId, calls(c, 3));
    assert.equal(r.aceptados, 3);
    assert.equal(storedWhenMarked, 0, 'marked before the events were stored');
    const [mark] = await marksOf(c);
    assert.ok(mark, 'the mark was written before the events');

    const live = t.modules.services.contractRulesQueue;
    await live.flush();
    assert.equal(await live.sweep(), 0, 'a fresh mark is its (maybe live) process\'s');
    assert.equal(await stateOf(c), 'activo', 'nothing evaluated the contract yet');

    await t.db.execute(sql`update rule_evaluation_marks set marked_at = now() - interval '11 seconds' where contract_id = ${c}`);
    assert.equal(await live.sweep(), 1);
    assert.equal(await stateOf(c), 'suspendido');
    const hist = await ok(t.call(admin, 'GET', `/api/v1/contracts/${c}/status-history`), 200);
    assert.deepEqual(hist.data.map((h: any) => [h.estadoAnterior, h.estadoNuevo, h.motivo.tipo]), [['activo', 'suspendido', 'regla']]);
    assert.deepEqual(await marksOf(c), [], 'taken over and deleted');
    assert.equal(await live.sweep(), 0);
  });
});

describe('a mark is never deleted under a batch that needs it', () => {
  test('a batch marking the contract while its evaluation runs keeps its mark, which the next flush evaluates and deletes', async () => {
    const c = await ruledContract('during', '1000');
    let hold: Promise<void> | undefined;
    let release = () => {};
    let entered = () => {};
    const inEvaluation = new Promise<void>((resolve) => (entered = resolve));
    const q = otherQueue(async () => {
      if (!hold) return;
      entered();
      await hold;
    });
    const first = await q.mark([c]);
    first();
    const [written] = await marksOf(c);
    hold = new Promise((resolve) => (release = resolve));
    const flushing = q.flush();
    await inEvaluation;
    // A second batch arrives while the contract is being evaluated.
    const second = await q.mark([c]);
    const [rewritten] = await marksOf(c);
    assert.ok(BigInt(rewritten!.generation) > BigInt(written!.generation), 'the second batch wrote a new generation');
    second();
    release();
    await flushing;
    assert.deepEqual(await marksOf(c), [rewritten], "the evaluation that began before the second batch leaves its mark");
    hold = undefined;
    await q.flush();
    assert.deepEqual(await marksOf(c), []);
  });

  test('a batch still storing when the flush begins keeps the mark; when it is over the next flush deletes it', async () => {
    const c = await ruledContract('in-flight', '1000');
    const q = otherQueue();
    const earlier = await q.mark([c]);
    earlier();
    const storing = await q.mark([c]); // no new write: known marked
    assert.equal((await marksOf(c)).length, 1);
    await q.flush();
    assert.equal((await marksOf(c)).length, 1, 'its events may commit after the evaluation read the usage');
    storing();
    await q.flush();
    assert.deepEqual(await marksOf(c), []);
  });
});
