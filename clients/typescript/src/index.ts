/**
 * Typed client of the CFE Uruguay API. `src/schema.d.ts` is generated from the service's OpenAPI
 * document (`npm run generate`); `client.api` is an openapi-fetch client over it, so every path,
 * parameter, body and answer is checked by TypeScript. Around it: login and automatic token refresh,
 * company selection, an Idempotency-Key on every emitir, typed errors, paging, and the verifier of
 * the webhook signatures the service sends.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import createFetchClient from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type EmitirBody = Json<NonNullable<operations['postComprobanteEmitir']['requestBody']>>;
/**
 * emitir's answer. The OpenAPI document describes it in the operation's text, not as a schema (the
 * service leaves it out of response serialisation on its hot path), so its type is written here.
 */
export interface EmitirAnswer {
  id: number; idEmpresa: number; idSucursal: number; idPuntoEmision: number;
  tipoCfe: number; nombreTipoCfe: string; serie: string; numero: number; fechaEmision: string; fechaFirma: string; estado: string;
  cae: { numero: string; desde: number; hasta: number; fechaVencimiento: string };
  codigoSeguridad: string; hash: string; urlQr: string; qrPng: string; moneda: string; tipoCambio: string | null;
  totales: Record<string, string | number | null>;
  adenda: string | null; idempotencyKey: string | null;
  [field: string]: unknown;
}

/** An error answer of the API: `{ error, code, requestId, campos? }` with its HTTP status. */
export class CfeApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly campos?: Array<{ campo: string; mensaje: string }>,
    readonly body?: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'CfeApiError';
  }
}

/** The data of an openapi-fetch result, or its error as a CfeApiError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const e = (result.error ?? {}) as { error?: string; code?: string; requestId?: string; campos?: Array<{ campo: string; mensaje: string }> };
    throw new CfeApiError(result.response.status, e.code ?? 'HTTP_' + result.response.status, e.error ?? result.response.statusText, e.requestId, e.campos, result.error);
  }
  return result.data as T;
}

export interface ClientOptions {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  usuario: string;
  clave: string;
  /** The company calls act on when they name none (see selectCompany). */
  idEmpresa?: number;
  /** Tokens kept from an earlier session (else the first call logs in). */
  accessToken?: string;
  refreshToken?: string;
}

export function createCfeClient(opts: ClientOptions) {
  let accessToken = opts.accessToken;
  let refreshToken = opts.refreshToken;
  let idEmpresa = opts.idEmpresa;

  async function tokens(path: string, body: unknown): Promise<void> {
    const res = await fetch(new URL(path, opts.baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as { accessToken?: string; refreshToken?: string; error?: string; code?: string; requestId?: string };
    if (!res.ok || !json.accessToken) throw new CfeApiError(res.status, json.code ?? 'HTTP_' + res.status, json.error ?? res.statusText, json.requestId);
    accessToken = json.accessToken;
    refreshToken = json.refreshToken;
  }
  const login = () => tokens('/api/auth/login', { usuario: opts.usuario, clave: opts.clave });

  /** Bearer on every call; on 401 the token is refreshed (else a new login) and the call sent once more. */
  async function authorizedFetch(request: Request): Promise<Response> {
    if (!accessToken) await login();
    const retry = request.clone();
    const first = await fetch(withToken(request));
    if (first.status !== 401) return first;
    try {
      if (refreshToken) await tokens('/api/auth/refresh', { refreshToken });
      else await login();
    } catch {
      await login();
    }
    return fetch(withToken(retry));
  }
  function withToken(request: Request): Request {
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${accessToken}`);
    return new Request(request, { headers });
  }

  const api = createFetchClient<paths>({ baseUrl: opts.baseUrl, fetch: authorizedFetch });

  function company(given?: number): number {
    const id = given ?? idEmpresa;
    if (id === undefined) throw new Error('No company selected: call selectCompany(idEmpresa) or pass idEmpresa');
    return id;
  }

  return {
    /** The openapi-fetch client: `api.GET('/api/v1/cfeemitido/{id}', { params: { path: { id } } })`. */
    api,
    login,
    /** The companies the user works with, and their role. */
    companies: async () => unwrap(await api.GET('/api/v1/usuario/empresas')),
    /** The current tokens, to keep for a later session. */
    get tokens() { return { accessToken, refreshToken }; },
    /** The company the helpers below act on when a call names none. */
    selectCompany(id: number) { idEmpresa = id; },
    get selectedCompany() { return idEmpresa; },
    /**
     * Issues a CFE. The Idempotency-Key (a new UUID unless given) makes a retry of the same call
     * return the first receipt instead of issuing twice: keep it while retrying.
     */
    async emitir(body: Omit<EmitirBody, 'idEmpresa'> & { idEmpresa?: number }, options: { idempotencyKey?: string } = {}): Promise<EmitirAnswer> {
      const key = options.idempotencyKey ?? randomUUID();
      return unwrap(await api.POST('/api/v1/comprobante/emitir', { body: { ...body, idEmpresa: company(body.idEmpresa) } as EmitirBody, headers: { 'idempotency-key': key } } as never)) as EmitirAnswer;
    },
  };
}

export type CfeClient = ReturnType<typeof createCfeClient>;

/** A page of a list: the service's lists answer `{ data, total, start, length }`. */
export interface Page<T> { data: T[]; total: number; start: number; length: number }

/** Every row of a paged list, page after page: `for await (const cfe of paginate((start, length) => …))`. */
export async function* paginate<T>(fetchPage: (start: number, length: number) => Promise<Page<T>>, pageSize = 100): AsyncGenerator<T> {
  for (let start = 0; ; start += pageSize) {
    const page = await fetchPage(start, pageSize);
    yield* page.data;
    if (page.data.length < pageSize || start + page.data.length >= page.total) return;
  }
}

/**
 * Verifies a webhook delivery (Standard Webhooks, as the service signs them): HMAC-SHA256 with the
 * endpoint's secret over `${webhook-id}.${webhook-timestamp}.${raw body}`, header
 * `webhook-signature: v1,<base64>` (several, space-separated, during a secret rotation), and a
 * timestamp within `toleranceSeconds` of now. A `whsec_<base64>` secret is base64-decoded; any other
 * is used as UTF-8 bytes. Pass the raw body exactly as received.
 */
export function verifyWebhook(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string | Buffer, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const header = (name: string) => { const v = headers[name] ?? headers[name.toLowerCase()]; return Array.isArray(v) ? v[0] : v; };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signature = header('webhook-signature');
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest();
  return signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
