/**
 * The emission pipeline's forecast (issued-cfe.forecast.ts, issued-cfe.batcher.ts) on the real
 * database and the real sealing worker thread: batches sealed ahead with forecast numbers, and
 * what happens when another process takes a number in between (the forecast misses, the batch is
 * sealed again under the lock): every stored CFE is signed with exactly its own number.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { verifyXmlSignature } from '../emission/index.js';
import { createEmissionBatcher, type Emitted } from './issued-cfe.batcher.js';
import { findIssuedCfe } from './issued-cfe.repository.js';
import { createSealer } from './issued-cfe.sealer.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
const sealer = createSealer({ workers: 1 });

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
});
after(async () => {
  await sealer.close();
  await t.close();
});

async function prepared(companyId: number, n: number, line: Record<string, unknown> = {}) {
  const body = { idEmpresa: companyId, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101 as const, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3 as const, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100.00', ...line }] } };
  return Promise.all(Array.from({ length: n }, () => t.modules.services.issuedCfe.prepare(body as never)));
}

function assertSealedWithOwnNumber(e: Emitted, certificatePem: string) {
  const { row } = e;
  assert.match(row.xml, new RegExp(`<Serie>${row.serie}</Serie><Nro>${row.numero}</Nro>`));
  const v = verifyXmlSignature(row.xml, { certificate: certificatePem });
  assert.ok(v.valid, v.reason);
  assert.equal(v.digestValue, row.digestValue);
  assert.ok(row.urlQr.includes(`,${row.serie},${row.numero},`), row.urlQr);
}

/** The batcher's ports as the module wires them (issued-cfe/index.ts). */
function ports() {
  const { cae, events } = t.modules.services;
  return { reserveNumbers: cae.reserveNumbers, exactReservationCtes: cae.exactReservationCtes, recordEvents: events.recordMany, insertEventsFrom: events.insertFrom };
}

describe('happy path', () => {
  test('batches after the first are sealed ahead with the forecast numbers, which hold', async () => {
    const company = await insertCompany(t);
    const issuer = await setUpIssuer(t.db, t.call, admin, company);
    const cae = t.modules.services.cae;
    const batcher = createEmissionBatcher({ db: t.db, sealer, maxBatch: 4, ...ports() });
    const emitted = await Promise.all((await prepared(company.id, 16)).map((p) => batcher.submit(p)));
    assert.deepEqual(emitted.map((e) => e.row.numero).sort((a, b) => a - b), Array.from({ length: 16 }, (_, i) => i + 1));
    for (const e of emitted) assertSealedWithOwnNumber(e, issuer.certPem);
    // The first batch (no forecast yet) is sealed under the lock; every later one ahead of it.
    const st = batcher.stats();
    assert.ok(st.batches >= 4, JSON.stringify(st));
    assert.equal(st.forecastsHeld, st.batches - 1, JSON.stringify(st));
    assert.equal(st.forecastsMissed, 0);
    // Batches sealed ahead are one statement that does not read the rows back: what it answers is what is stored.
    for (const e of emitted) assert.deepEqual(e.row, await findIssuedCfe(t.db, e.row.id));
    const events = await t.db.execute(sql`select (data->>'idCfeEmitido')::bigint as id, data->>'numero' as numero from outbox_events where company_id = ${company.id} and type = 'Cfe.Emitido' order by id`);
    assert.deepEqual(
      (events.rows as Array<{ id: string; numero: string }>).map((r) => `${r.id}:${r.numero}`).sort(),
      emitted.map((e) => `${e.row.id}:${e.row.numero}`).sort(),
      'one Cfe.Emitido per CFE, with its id',
    );
    const [usage] = (await t.db.execute(sql`select sum(cantidad)::int as n from cae_daily_usage u join cae_ranges r on r.id = u.cae_range_id where r.company_id = ${company.id}`)).rows as Array<{ n: number }>;
    assert.equal(usage.n, 16, 'the daily CAE usage counts every number');
  });

  test('the signed XML is stored byte for byte when its text has multi-byte characters of varying length', async () => {
    const company = await insertCompany(t);
    const issuer = await setUpIssuer(t.db, t.call, admin, company);
    const batcher = createEmissionBatcher({ db: t.db, sealer, maxBatch: 8, ...ports() });
    // The batch sends its XMLs as one byte string sliced per row: each name shifts the next offsets differently.
    const names = ['Ñandú', 'Açaí € 1 kg', 'Pan', '🧉 Mate porongo', 'Café crème brûlée', 'Ü', 'Yerba', 'Ñ'.repeat(40), 'Té', 'Dulce de leche 🥛'];
    const all = (await Promise.all(names.map((nombreItem) => prepared(company.id, 1, { nombreItem })))).flat();
    const emitted = await Promise.all(all.map((p) => batcher.submit(p)));
    assert.ok(batcher.stats().forecastsHeld >= 1, JSON.stringify(batcher.stats()));
    for (const e of emitted) {
      assertSealedWithOwnNumber(e, issuer.certPem);
      const [stored] = (await t.db.execute(sql`select xml from issued_cfes where id = ${e.row.id}`)).rows as Array<{ xml: string }>;
      assert.equal(stored.xml, e.row.xml);
      assert.ok(verifyXmlSignature(stored.xml, { certificate: issuer.certPem }).valid);
    }
    assert.deepEqual(emitted.map((e) => /<NomItem>([^<]*)<\/NomItem>/.exec(e.row.xml)?.[1]).sort(), [...names].sort());
  });
});

describe('errors', () => {
  test('another process takes a number between batches: the forecast misses, the batch is sealed again with the numbers it got', async () => {
    const company = await insertCompany(t);
    const issuer = await setUpIssuer(t.db, t.call, admin, company);
    const cae = t.modules.services.cae;
    let stolen = 0;
    // Before the second batch's statement (the first one sealed ahead), "another process" commits the next number.
    // The one-statement batch runs on the pool as a prepared statement (db.$client.query).
    const db = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop !== '$client') return Reflect.get(target, prop, receiver);
        const pool = target.$client;
        const query = async (...args: unknown[]) => {
          if (!stolen) stolen = (await cae.reserveNumbers(target, { companyId: company.id, branchId: issuer.branch.id, tipoCfe: 101, fecha: today }, 1))[0].numero;
          return (pool.query as (...a: unknown[]) => Promise<unknown>).apply(pool, args);
        };
        return { query };
      },
    });
    const batcher = createEmissionBatcher({ db, sealer, maxBatch: 4, ...ports() });
    const emitted = await Promise.all((await prepared(company.id, 16)).map((p) => batcher.submit(p)));
    const numbers = emitted.map((e) => e.row.numero).sort((a, b) => a - b);
    assert.ok(stolen > 1);
    assert.deepEqual(numbers, Array.from({ length: 17 }, (_, i) => i + 1).filter((n) => n !== stolen));
    for (const e of emitted) assertSealedWithOwnNumber(e, issuer.certPem);
    const stored = await t.db.execute(sql`select numero, xml from issued_cfes where company_id = ${company.id} order by numero`);
    for (const r of stored.rows as Array<{ numero: number; xml: string }>) assert.match(r.xml, new RegExp(`<Nro>${r.numero}</Nro>`));
    const st = batcher.stats();
    assert.ok(st.forecastsMissed >= 1, JSON.stringify(st));
    assert.equal(st.fallbacks, 0);
  });

  test('a receipt sealed ahead fails the XSD in the middle of the stream: it alone fails, consumes no number, the rest stay contiguous', async () => {
    const company = await insertCompany(t);
    const issuer = await setUpIssuer(t.db, t.call, admin, company);
    const batcher = createEmissionBatcher({ db: t.db, sealer, maxBatch: 4, ...ports() });
    const [first] = await prepared(company.id, 1);
    const good = await prepared(company.id, 12);
    // TpoCod is at most 10 characters in DGI's XSD: only sealing catches it.
    const [bad] = await prepared(company.id, 1, { codigoItem: [{ tpoCod: 'DEMASIADO-LARGO-PARA-DGI', cod: '1' }] });
    // The first receipt opens the lane (transaction); the others queue behind it and are then sealed ahead.
    const results = await Promise.allSettled([first, ...good.slice(0, 6), bad, ...good.slice(6)].map((p) => batcher.submit(p)));
    const failed = results.filter((r) => r.status === 'rejected');
    assert.equal(failed.length, 1);
    assert.equal(results[7].status, 'rejected');
    assert.equal(((results[7] as PromiseRejectedResult).reason as { code?: string }).code, 'XML_INVALIDO');
    const emitted = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.deepEqual(emitted.map((e) => e.row.numero).sort((a, b) => a - b), Array.from({ length: 13 }, (_, i) => i + 1));
    for (const e of emitted) assertSealedWithOwnNumber(e, issuer.certPem);
    assert.ok(batcher.stats().forecastsHeld >= 1, JSON.stringify(batcher.stats()));
    assert.equal(batcher.stats().fallbacks, 0, 'the failing receipt went alone, nobody else was retried');
  });

  test('text XML cannot carry that reached the builder (not through the API, which refuses it) is a 422 for that receipt, never a crash', async () => {
    const company = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, company);
    const batcher = createEmissionBatcher({ db: t.db, sealer, maxBatch: 4, ...ports() });
    const [first] = await prepared(company.id, 1);
    const [bad] = await prepared(company.id, 1, { nombreItem: 'A\u0001B' });
    const [after] = await prepared(company.id, 1);
    const results = await Promise.allSettled([first, bad, after].map((p) => batcher.submit(p)));
    assert.equal(results[1].status, 'rejected');
    assert.equal(((results[1] as PromiseRejectedResult).reason as { code?: string }).code, 'XML_INVALIDO');
    assert.deepEqual(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.row.numero] : [])), [1, 2]);
    // The sealing the printing block overtook settles later; an unobserved rejection would end the process.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  test('receipts one at a time: the lane keeps its cursor through a lull, and a number taken meanwhile by another process is a missed forecast, never a wrong number', async () => {
    const company = await insertCompany(t);
    const issuer = await setUpIssuer(t.db, t.call, admin, company);
    const cae = t.modules.services.cae;
    const batcher = createEmissionBatcher({ db: t.db, sealer, ...ports() });
    const one = async () => batcher.submit((await prepared(company.id, 1))[0]);
    const a = await one();
    const b = await one();
    assert.equal(batcher.stats().forecastsHeld, 1, 'the second was sealed ahead and stored in one statement');
    const stolen = (await cae.reserveNumbers(t.db, { companyId: company.id, branchId: issuer.branch.id, tipoCfe: 101, fecha: today }, 1))[0].numero;
    const c = await one();
    assert.deepEqual([a.row.numero, b.row.numero, stolen, c.row.numero], [1, 2, 3, 4]);
    for (const e of [a, b, c]) assertSealedWithOwnNumber(e, issuer.certPem);
    assert.equal(batcher.stats().forecastsMissed, 1);
  });
});
