/**
 * /docs opens on the operations: a short overview, the tags in the spec's order (getting started
 * first), a unique operationId on every operation, and the error catalogue on its own page, linked
 * from every error response, instead of a table at the top of the document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listErrorCodes } from '../../src/lib/errors.js';
import { ERROR_PAGE, operationIdOf, TAG_GROUPS } from '../../src/platform/http/openapi-layout.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
before(async () => { t = await createTestApp(); });
after(async () => t.close());

type Doc = { info: { description: string }; tags: Array<{ name: string }>; 'x-tagGroups': Array<{ name: string; tags: string[] }>; paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: Record<string, { description: string }> }>> };

describe('docs layout', () => {
  it('opens on a short overview with no error table, then the getting-started operations', async () => {
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as Doc;
    const overview = doc.info.description;
    assert.ok(overview.split('\n').length < 40, 'the overview is short');
    assert.doesNotMatch(overview, /\| code \| HTTP \|/);
    for (const topic of ['Auth', 'Company selection', 'Paging', 'Errors', 'Idempotency', 'Webhooks']) assert.match(overview, new RegExp(`\\*\\*${topic}\\.\\*\\*`));
    assert.deepEqual(doc.tags.slice(0, 3).map((x) => x.name), ['Auth', 'Empresa', 'Sucursal']);
    assert.deepEqual(doc['x-tagGroups'].map((g) => g.name), TAG_GROUPS.map((g) => g.name));
    // Every tag an operation uses is listed (a new module's tag still shows).
    const used = new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])));
    for (const tag of used) assert.ok(doc.tags.some((x) => x.name === tag), tag);
  });

  it('names every operation with a unique operationId and links every error response to the catalogue', async () => {
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as Doc;
    const ids = new Map<string, string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        assert.ok(op.operationId, `${method} ${path}`);
        assert.ok(!ids.has(op.operationId), `${op.operationId} names ${ids.get(op.operationId)} and ${method} ${path}`);
        ids.set(op.operationId, `${method} ${path}`);
        for (const [status, r] of Object.entries(op.responses)) if (Number(status) >= 400) assert.ok(r.description.includes(ERROR_PAGE), `${method} ${path} ${status}`);
      }
    }
    assert.equal(doc.paths['/api/v1/empresa/{id}'].get.operationId, 'getEmpresaById');
    assert.equal(operationIdOf('post', '/api/v1/auth/revoke-all-tokens'), 'postAuthRevokeAllTokens');
  });

  it('serves the error catalogue as a page with one anchor per code, and as JSON', async () => {
    const page = await t.app.inject({ method: 'GET', url: ERROR_PAGE });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const codes = listErrorCodes();
    assert.ok(codes.length > 100);
    for (const c of codes) assert.ok(page.body.includes(`<tr id="${c.code}">`), c.code);
    const json = await t.app.inject({ method: 'GET', url: `${ERROR_PAGE}.json` });
    assert.deepEqual(json.json().map((c: { code: string }) => c.code), codes.map((c) => c.code));
  });
});
