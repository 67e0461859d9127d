/**
 * Unknown fields are refused (issue 28 point 1): every JSON request body is validated strictly, by
 * one mechanism rather than schema by schema. When a route is declared, its body schema is rebuilt
 * once with every object in zod's default "strip" mode turned strict (catchall never), so a key the
 * schema does not know is an `unrecognized_keys` issue, answered as 400 `CAMPO_DESCONOCIDO` naming
 * its JSON path (error-handler.ts), instead of being dropped in silence. Objects that chose their
 * own mode (passthrough, catchall) keep it; the alternate names an operation documents are declared
 * fields of its schema and stay accepted. The OpenAPI document shows `additionalProperties: false`.
 * The same rebuild drops zod's coercion inside bodies: JSON carries types, and only query strings and
 * path parameters (text by nature) are converted.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { queryListSteps } from './query-filters.js';

type AnySchema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };

const NEVER = z.never();
const done = new WeakMap<AnySchema, AnySchema>();

const defOf = (s: AnySchema): Def => s._zod.def as unknown as Def;

/** A copy of `s` with `def` (checks kept), carrying the OpenAPI metadata (description, example) of `metaOf`. */
function rebuilt(s: AnySchema, def: Def, metaOf: AnySchema = s): AnySchema {
  const copy = new (s._zod.constr as new (d: unknown) => AnySchema)(def);
  const meta = z.globalRegistry.get(metaOf);
  if (meta) {
    const { id: _id, ...rest } = meta as Record<string, unknown>;
    z.globalRegistry.add(copy, rest);
  }
  return copy;
}

/** `s` with every strip-mode object strict, or `s` itself when nothing inside changes. */
export function strictSchema<T extends AnySchema>(s: T): T {
  const cached = done.get(s);
  if (cached) return cached as T;
  const out = strictOf(s);
  done.set(s, out);
  return out as T;
}

function strictOf(s: AnySchema): AnySchema {
  const def = defOf(s);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, AnySchema>;
      const next: Record<string, AnySchema> = {};
      let changed = def.catchall === undefined;
      for (const key of Object.keys(shape)) {
        next[key] = strictSchema(shape[key]!);
        if (next[key] !== shape[key]) changed = true;
      }
      return changed ? rebuilt(s, { ...def, shape: next, catchall: def.catchall ?? NEVER }) : s;
    }
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'nonoptional': case 'readonly': case 'catch':
      return withChildren(s, def, ['innerType']);
    case 'array':
      return withChildren(s, def, ['element']);
    case 'pipe':
      // A query-string list (comma-separated text or repeated) is a plain JSON array in a body.
      if (queryListSteps.has(def.in as object)) return rebuilt(def.out as AnySchema, { ...defOf(strictSchema(def.out as AnySchema)) }, s);
      return withChildren(s, def, ['in', 'out']);
    case 'record':
      return withChildren(s, def, ['valueType']);
    case 'union': {
      const options = def.options as AnySchema[];
      const next = options.map((o) => strictSchema(o));
      return next.some((o, i) => o !== options[i]) ? rebuilt(s, { ...def, options: next }) : s;
    }
    // A JSON body takes exactly the type its OpenAPI says (issue 43 point 1): the coercion some
    // shared fields carry for query strings and path parameters (`z.coerce.number()`) is dropped here,
    // so "3", [3], true or "0x3" for a number is a 400 naming the field, never a silent conversion.
    case 'number': case 'boolean': case 'bigint': case 'string': case 'date':
      return def.coerce ? rebuilt(s, { ...def, coerce: false }) : s;
    // Intersections (each side would refuse the other's keys) and lazy schemas are left as declared.
    default:
      return s;
  }
}

function withChildren(s: AnySchema, def: Def, keys: string[]): AnySchema {
  let next: Def | undefined;
  for (const key of keys) {
    const child = def[key] as AnySchema | undefined;
    if (!child) continue;
    const strict = strictSchema(child);
    if (strict !== child) (next ??= { ...def })[key] = strict;
  }
  return next ? rebuilt(s, next) : s;
}

/**
 * The keys the object at `path` of `schema` declares (through optional, default, pipe, array and union
 * wrappers), for a hint when a sent key differs from one of them only in case (`mntNetoIvaTasaBasica`).
 */
export function declaredKeysAt(schema: AnySchema, path: ReadonlyArray<string | number>): string[] {
  let nodes: AnySchema[] = [schema];
  for (let depth = 0; depth <= path.length; depth++) {
    const objects: AnySchema[] = [];
    const seen = new Set<AnySchema>();
    const unwrap = (n: AnySchema): void => {
      if (seen.has(n)) return;
      seen.add(n);
      const def = defOf(n);
      if (def.type === 'object') objects.push(n);
      else if (def.innerType) unwrap(def.innerType as AnySchema);
      else if (def.type === 'pipe') unwrap(def.in as AnySchema);
      else if (def.type === 'union') for (const o of def.options as AnySchema[]) unwrap(o);
      else if (def.type === 'array' && depth < path.length && typeof path[depth] === 'number') objects.push(n);
      else if (def.type === 'record') objects.push(n);
    };
    nodes.forEach(unwrap);
    if (depth === path.length) return objects.flatMap((o) => (defOf(o).type === 'object' ? Object.keys(defOf(o).shape as object) : []));
    const seg = path[depth]!;
    nodes = objects.flatMap((o) => {
      const def = defOf(o);
      if (def.type === 'array') return [def.element as AnySchema];
      if (def.type === 'record') return [def.valueType as AnySchema];
      const child = (def.shape as Record<string, AnySchema>)[String(seg)];
      return child ? [child] : [];
    });
  }
  return [];
}

/** Registers the onRoute hook: must come before the routes (and is harmless before OpenAPI). */
export function registerStrictBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const body = route.schema?.body;
    if (body && typeof body === 'object' && '_zod' in body) route.schema!.body = strictSchema(body as AnySchema);
  });
}
