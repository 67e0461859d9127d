import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerNotImplemented } from '../../src/platform/http/not-implemented.js';
import { specEndpoints } from '../../src/platform/http/spec-surface.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await t.adminToken();
});
after(async () => t.close());

describe('happy path', () => {
  it('answers health and readiness without a token', async () => {
    assert.deepEqual((await t.call(undefined, 'GET', '/healthz')).body, { status: 'ok' });
    const ready = (await t.call(undefined, 'GET', '/readyz')).body;
    assert.equal(ready.status, 'ready');
    // The process's resident memory and main heap (issue 29 point 5), in MB.
    assert.ok(ready.memoria.rssMb > 10 && ready.memoria.rssMb >= ready.memoria.heapTotalMb, JSON.stringify(ready.memoria));
    assert.ok(ready.memoria.heapUsedMb > 0 && ready.memoria.heapUsedMb <= ready.memoria.heapTotalMb);
  });

  it('sends the security headers on answers and on errors alike', async () => {
    for (const [method, url] of [['GET', '/healthz'], ['GET', '/api/v1/usuario/empresas'], ['GET', '/no-such-path']] as const) {
      const res = await t.app.inject({ method, url });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN', url);
      assert.match(String(res.headers['strict-transport-security']), /max-age=\d+/, url);
      assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin', url);
      assert.equal(res.headers['content-security-policy'], undefined, url);
      assert.ok(res.headers['x-request-id'], url);
    }
  });

  it('publishes an OpenAPI 3 document listing every path of the spec', async () => {
    const res = await t.call(undefined, 'GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.body.openapi, /^3\./);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    for (const ep of specEndpoints) {
      const oaPath = ep.path.replace(/:(\w+)/g, '{$1}');
      assert.ok(paths[oaPath]?.[ep.method.toLowerCase()], `missing ${ep.method} ${oaPath}`);
    }
    assert.ok(paths['/api/auth/refresh'], 'the refresh operation is documented');
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
  });

  it('npm run openapi:export writes the document the service serves, without a database', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-test-'));
    try {
      const file = path.join(dir, 'openapi.json');
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/openapi-export.ts', file], { stdio: 'pipe' });
      const exported = JSON.parse(fs.readFileSync(file, 'utf8'));
      const served = (await t.call(undefined, 'GET', '/openapi.json')).body;
      assert.deepEqual(Object.keys(exported.paths).sort(), Object.keys(served.paths).sort());
      assert.deepEqual(exported.paths['/api/v1/comprobante/emitir'], served.paths['/api/v1/comprobante/emitir']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('echoes a valid x-request-id and puts the request id in error bodies', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/usuario/empresas', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['x-request-id'], 'abc-123');
    assert.equal(res.json().requestId, 'abc-123');
  });
});

describe('errors', () => {
  it('answers unbuilt spec endpoints with 501 naming the area; no spec endpoint is left unbuilt', async () => {
    // The mechanism, on an app where nothing is built: every spec endpoint answers 501 with its area.
    const bare = Fastify();
    await registerNotImplemented(bare);
    const unbuilt = specEndpoints.find((e) => e.path === '/api/v1/contracts/:id/state')!;
    const res = await bare.inject({ method: unbuilt.method, url: unbuilt.path.replace(':id', '1') });
    await bare.close();
    assert.equal(res.statusCode, 501);
    assert.equal(res.json().code, 'NO_IMPLEMENTADO');
    assert.equal(res.json().area, unbuilt.area);
    assert.ok(res.json().error.includes(unbuilt.area));
    // The service: every area has landed, so no route carries the placeholder's tag.
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const pending = Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => op.tags?.includes('pendiente')).map(([m]) => `${m} ${p}`));
    assert.deepEqual(pending, []);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await t.call(token, 'GET', '/api/v1/no-existe');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'RUTA_NO_ENCONTRADA');
    assert.ok(res.body.requestId);
  });

  it('turns malformed JSON and validation failures into 400s with fields, never a 500', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"usuario": ' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'JSON_INVALIDO');
    const empty = await t.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload: '' });
    assert.equal(empty.statusCode, 400);
    const invalid = await t.call(undefined, 'POST', '/api/auth/login', { usuario: 5 });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.code, 'VALIDACION');
    assert.deepEqual(invalid.body.campos.map((c: { campo: string }) => c.campo).sort(), ['clave', 'usuario']);
    // In Spanish, like every other error sentence (zod's es locale).
    for (const c of invalid.body.campos as Array<{ mensaje: string }>) assert.match(c.mensaje, /^Entrada inválida: se esperaba texto/);
    assert.match(invalid.body.error, /^Datos inválidos: .*se esperaba texto/);
    const query = await t.call(token, 'GET', '/api/v1/usuario/todos?start=-1');
    assert.equal(query.status, 400);
    assert.ok(query.body.campos.some((c: { campo: string }) => c.campo === 'query.start'));
    assert.ok(!JSON.stringify(query.body).includes('at '), 'no stack trace');
  });

  it('refuses text XML 1.0 cannot carry (control characters, NUL, U+FFFE, lone surrogates) as a 400 naming the field', async () => {
    // Raw JSON text: the escapes reach the parser as they would from any client.
    const post = (payload: string) => t.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload });
    for (const [escape, codePoint] of [['\\u0000', 'U+0000'], ['\\u0001', 'U+0001'], ['\\uFFFE', 'U+FFFE'], ['\\uD800', 'U+D800']]) {
      const res = await post(`{"usuario":"a${escape}@b.uy","clave":"x"}`);
      assert.equal(res.statusCode, 400, `${escape}: ${res.body}`);
      assert.equal(res.json().code, 'VALIDACION');
      assert.deepEqual(res.json().campos.map((c: { campo: string }) => c.campo), ['usuario']);
      assert.ok(res.json().campos[0].mensaje.includes(codePoint), res.body);
    }
    // Tab, newline, an escaped backslash before "u0001", and a real surrogate pair (emoji) are fine.
    const fine = await post('{"usuario":"a\\tb\\n\\\\u0001 \\uD83C\\uDFEA 🏪@b.uy","clave":"x"}');
    assert.equal(fine.statusCode, 401, fine.body);
    const query = await t.call(token, 'GET', '/api/v1/empresa/todas?nombre=a%00b');
    assert.equal(query.status, 400);
    assert.equal(query.body.campos[0].campo, 'query.nombre');
  });

  it('answers a value beyond its column (PostgreSQL data exception) with a 400, not a 500', async () => {
    for (const url of ['/api/v1/sucursal/3000000000', '/api/v1/puntoemision/3000000000', '/api/v1/usuario/3000000000/empresas']) {
      const res = await t.call(token, 'GET', url);
      assert.ok(res.status === 400 || res.status === 404, `${url}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.ok(res.body.code && res.body.error, url);
    }
  });

  it('rejects a non-numeric idEmpresa as a company that does not exist', async () => {
    const res = await t.call(token, 'GET', '/api/v1/usuario/todos?idEmpresa=abc');
    assert.equal(res.status, 400);
  });
});
