/**
 * "Bad input always gets a clear error, never a 500" (developers' guide), checked on every operation
 * of the OpenAPI document rather than route by route: each one is called by the operator with
 * hostile path parameters, query strings and bodies, and must answer below 500 with a JSON body
 * carrying `error` and `code`. A second pass builds bodies from each operation's own request schema
 * with values at and past its bounds (int4 overflow, maximal strings, year 9999), which get past
 * validation into the services and the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.js';
import { insertCompany } from '../support/factories.js';

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await t.adminToken();
  await insertCompany(t); // a company 1 exists, so ids reach deeper than "not found"
});
after(async () => t.close());

const PARAM_VALUES = ['abc', '-1', '0', '1', '99999999999999999999', '1e3', '%00', "1' or '1'='1"];
const QUERIES = ['', '?idEmpresa=abc', '?idEmpresa=1&desde=2026-13-45&hasta=ayer&pagina=-1&tamanio=100000&orden=x', '?idEmpresa=99999999999999999999', '?idEmpresa=1&tipoCfe=abc&serie=%00&numero=1e400'];
const BODIES: unknown[] = [undefined, {}, [], 'texto', { idEmpresa: 'abc' }, { idEmpresa: 99999999999999999999, id: -1, fecha: '2026-02-30', monto: '1e400', nombre: 'x'.repeat(20_000) }, { idEmpresa: 1, cfe: { idDoc: { tipoCfe: 101 } }, detalles: [null], items: 'x' }];

function fill(path: string, value: string): string {
  return path.replace(/\{(\w+)\}/g, () => encodeURIComponent(value));
}

describe('errors', () => {
  it('every operation answers hostile input below 500, with error and code', async () => {
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const failures: string[] = [];
    let calls = 0;
    const statuses: Record<number, number> = {};
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const hasParams = path.includes('{');
        for (const param of hasParams ? PARAM_VALUES : ['']) {
          const url = fill(path, param);
          const variants: Array<{ query: string; body?: unknown }> = method === 'get' || method === 'delete'
            ? QUERIES.map((query) => ({ query }))
            : BODIES.map((body) => ({ query: '', body }));
          for (const v of variants) {
            calls++;
            const send = () => t.app.inject({
              method: method.toUpperCase() as 'GET',
              url: url + v.query,
              headers: { authorization: `Bearer ${token}`, ...(v.body === undefined ? {} : { 'content-type': 'application/json' }) },
              ...(v.body === undefined ? {} : { payload: JSON.stringify(v.body) }),
            });
            let res = await send();
            // POST /api/v1/auth/revoke-all-tokens revokes this very token (that is its job): log in again.
            if (res.statusCode === 401) {
              token = await t.adminToken();
              res = await send();
            }
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            const what = `${method.toUpperCase()} ${url}${v.query}${v.body === undefined ? '' : ` ${JSON.stringify(v.body).slice(0, 80)}`}`;
            // 501 NO_IMPLEMENTADO: a spec area not built yet says so (spec-surface.ts); not a failure.
            if (res.statusCode >= 500 && !(res.statusCode === 501 && res.json().code === 'NO_IMPLEMENTADO')) {
              failures.push(`${what} → ${res.statusCode} ${res.body.slice(0, 200)}`);
              continue;
            }
            if (res.statusCode >= 400) {
              let body: { error?: unknown; code?: unknown } = {};
              try { body = res.json(); } catch { /* reported below */ }
              if (typeof body.error !== 'string' || typeof body.code !== 'string') failures.push(`${what} → ${res.statusCode} without error/code: ${res.body.slice(0, 200)}`);
            }
          }
        }
      }
    }
    assert.ok(calls > 1000, `only ${calls} calls`);
    // The calls reached validation and lookups, not just the authentication in front of them.
    assert.ok(!statuses[401] && statuses[400] > 1000 && statuses[404] > 100, JSON.stringify(statuses));
    assert.deepEqual(failures, []);
  });
});

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; allOf?: JsonSchema[]; enum?: unknown[]; const?: unknown; properties?: Record<string, JsonSchema>; required?: string[]; items?: JsonSchema; maximum?: number; minimum?: number; maxLength?: number; minLength?: number; format?: string; pattern?: string };

/** A body for `s` in one of several modes: each mode picks other bounds, branches and optional fields. */
function bodyFor(s: JsonSchema | undefined, mode: number, depth = 0): unknown {
  if (!s || depth > 6) return null;
  const branches = s.anyOf ?? s.oneOf;
  if (branches) return bodyFor(branches[mode % branches.length], mode, depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((x) => bodyFor(x, mode, depth + 1)));
  if (s.enum) return s.enum[mode % s.enum.length];
  if (s.const !== undefined) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {})
        .filter(([k]) => mode % 2 === 0 || (s.required ?? []).includes(k))
        .map(([k, v]) => [k, bodyFor(v, mode, depth + 1)]));
    case 'array': return [bodyFor(s.items, mode, depth + 1)];
    case 'integer': return [s.maximum ?? 2147483648, s.minimum ?? -1, 1, 2147483647, 0][mode % 5];
    case 'number': return [s.maximum ?? 1e15, s.minimum ?? -1, 1.5, 0][mode % 4];
    case 'boolean': return mode % 2 === 0;
    case 'string': {
      if (s.format === 'date') return ['9999-12-31', '1900-01-01', '2026-11-20'][mode % 3];
      if (s.format === 'date-time') return ['9999-12-31T23:59:59Z', '1970-01-01T00:00:00Z'][mode % 2];
      if (s.format === 'email') return 'a@b.uy';
      if (s.format === 'uri') return 'https://example.com/x';
      if (s.pattern) return null;
      const max = Math.min(s.maxLength ?? 50_000, 50_000);
      return ['x'.repeat(max), 'x'.repeat(Math.max(s.minLength ?? 1, 1)), '1', 'ñá'.repeat(Math.min(Math.floor(max / 2), 100))][mode % 4];
    }
  }
  return null;
}

describe('errors (bodies from the request schemas)', () => {
  it('every operation with a JSON body answers schema-shaped values at its bounds below 500', async () => {
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>> };
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!schema || !['post', 'put', 'patch'].includes(method)) continue;
        for (const param of path.includes('{') ? ['1', '2147483648'] : ['']) {
          const url = fill(path, param);
          for (let mode = 0; mode < 8; mode++) {
            const body = bodyFor(schema, mode);
            const send = () => t.app.inject({ method: method.toUpperCase() as 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
            let res = await send();
            if (res.statusCode === 401 && !path.startsWith('/api/auth/')) {
              token = await t.adminToken(); // revoke-all-tokens again
              res = await send();
            }
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            if (res.statusCode >= 500 && !(res.statusCode === 501 && res.json().code === 'NO_IMPLEMENTADO')) {
              failures.push(`${method.toUpperCase()} ${url} ${JSON.stringify(body).slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
            }
          }
        }
      }
    }
    // Some bodies got through validation to the services (2xx, 404, 409, 422), not only 400s.
    assert.ok((statuses[200] ?? 0) + (statuses[201] ?? 0) + (statuses[202] ?? 0) > 10 && (statuses[404] ?? 0) > 20, JSON.stringify(statuses));
    assert.deepEqual(failures, []);
  });
});
