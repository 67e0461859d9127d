/**
 * The documented issued-CFE answer (issued-cfe.response.ts) is what the service sends: emitir and
 * GET by id checked against it, strictly at the top level (a field added to the view but not to
 * the schema fails here), and the handlers still send it without the response serializer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { setUpDgiIssuer, today } from '../dgi-submission/dgi-submission.test-helpers.js';
import { issuedCfeDetailResponse, issuedCfeResponse } from './issued-cfe.response.js';

let t: TestApp;
let admin: string;
let company: { id: number };
before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  ({ company } = await setUpDgiIssuer(t, admin));
});
after(async () => t?.close());

describe('happy path', () => {
  it('emitir and GET /cfeemitido/{id} answer exactly the documented fields', async () => {
    const e = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
      cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '100' }], adenda: 'Gracias' },
    });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    const emitted = issuedCfeResponse.strict().safeParse(e.body);
    assert.ok(emitted.success, JSON.stringify(emitted.error?.issues));
    const g = await t.call(admin, 'GET', `/api/v1/cfeemitido/${e.body.id}`);
    const got = issuedCfeDetailResponse.strict().safeParse(g.body);
    assert.ok(got.success, JSON.stringify(got.error?.issues));
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body;
    assert.ok(doc.paths['/api/v1/comprobante/emitir'].post.responses['200'].content['application/json'].schema.properties.codigoSeguridad);
  });
});
