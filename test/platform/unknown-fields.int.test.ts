/**
 * Unknown fields are refused (issue 28 point 1), on every operation of the OpenAPI document that
 * takes a JSON body: a body built from the operation's own request schema gets an unknown key in
 * every object it holds (the root, nested objects, the first element of each array) and must answer
 * 400 CAMPO_DESCONOCIDO naming each of them by its JSON path. Nothing is dropped in silence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.js';
import { insertCompany } from '../support/factories.js';
import { bodySender, jsonBodyOperations, type JsonSchema } from '../support/openapi-bodies.js';

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await t.adminToken();
  await insertCompany(t);
});
after(async () => t.close());


const UNKNOWN = 'campoQueNoExiste';

/** A body shaped like `s` (every declared property) with UNKNOWN in each object; `paths` collects where. */
function bodyWithUnknown(s: JsonSchema | undefined, at: string, paths: string[], depth = 0): unknown {
  if (!s || depth > 6) return null;
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const obj = branches.find((b) => b.type === 'object' && b.properties) ?? branches[0];
    return bodyWithUnknown(obj, at, paths, depth + 1);
  }
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object': {
      if (!s.properties || s.additionalProperties !== false) return {};
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties)) out[k] = bodyWithUnknown(v, at ? `${at}.${k}` : k, paths, depth + 1);
      out[UNKNOWN] = 1;
      paths.push(at ? `${at}.${UNKNOWN}` : UNKNOWN);
      return out;
    }
    case 'array': return [bodyWithUnknown(s.items, `${at}.0`, paths, depth + 1)];
    case 'integer': return Math.max(s.minimum ?? 1, 1);
    case 'number': return 1;
    case 'boolean': return true;
    case 'string': return s.format === 'date' ? '2026-11-20' : 'x';
  }
  return null;
}

describe('errors', () => {
  it('every operation with a JSON body refuses an unknown field with 400 CAMPO_DESCONOCIDO naming its path', async () => {
    const send = bodySender(t, token);
    const failures: string[] = [];
    let operations = 0;
    let nested = 0;
    for (const op of await jsonBodyOperations(t)) {
      const { method, path } = op;
      const paths: string[] = [];
      const body = bodyWithUnknown(op.schema, '', paths);
      if (paths.length === 0) {
        failures.push(`${method.toUpperCase()} ${path}: its body schema is not strict (no additionalProperties: false)`);
        continue;
      }
      operations++;
      if (paths.length > 1) nested++;
      const res = await send(op, body);
      const what = `${method.toUpperCase()} ${path}`;
      if (res.statusCode === 501) continue; // a spec area not built yet
      const answer = res.json() as { code?: string; campos?: Array<{ campo: string }> };
      // Spec 7 fixes the code of a webhook registration's 400 (WEBHOOK_PAYLOAD_INVALIDO); campos still names the key.
      const expected = path.startsWith('/api/v1/webhooks') && method === 'post' ? ['CAMPO_DESCONOCIDO', 'WEBHOOK_PAYLOAD_INVALIDO'] : ['CAMPO_DESCONOCIDO'];
      if (res.statusCode !== 400 || !expected.includes(answer.code ?? '')) {
        failures.push(`${what} → ${res.statusCode} ${res.body.slice(0, 200)}`);
        continue;
      }
      const named = new Set((answer.campos ?? []).map((c) => c.campo));
      const missing = paths.filter((p) => !named.has(p));
      if (missing.length) failures.push(`${what}: not named ${missing.join(', ')} (named ${[...named].join(', ')})`);
    }
    assert.ok(operations > 50 && nested > 10, `${operations} operations, ${nested} with nested objects`);
    assert.deepEqual(failures, []);
  });

  it('an unknown totales key on emitir is named (the misspelling of the issue)', async () => {
    token = await t.adminToken(); // the walk above called revoke-all-tokens
    const res = await t.app.inject({
      method: 'POST', url: '/api/v1/comprobante/emitir', headers: { authorization: `Bearer ${token}` },
      payload: { idEmpresa: 1, codComercio: 'x', codTerminal: 'x', cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2026-11-20' }, detalles: [{ nombreItem: 'a', cantidad: 1, precioUnitario: 1, indicadorFacturacion: 3 }], totales: { mntTotal: 1.22, mntNetoIvaTasaBasica: 1 } } },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'CAMPO_DESCONOCIDO');
    assert.deepEqual(res.json().campos.map((c: { campo: string }) => c.campo), ['cfe.totales.mntNetoIvaTasaBasica']);
    assert.match(res.json().campos[0].mensaje, /¿quiso decir mntNetoIVATasaBasica\?/);
    const line = await t.app.inject({
      method: 'POST', url: '/api/v1/comprobante/emitir', headers: { authorization: `Bearer ${token}` },
      payload: { idEmpresa: 1, codComercio: 'x', codTerminal: 'x', cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2026-11-20' }, detalles: [{ nombreItem: 'a', cantidad: 1, precioUnitario: 1, IndicadorFacturacion: 3 }] } },
    });
    assert.deepEqual(line.json().campos.map((c: { campo: string; mensaje: string }) => [c.campo, /quiso decir indicadorFacturacion/.test(c.mensaje)]), [['cfe.detalles.0.IndicadorFacturacion', true]]);
  });
});
