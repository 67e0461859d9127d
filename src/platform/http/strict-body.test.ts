import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { strictSchema } from './strict-body.ts';

const keysOf = (r: { success: boolean; error?: z.ZodError }) => r.error?.issues.filter((i) => i.code === 'unrecognized_keys').map((i) => [i.path.join('.'), (i as { keys: string[] }).keys]);

describe('strictSchema', () => {
  it('refuses unknown keys at every depth (objects, optional, arrays, unions, pipes, records) and names them', () => {
    const s = strictSchema(z.object({
      a: z.object({ b: z.string() }).optional(),
      list: z.array(z.object({ c: z.number() })),
      either: z.union([z.object({ d: z.literal(1) }), z.string()]).optional(),
      piped: z.object({ e: z.string() }).transform((v) => v.e).optional(),
      map: z.record(z.string(), z.object({ f: z.boolean() })).optional(),
    }));
    assert.deepEqual(keysOf(s.safeParse({ a: { b: 'x', x1: 1 }, list: [{ c: 1, x2: 1 }], x0: 1 })), [['a', ['x1']], ['list.0', ['x2']], ['', ['x0']]]);
    assert.deepEqual(keysOf(s.safeParse({ list: [], piped: { e: 'x', x3: 1 }, map: { k: { f: true, x4: 1 } } })), [['piped', ['x3']], ['map.k', ['x4']]]);
    assert.equal(s.safeParse({ list: [], either: { d: 1, x5: 1 } }).success, false);
    assert.equal(s.safeParse({ list: [{ c: 1 }], either: 'ok', piped: { e: 'x' } }).success, true);
  });

  it('keeps an object that chose its mode (passthrough), checks, defaults and descriptions', () => {
    const inner = z.object({ g: z.string() }).passthrough();
    const s = strictSchema(z.object({ p: inner, n: z.number().refine((v) => v > 0, 'positivo').default(1) }).describe('cuerpo'));
    const r = s.safeParse({ p: { g: 'x', extra: 1 } });
    assert.deepEqual(r.data, { p: { g: 'x', extra: 1 }, n: 1 });
    assert.equal(s.safeParse({ p: { g: 'x' }, n: -1 }).success, false);
    assert.equal(z.globalRegistry.get(s)?.description, 'cuerpo');
  });

  it('returns the same schema when nothing changes, and the same strict copy on a second call', () => {
    const plain = z.array(z.string());
    assert.equal(strictSchema(plain), plain);
    const o = z.object({ a: z.string() });
    assert.equal(strictSchema(o), strictSchema(o));
    assert.notEqual(strictSchema(o), o);
    assert.equal(o.safeParse({ a: 'x', b: 1 }).success, true); // the original (responses, other users) is untouched
  });
});

describe('strictSchema: JSON types', () => {
  it('drops coercion inside bodies: a number, boolean or string field takes only its own JSON type', () => {
    const id = z.coerce.number().int().positive().describe('Company id');
    const s = strictSchema(z.object({ idEmpresa: id, flags: z.array(z.object({ on: z.coerce.boolean() })).optional(), n: z.coerce.string().optional() }));
    for (const bad of ['3', [3], ' 3 ', '0x3', '3e0', true, null]) {
      const r = s.safeParse({ idEmpresa: bad });
      assert.equal(r.success, false, JSON.stringify(bad));
      assert.deepEqual(r.error!.issues.map((i) => i.path.join('.')), ['idEmpresa']);
    }
    assert.equal(s.safeParse({ idEmpresa: 3, flags: [{ on: 'true' }] }).success, false);
    assert.equal(s.safeParse({ idEmpresa: 3, n: 5 }).success, false);
    assert.deepEqual(s.safeParse({ idEmpresa: 3, flags: [{ on: true }], n: 'x' }).data, { idEmpresa: 3, flags: [{ on: true }], n: 'x' });
    assert.equal(s.safeParse({ idEmpresa: 0 }).success, false, 'checks are kept');
    assert.equal(z.globalRegistry.get((strictSchema(id) as unknown) as z.ZodType)?.description, 'Company id');
    assert.equal(id.safeParse('3').data, 3, 'the shared field keeps coercing in query strings');
  });
});
