/**
 * The free-text policy of emitir (free-text.ts, issue 29 point 2) through the app: line breaks
 * are signed as LF and the receipt is accepted by the simulated DGI; control characters and
 * Unicode line separators are refused with 400 naming the field, before any number is used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import type { JobRunner } from '../../platform/jobs/runner.js';
import { enqueueSubmitPending } from '../dgi-submission/dgi-submission.jobs.js';
import { setUpDgiIssuer, startRunner, ticket, waitForState } from '../dgi-submission/dgi-submission.test-helpers.js';
import { issuedCfes } from './issued-cfe.tables.js';

let t: TestApp;
let admin: string;
let runner: JobRunner | undefined;
let issuer: Awaited<ReturnType<typeof setUpDgiIssuer>>;

const body = (detalle: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const b = ticket(issuer.company.id, extra);
  b.cfe.detalles = [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100', ...detalle }];
  return b;
};

before(async () => {
  t = await createTestApp({ DGI_WAKE_DEBOUNCE_MS: '0' });
  admin = await t.adminToken();
  issuer = await setUpDgiIssuer(t, admin);
});
after(async () => {
  await runner?.stop();
  await t.close();
});

describe('happy path', () => {
  test('CR LF and lone CR become LF, tabs and non-ASCII text stay; signed, and accepted by the simulated DGI', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', body(
      { nombreItem: 'Yerba\r\nmate\tcompuesta', descripcionItem: 'Ñandú\rcafé “especial” €' },
      { adenda: 'Gracias\r\npor su compra' },
    ));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.detalles[0].NomItem, 'Yerba\nmate\tcompuesta');
    assert.equal(r.body.detalles[0].DscItem, 'Ñandú\ncafé “especial” €');
    assert.equal(r.body.adenda, 'Gracias\npor su compra');
    const [row] = await t.db.select({ xml: issuedCfes.xml }).from(issuedCfes).where(eq(issuedCfes.id, r.body.id));
    assert.ok(row.xml.includes('Yerba\nmate\tcompuesta') && !row.xml.includes('\r') && !row.xml.includes('&#xD;'));
    runner = await startRunner(t);
    await enqueueSubmitPending(t.db);
    const final = await waitForState(t, admin, r.body.id, ['aceptado', 'rechazado']);
    assert.equal(final.estado, 'aceptado', JSON.stringify(final.historial.at(-1)));
  });
});

describe('errors', () => {
  for (const [name, char] of [['NEL (C1)', '\u0085'], ['U+0090 (C1)', '\u0090'], ['DEL', '\u007f'], ['line separator', '\u2028'], ['paragraph separator', '\u2029']] as const) {
    test(`${name} in nombreItem: 400 VALIDACION naming the field, no number used`, async () => {
      const before = (await t.db.select({ id: issuedCfes.id }).from(issuedCfes).where(eq(issuedCfes.companyId, issuer.company.id))).length;
      const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', body({ nombreItem: `Yerba${char}mate` }));
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.code, 'VALIDACION');
      assert.equal(r.body.campos[0].campo, 'cfe.detalles.0.nombreItem');
      assert.match(r.body.campos[0].mensaje, new RegExp(`U\\+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`));
      const afterCount = (await t.db.select({ id: issuedCfes.id }).from(issuedCfes).where(eq(issuedCfes.companyId, issuer.company.id))).length;
      assert.equal(afterCount, before);
    });
  }

  test('the adenda and transcribirContingencia follow the same policy', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', body({}, { adenda: 'x\u2028y' }));
    assert.equal(r.status, 400);
    assert.equal(r.body.campos[0].campo, 'cfe.adenda');
    const c = await t.call(admin, 'POST', '/api/v1/comprobante/transcribirContingencia', { ...body({ nombreItem: 'a\u0085b' }), cfe: { ...body({ nombreItem: 'a\u0085b' }).cfe, idDoc: { tipoCfe: 201, fechaEmision: body({}).cfe.idDoc.fechaEmision, serie: 'A', numero: 1 } } });
    assert.equal(c.status, 400, JSON.stringify(c.body));
    assert.equal(c.body.campos[0].campo, 'cfe.detalles.0.nombreItem');
  });
});

describe('access', () => {
  test("another company's id: a body the policy refuses is a 400 before any company lookup, revealing nothing about it", async () => {
    const other = await insertCompany(t);
    const b = body({ nombreItem: 'a\u2028b' });
    b.idEmpresa = other.id;
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', b);
    assert.equal(r.status, 400);
  });
});
