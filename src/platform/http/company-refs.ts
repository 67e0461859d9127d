/**
 * Ids inside a request belong to the request's company (issue 28 point 5), by one mechanism, like
 * the `idEmpresa` rule of tenancy.ts:
 * - a schema field is declared with `companyRef(schema, kind)`; the declaration is zod metadata, so
 *   it also appears in the OpenAPI document as `x-empresa-ref: <kind>`;
 * - at registration, each route's body and path schemas are walked once for those fields;
 * - before the handler, every id found is resolved through the owning module's service
 *   (`CompanyRefResolvers`, wired in modules/index.ts): an id of another company gets exactly the
 *   answer of an id that does not exist (the kind's not-found error, or the field's own).
 * The request's company is its `idEmpresa` (body or query), else the company of the field marked
 * `anchor` (the resource the route acts on, e.g. the order of ordenventa/editar), else the caller's
 * only company (what the services choose when none is named). An anchor the caller cannot see is
 * left to the service, which answers its own 404 for it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { canSeeCompany, onlyCompanyOf } from './actor.js';

export const companyRefKinds = ['cliente', 'producto', 'variante', 'lote', 'sucursal', 'puntoEmision', 'cae', 'cfc', 'certificado', 'cfe', 'ordenVenta', 'versionListaPrecios', 'planRecurrente'] as const;
export type CompanyRefKind = (typeof companyRefKinds)[number];

/** OpenAPI keys: the kind, whether the field names the resource the route acts on, the error code of a miss. */
export const REF_KEY = 'x-empresa-ref';
const ANCHOR_KEY = 'x-empresa-ref-recurso';
const ERROR_KEY = 'x-empresa-ref-error';

/**
 * Declares an id field as a reference to a row of the request's company. `anchor`: the field names
 * the resource the route acts on (its company is the request's when no idEmpresa is sent).
 * `error`: catalogue code answered for a miss when it is not the kind's default.
 */
export function companyRef<T extends z.ZodType>(schema: T, kind: CompanyRefKind, opts: { anchor?: boolean; error?: string } = {}): T {
  const meta: Record<string, unknown> = { [REF_KEY]: kind };
  if (opts.anchor) meta[ANCHOR_KEY] = true;
  if (opts.error) meta[ERROR_KEY] = opts.error;
  return schema.meta(meta) as T;
}

export interface CompanyRefResolver {
  /** id → company id of the rows that exist. */
  companyOf(ids: readonly number[]): Promise<Map<number, number>>;
  /** What an id that does not exist answers. */
  notFound(): AppError;
}
export type CompanyRefResolvers = Record<CompanyRefKind, CompanyRefResolver>;

export interface RefField {
  source: 'body' | 'params';
  /** Property names; '*' steps into every array element. */
  path: string[];
  kind: CompanyRefKind;
  anchor: boolean;
  error?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    companyRefResolvers: CompanyRefResolvers;
  }
  interface FastifyContextConfig {
    /** Filled at registration from the route's schemas (not declared by hand). */
    companyRefs?: RefField[];
  }
}

type Def = { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; innerType?: z.ZodType; in?: z.ZodType; options?: z.ZodType[]; left?: z.ZodType; right?: z.ZodType };

/** The reference fields of a schema, found through wrappers, objects, arrays, unions and pipes. */
export function findRefFields(schema: unknown, source: RefField['source'], path: string[] = [], ancestors = new Set<unknown>()): RefField[] {
  // `ancestors` stops recursive schemas; a schema shared by two fields is walked under each.
  if (!schema || typeof schema !== 'object' || !('_zod' in schema) || ancestors.has(schema)) return [];
  ancestors.add(schema);
  try {
    return walkNode(schema as z.ZodType, source, path, ancestors);
  } finally {
    ancestors.delete(schema);
  }
}

function walkNode(node: z.ZodType, source: RefField['source'], path: string[], ancestors: Set<unknown>): RefField[] {
  const meta = z.globalRegistry.get(node) as Record<string, unknown> | undefined;
  if (meta?.[REF_KEY]) {
    return [{ source, path, kind: meta[REF_KEY] as CompanyRefKind, anchor: meta[ANCHOR_KEY] === true, error: meta[ERROR_KEY] as string | undefined }];
  }
  const def = (node as unknown as { _zod: { def: Def } })._zod.def;
  const walk = (s: unknown, p: string[]) => findRefFields(s, source, p, ancestors);
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([k, v]) => walk(v, [...path, k]));
    case 'array':
      return walk(def.element, [...path, '*']);
    case 'union':
      return dedupe((def.options ?? []).flatMap((o) => walk(o, path)));
    case 'intersection':
      return [...walk(def.left, path), ...walk(def.right, path)];
    case 'pipe':
      return walk(def.in, path);
    default:
      return def.innerType ? walk(def.innerType, path) : [];
  }
}

function dedupe(fields: RefField[]): RefField[] {
  const seen = new Set<string>();
  return fields.filter((f) => {
    const key = `${f.source}:${f.path.join('.')}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

function valuesAt(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return [value];
  if (value === null || typeof value !== 'object') return [];
  const [head, ...rest] = path;
  if (head === '*') return Array.isArray(value) ? value.flatMap((v) => valuesAt(v, rest)) : [];
  return valuesAt((value as Record<string, unknown>)[head], rest);
}

function requestCompany(body: unknown, query: unknown): number | undefined {
  for (const src of [body, query]) {
    const v = src && typeof src === 'object' ? (src as Record<string, unknown>).idEmpresa : undefined;
    if (typeof v === 'number') return v;
  }
  return undefined;
}

export function registerCompanyRefs(app: FastifyInstance, resolvers: CompanyRefResolvers): void {
  app.decorate('companyRefResolvers', resolvers);
  app.addHook('onRoute', (opts) => {
    const schema = opts.schema as { body?: unknown; params?: unknown } | undefined;
    if (!schema) return;
    const fields = [...findRefFields(schema.body, 'body'), ...findRefFields(schema.params, 'params')];
    if (fields.length) opts.config = { ...opts.config, companyRefs: fields };
  });

  app.addHook('preHandler', async (request) => {
    const fields = request.routeOptions.config?.companyRefs;
    if (fields) await checkRefs(request, fields, { body: request.body, params: request.params });
  });
}

const fieldsBySchema = new WeakMap<object, RefField[]>();

/**
 * The same check for a body a handler parses itself (multipart or JSON behind one route, as
 * cae/importar): call it with the schema the body was parsed with, before using the ids.
 */
export async function assertCompanyRefs(request: FastifyRequest, schema: z.ZodType, body: unknown): Promise<void> {
  let fields = fieldsBySchema.get(schema);
  if (!fields) fieldsBySchema.set(schema, (fields = findRefFields(schema, 'body')));
  await checkRefs(request, fields, { body, params: request.params });
}

async function checkRefs(request: FastifyRequest, fields: RefField[], values: { body: unknown; params: unknown }): Promise<void> {
  const actor = request.actor;
  if (!actor || fields.length === 0) return;
  const resolvers = request.server.companyRefResolvers;
  const found = fields.flatMap((f) => valuesAt(values[f.source], f.path)
    .filter((v): v is number => typeof v === 'number')
    .map((id) => ({ field: f, id })));
  const refs = found.filter((r) => !r.field.anchor);
  if (refs.length === 0) return;

  let companyId = requestCompany(values.body, request.query);
  // A company the caller cannot see is answered by the tenancy rule or the service, never through its ids.
  if (companyId !== undefined && !canSeeCompany(actor, companyId)) return;
  if (companyId === undefined) {
    const anchor = found.find((r) => r.field.anchor);
    if (anchor) {
      companyId = (await resolvers[anchor.field.kind].companyOf([anchor.id])).get(anchor.id);
      if (companyId === undefined || !canSeeCompany(actor, companyId)) return;
    } else {
      // No company named: the services act on the caller's only company, so every id must be of it.
      companyId = onlyCompanyOf(actor);
    }
  }
  for (const kind of new Set(refs.map((r) => r.field.kind))) {
    const ofKind = refs.filter((r) => r.field.kind === kind);
    const owners = await resolvers[kind].companyOf(ofKind.map((r) => r.id));
    // Company still unknown (an operator or a user of several companies naming none; the service
    // will ask for idEmpresa): every id must at least be of one company the caller can see.
    const first = owners.get(ofKind[0]!.id);
    const expected = companyId ?? (first !== undefined && canSeeCompany(actor, first) ? first : undefined);
    const miss = ofKind.find((r) => expected === undefined || owners.get(r.id) !== expected);
    if (miss) throw miss.field.error ? new AppError(miss.field.error) : resolvers[kind].notFound();
    companyId ??= expected;
  }
}
