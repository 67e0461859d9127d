/**
 * Typed client for the cfe-uy-backend API. `client.api` is an openapi-fetch client over the types
 * generated from the service's OpenAPI document (schema.d.ts, `npm run client:generate` in the
 * service's repository), so every path, parameter, body and answer is checked by the compiler. On
 * top of it: login with automatic token refresh, company selection, an Idempotency-Key on emitir,
 * typed errors, paging and the webhook signature check (webhooks.ts).
 */
import createFetchClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';

export type EmitirBody = NonNullable<paths['/api/v1/comprobante/emitir']['post']['requestBody']>['content']['application/json'];
export type EmitirResult = paths['/api/v1/comprobante/emitir']['post']['responses'][200]['content']['application/json'];

/** Every error the service answers: `{ error, code, requestId }`, validation errors with `campos` (the field paths). */
export class ApiError extends Error {
  readonly status: number;
  /** The stable error code of the service's catalogue (e.g. VALIDACION, CFE_NO_ENCONTRADO). */
  readonly code: string;
  readonly requestId?: string;
  readonly campos?: Array<{ campo: string; mensaje: string }>;
  /** The whole answer, for the fields some errors add (e.g. idsCfe). */
  readonly body: Record<string, unknown>;
  constructor(status: number, body: unknown) {
    const b = (body && typeof body === 'object' ? body : { error: String(body ?? '') }) as Record<string, unknown>;
    super(typeof b.error === 'string' && b.error ? b.error : `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = typeof b.code === 'string' ? b.code : `HTTP_${status}`;
    this.requestId = typeof b.requestId === 'string' ? b.requestId : undefined;
    this.campos = Array.isArray(b.campos) ? (b.campos as ApiError['campos']) : undefined;
    this.body = b;
  }
}

/** The data of an openapi-fetch answer, or its error thrown as an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw new ApiError(response.status, error);
  return data as T;
}

export interface Page<T> { data: T[]; total: number; start: number; length: number }

/**
 * Every row of a paged list (`start`/`length`, answers `{ data, total }`), fetching page after page:
 * `for await (const c of paginate((start, length) => client.api.GET('/api/v1/cliente/todos', { params: { query: { idEmpresa, start, length } } }))) …`
 */
export async function* paginate<T>(page: (start: number, length: number) => Promise<{ data?: Page<T>; error?: unknown; response: Response }>, length = 100): AsyncGenerator<T> {
  for (let start = 0; ; ) {
    const p = await unwrap(page(start, length));
    yield* p.data;
    start += p.data.length;
    if (p.data.length === 0 || start >= p.total) return;
  }
}

export interface CfeClientOptions {
  /** The service's address, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  usuario?: string;
  clave?: string;
  /** A session already open (e.g. kept between runs): used before logging in. */
  refreshToken?: string;
  /** The company to act on; `selectCompany` can choose it later. */
  idEmpresa?: number;
  fetch?: typeof globalThis.fetch;
}

const AUTH_PATHS = ['/api/auth/login', '/api/auth/refresh'];
/** Refresh this long before the access token expires. */
const EARLY_MS = 30_000;

export function createCfeClient(options: CfeClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const api = createFetchClient<paths>({ baseUrl, fetch: fetchImpl });
  let access: { token: string; expiresAt: number } | undefined;
  let refreshToken = options.refreshToken;
  let idEmpresa = options.idEmpresa;
  let pending: Promise<string> | undefined;

  async function openSession(): Promise<string> {
    let pair: { accessToken: string; refreshToken: string; expiresIn: number } | undefined;
    if (refreshToken) {
      const r = await api.POST('/api/auth/refresh', { body: { refreshToken } });
      if (r.data) pair = r.data;
      else if (r.response.status !== 401) throw new ApiError(r.response.status, r.error);
    }
    if (!pair) {
      if (!options.usuario || !options.clave) throw new ApiError(401, { error: 'Sin sesión: indique usuario y clave, o un refreshToken válido.', code: 'NO_AUTENTICADO' });
      pair = await unwrap(api.POST('/api/auth/login', { body: { usuario: options.usuario, clave: options.clave } }));
    }
    refreshToken = pair.refreshToken;
    access = { token: pair.accessToken, expiresAt: Date.now() + pair.expiresIn * 1000 };
    return access.token;
  }

  /** A valid access token: the current one, else one refresh (or login) shared by concurrent calls. */
  async function token(force = false): Promise<string> {
    if (!force && access && access.expiresAt - EARLY_MS > Date.now()) return access.token;
    pending ??= openSession().finally(() => { pending = undefined; });
    return pending;
  }

  const retryBodies = new WeakMap<Request, Request>();
  const auth: Middleware = {
    async onRequest({ request, schemaPath }) {
      if (AUTH_PATHS.includes(schemaPath)) return undefined;
      request.headers.set('authorization', `Bearer ${await token()}`);
      retryBodies.set(request, request.clone());
      return request;
    },
    async onResponse({ request, response, schemaPath }) {
      // An access token revoked or expired early: one new session, the request sent once more.
      const copy = retryBodies.get(request);
      if (response.status !== 401 || AUTH_PATHS.includes(schemaPath) || !copy) return undefined;
      copy.headers.set('authorization', `Bearer ${await token(true)}`);
      return fetchImpl(copy);
    },
  };
  api.use(auth);

  return {
    /** The typed client: `client.api.GET('/api/v1/cfeemitido/{id}', { params: { path: { id } } })`. */
    api,
    /** Logs in now (otherwise the first call does); returns the refresh token to keep the session. */
    async login(): Promise<string> {
      await token(true);
      return refreshToken!;
    },
    get refreshToken(): string | undefined { return refreshToken; },
    /** The company the helpers act on. */
    get idEmpresa(): number {
      if (idEmpresa === undefined) throw new ApiError(400, { error: 'Elija una empresa con selectCompany().', code: 'EMPRESA_NO_ELEGIDA' });
      return idEmpresa;
    },
    /**
     * Chooses the company by id or RUT among those the user can see; with no argument, the user's
     * only company (an error when there are several).
     */
    async selectCompany(which?: number | string): Promise<number> {
      const found: Array<{ id: number; rut: string }> = [];
      for await (const c of paginate((start, length) => api.GET('/api/v1/empresa/todas', { params: { query: { start, length } } }))) found.push(c as { id: number; rut: string });
      const match = which === undefined ? (found.length === 1 ? found[0] : undefined) : found.find((c) => c.id === which || c.rut === String(which));
      if (!match) {
        throw new ApiError(404, { error: which === undefined ? `El usuario ve ${found.length} empresas: indique cuál.` : `Empresa ${which} no encontrada.`, code: 'EMPRESA_NO_ENCONTRADA' });
      }
      idEmpresa = match.id;
      return match.id;
    },
    /**
     * Issues a CFE for the selected company (unless the body names one). The Idempotency-Key makes
     * a retry after a timeout answer the first result instead of numbering a second receipt: keep
     * the same key when you retry the same sale.
     */
    async emitir(body: Omit<EmitirBody, 'idEmpresa'> & { idEmpresa?: number }, opts: { idempotencyKey?: string } = {}): Promise<EmitirResult> {
      const key = opts.idempotencyKey ?? globalThis.crypto.randomUUID();
      const full = { ...body, idEmpresa: body.idEmpresa ?? this.idEmpresa } as EmitirBody;
      return unwrap(api.POST('/api/v1/comprobante/emitir', { body: full, headers: { 'Idempotency-Key': key } }));
    },
  };
}

export type CfeClient = ReturnType<typeof createCfeClient>;
