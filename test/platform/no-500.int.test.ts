/**
 * "Bad input always gets a clear error, never a 500" (developers' guide), checked on every operation
 * of the OpenAPI document rather than route by route: each one is called by the operator with
 * hostile path parameters, query strings and bodies, and must answer below 500 with a JSON body
 * carrying `error` and `code`.
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
