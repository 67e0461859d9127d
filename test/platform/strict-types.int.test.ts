/**
 * A JSON body takes exactly the type its OpenAPI document says (issue 43 point 1), on every
 * operation with a JSON body: each number, integer and boolean field is sent as a string, inside an
 * array and as the other scalar types, and each list of scalars as comma-separated text and as a
 * lone item, one at a time in an otherwise well-formed body, and must be answered 400 naming that
 * field by its JSON path. Coercion is for query strings and path
 * parameters only (strict-body.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
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

type Leaf = { path: Array<string | number>; types: Set<string>; value: unknown };

const typesOf = (s: JsonSchema): string[] => {
  const branches = s.anyOf ?? s.oneOf;
  if (branches) return branches.flatMap(typesOf);
  if (s.enum) return [...new Set(s.enum.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)))];
  if (s.const !== undefined) return [s.const === null ? 'null' : typeof s.const === 'number' ? 'integer' : typeof s.const];
  return s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
};

/** A well-formed body shaped like `s`, collecting its number/integer/boolean leaves. */
function build(s: JsonSchema | undefined, path: Array<string | number>, leaves: Leaf[], depth = 0): unknown {
  if (!s || depth > 8) return null;
  const branches = s.anyOf ?? s.oneOf;
  const types = new Set(typesOf(s));
  const node = branches ? branches.find((b) => b.type === 'object' && b.properties) ?? branches.find((b) => b.type !== 'null') ?? branches[0] : s;
  if (node !== s && (node.type === 'object' || node.type === 'array')) return build(node, path, leaves, depth + 1);
  let value: unknown;
  if (node.enum) value = node.enum[0];
  else if (node.const !== undefined) value = node.const;
  else {
    const type = Array.isArray(node.type) ? node.type.find((x) => x !== 'null') : node.type;
    switch (type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(node.properties ?? {})) out[k] = build(v, [...path, k], leaves, depth + 1);
        return out;
      }
      case 'array': {
        const list = [build(node.items, [...path, 0], leaves, depth + 1)];
        // A list of scalars is a JSON array: never comma-separated text as in a query string.
        if (typeof list[0] !== 'object' && !types.has('string')) leaves.push({ path, types, value: list });
        return list;
      }
      case 'integer': value = Math.max(node.minimum ?? 1, 1); break;
      case 'number': value = 1; break;
      case 'boolean': value = true; break;
      case 'string': value = node.format === 'date' ? '2026-11-20' : 'x'; break;
      default: value = null;
    }
  }
  if (types.has('number') || types.has('integer') || types.has('boolean')) leaves.push({ path, types, value });
  return value;
}

/** Values of the wrong JSON type for a leaf: its text, itself in an array, and the other scalars. */
function wrongValues(leaf: Leaf): unknown[] {
  const { types, value } = leaf;
  if (Array.isArray(value)) return [value.join(','), `${value.join(',')},${value.join(',')}`, value[0]];
  const numeric = types.has('number') || types.has('integer');
  const out: unknown[] = [];
  if (!types.has('string')) out.push(String(value), ` ${String(value)} `);
  if (!types.has('array')) out.push([value]);
  if (!types.has('boolean')) out.push(true);
  if (!numeric) out.push(1);
  if (!types.has('object')) out.push({});
  if (numeric && !types.has('string')) out.push('0x1', '1e0');
  return out;
}

function withValue(body: unknown, path: Array<string | number>, v: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = v;
  return copy;
}

describe('errors', () => {
  it('every number, integer and boolean body field refuses other JSON types with 400 naming the field', async () => {
    const send = bodySender(t, token);
    const failures: string[] = [];
    let fields = 0;
    let sent = 0;
    for (const op of await jsonBodyOperations(t)) {
      const leaves: Leaf[] = [];
      const body = build(op.schema, [], leaves);
      for (const leaf of leaves) {
        fields++;
        const name = leaf.path.join('.');
        for (const bad of wrongValues(leaf)) {
          sent++;
          const res = await send(op, withValue(body, leaf.path, bad));
          const named = res.statusCode === 400 && ((res.json() as { campos?: Array<{ campo: string }> }).campos ?? []).some((c) => c.campo === name);
          if (!named) failures.push(`${op.method.toUpperCase()} ${op.path} ${name}=${JSON.stringify(bad)} → ${res.statusCode} ${res.body.slice(0, 160)}`);
        }
      }
    }
    assert.ok(fields > 100 && sent > 500, `${fields} fields, ${sent} requests`);
    assert.deepEqual(failures, []);
  });

  it('the reported case: idEmpresa "3", [3], " 3 ", "0x3", "3e0" or true on a tax-benefit declaration is a 400 and saves nothing', async () => {
    const fresh = await t.adminToken(); // the walk above called revoke-all-tokens
    for (const idEmpresa of ['1', [1], ' 1 ', '0x1', '1e0', true]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/empresa/beneficio-fiscal/declaracion', headers: { authorization: `Bearer ${fresh}` }, payload: { idEmpresa, regimen: '206', anioFiscal: 2026 } });
      assert.equal(res.statusCode, 400, JSON.stringify(idEmpresa));
      assert.ok(res.json().campos.some((c: { campo: string }) => c.campo === 'idEmpresa'));
    }
    const rows = await t.db.execute(sql`select count(*)::int as n from tax_benefit_declarations`);
    assert.equal(rows.rows[0]!.n, 0);
  });
});
