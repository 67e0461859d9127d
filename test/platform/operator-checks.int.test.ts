/** The daily operator checks (issue 44 point 7): one warn line per company for a CAE running out or exhausted and a certificate near expiry. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { createTestApp, type TestApp } from '../support/app.js';
import { insertCompany } from '../support/factories.js';
import { caeRanges } from '../../src/modules/cae/cae.tables.js';
import { companyCertificates } from '../../src/modules/certificates/certificates.tables.js';
import { operatorCheckHandlers } from '../../src/modules/metrics/operator-checks.jobs.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const NEXT_YEAR = `${new Date().getUTCFullYear() + 1}-12-31`;
const range = (companyId: number, tipoCfe: number, nextNumber: number, hNro = 100, fvd = NEXT_YEAR) =>
  ({ companyId, tipoCfe, serie: 'A', dNro: 1, hNro, nextNumber, caeNumber: String(90_000_000_000 + companyId * 1000 + tipoCfe), fa: '2025-01-01', fvd, origin: 'manual' as const });
const cert = (companyId: number, notAfter: Date, isActive: boolean) => ({
  companyId, subject: 'CN=x', issuer: 'CN=ca', serialNumber: String(companyId), notBefore: new Date('2025-01-01'), notAfter,
  fingerprint256: `fp-${companyId}-${notAfter.getTime()}`, certificatePem: 'pem', encryptedKey: 'k', isActive,
});

async function runChecks() {
  const lines: any[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const [handler] = operatorCheckHandlers(t.db);
  await handler!.handle({}, { logger: logger as any, attempt: 1, maxAttempts: 1 });
  return lines;
}

describe('happy path', () => {
  test('CAE running out, CAE exhausted and a certificate near expiry each give one warn line with the company; healthy ones none', async () => {
    const low = await insertCompany(t);
    const empty = await insertCompany(t);
    const fine = await insertCompany(t);
    await t.db.insert(caeRanges).values([
      range(low.id, 101, 96), // 5 left of 100
      range(empty.id, 111, 101), // used up
      range(empty.id, 101, 50, 100, '2020-12-31'), // numbers left, but expired: not usable
      range(fine.id, 101, 10), // 91 left
    ]);
    await t.db.insert(companyCertificates).values([
      cert(low.id, new Date(Date.now() + 10 * 86_400_000), true),
      cert(fine.id, new Date(Date.now() + 10 * 86_400_000), false), // inactive: no warning
      cert(fine.id, new Date(Date.now() + 200 * 86_400_000), true),
    ]);
    const lines = await runChecks();
    const of = (id: number) => lines.filter((l) => l.companyId === id);
    assert.deepEqual(of(fine.id), []);
    const lowLines = of(low.id).map((l) => l.msg).sort();
    assert.equal(lowLines.length, 2, JSON.stringify(lines));
    assert.match(lowLines[0], new RegExp(`^CAE running out: company ${low.id} type 101 has 5 numbers left`));
    assert.match(lowLines[1], new RegExp(`^signing certificate of company ${low.id} expires in 10 days`));
    const emptyLines = of(empty.id);
    assert.equal(emptyLines.length, 1, JSON.stringify(lines));
    assert.match(emptyLines[0].msg, new RegExp(`^CAE exhausted: company ${empty.id} cannot issue type 111`));
    assert.ok(lines.every((l) => l.level === 40));
  });
});
