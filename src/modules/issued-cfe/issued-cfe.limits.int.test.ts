/**
 * "The error comes at the door, never as XML_INVALIDO later" (issue 28 point 3), checked field by
 * field from emitir's own OpenAPI request schema: a valid e-Ticket gets one field at a time set to
 * the edge of what the schema admits (longest string, largest and smallest integer, each enum
 * value); whatever the answer (signed, 400, 422), it must never be XML_INVALIDO.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; enum?: unknown[]; const?: unknown; properties?: Record<string, JsonSchema>; items?: JsonSchema; maxLength?: number; minimum?: number; maximum?: number; pattern?: string; format?: string };

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
});
after(async () => t.close());

const base = () => ({
  idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
  cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '189.90' }] as Record<string, unknown>[] } as Record<string, unknown>,
});

/** Edge values of a leaf schema. */
function edges(s: JsonSchema): unknown[] {
  if (s.anyOf) return s.anyOf.flatMap(edges);
  if (s.enum) return s.enum;
  if (s.const !== undefined) return [s.const];
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (type === 'string') {
    if (s.pattern || s.format) return [];
    return s.maxLength ? ['x'.repeat(s.maxLength), '9'.repeat(s.maxLength), 'ñ'.repeat(s.maxLength)] : ['x'.repeat(200)];
  }
  if (type === 'integer') return [s.maximum ?? 2147483647, s.minimum ?? -2147483648, 0, 99999];
  if (type === 'number') return [s.maximum ?? 1e6, s.minimum ?? -1e6, 0.001];
  return [];
}

/** Leaf paths of cfe (objects; the first element of arrays), with their schema. */
function leaves(s: JsonSchema | undefined, at: Array<string | number>, out: Array<[Array<string | number>, JsonSchema]>, depth = 0) {
  if (!s || depth > 5) return;
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (type === 'object' && s.properties) {
    for (const [k, v] of Object.entries(s.properties)) leaves(v, [...at, k], out, depth + 1);
  } else if (type === 'array' && s.items) {
    leaves(s.items, [...at, 0], out, depth + 1);
  } else {
    out.push([at, s]);
  }
}

function setAt(body: Record<string, unknown>, path: Array<string | number>, value: unknown) {
  let node = body as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (node[key] === undefined || node[key] === null) node[key] = typeof path[i + 1] === 'number' ? [{}] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[path.at(-1)!] = value;
}

describe('errors', () => {
  test('no field at the edge of emitir\'s schema gets through to an XML_INVALIDO', async () => {
    const doc = (await t.call(admin, 'GET', '/openapi.json')).body as { paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: JsonSchema } } } } }> };
    const schema = doc.paths['/api/v1/comprobante/emitir']!.post.requestBody.content['application/json'].schema;
    const fields: Array<[Array<string | number>, JsonSchema]> = [];
    leaves(schema.properties!.cfe, ['cfe'], fields);
    const late: string[] = [];
    let calls = 0;
    for (const [path, leaf] of fields) {
      for (const value of edges(leaf)) {
        const body = base();
        setAt(body, path, value);
        calls++;
        const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', body);
        assert.ok(r.status < 500, `${path.join('.')}=${JSON.stringify(value).slice(0, 40)} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
        if (r.body?.code === 'XML_INVALIDO') late.push(`${path.join('.')}=${JSON.stringify(value).slice(0, 40)}: ${JSON.stringify(r.body.errores ?? r.body.error).slice(0, 240)}`);
      }
    }
    assert.ok(calls > 150, `${calls} calls`);
    assert.deepEqual(late, []);
  });
});
