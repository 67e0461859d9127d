/**
 * The one error handler (issue 2 point 3). Every error leaves as JSON `{ error, code, requestId }`;
 * validation errors add `campos`. Stack traces never reach the client; 500s are logged in full.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, errors } from '../../lib/errors.js';
import { pgErrorCode, pgErrorMessage } from '../db/client.js';
import { declaredKeysAt } from './strict-body.js';

/** Route-level hook to reshape a validation failure (e.g. the exact webhook 400s of spec 7). */
export type ValidationErrorMapper = (fields: Array<{ campo: string; mensaje: string }>, context: string) => AppError;

declare module 'fastify' {
  interface FastifyContextConfig {
    mapValidationError?: ValidationErrorMapper;
  }
}

const contextPrefix: Record<string, string> = { body: '', querystring: 'query.', params: 'params.', headers: 'headers.' };

export function toAppError(err: FastifyError | Error, request: FastifyRequest): AppError {
  if (err instanceof AppError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const context = (err as FastifyError).validationContext ?? 'body';
    let unknown = false;
    const fields = err.validation.flatMap((v) => {
      const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const at = `${contextPrefix[context] ?? ''}${path}`;
      // strict-body.ts: one entry per unknown key, named by its full JSON path (issue 28 point 1).
      const keys = v.keyword === 'unrecognized_keys' ? (v.params as { keys?: string[] }).keys : undefined;
      if (keys?.length) {
        unknown = true;
        const declared = context === 'body' ? declaredBodyKeys(request, v.instancePath) : [];
        return keys.map((k) => {
          const near = declared.find((d) => d.toLowerCase() === k.toLowerCase());
          return { campo: at ? `${at}.${k}` : k, mensaje: `campo desconocido: no forma parte de la operación${near ? ` (¿quiso decir ${near}?)` : ''}` };
        });
      }
      if (v.keyword === 'invalid_union') return unionFields(at, v.params as { errors?: UnionIssue[][] }, v.message ?? 'inválido', context);
      return [{ campo: at || context, mensaje: v.message ?? 'inválido' }];
    });
    const mapper = request.routeOptions.config?.mapValidationError;
    if (mapper) return mapper(fields, context);
    const summary = fields.map((f) => `${f.campo}: ${f.mensaje}`).join('; ');
    return unknown
      ? errors.CAMPO_DESCONOCIDO(`Datos inválidos: ${summary}`, { campos: fields })
      : errors.VALIDACION(`Datos inválidos: ${summary}`, { campos: fields });
  }
  const fe = err as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return mapOrDefault(request, errors.JSON_INVALIDO());
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.CUERPO_DEMASIADO_GRANDE();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return errors.TIPO_CONTENIDO_NO_SOPORTADO();
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
      return errors.CUERPO_DEMASIADO_GRANDE('El archivo supera el tamaño permitido.');
  }
  if (err instanceof SyntaxError && fe.statusCode === 400) return mapOrDefault(request, errors.JSON_INVALIDO());
  const dataError = pgDataError(err);
  if (dataError) return dataError;
  if (fe.statusCode === 429) return errors.DEMASIADAS_SOLICITUDES();
  if (fe.statusCode === 404) return errors.NO_ENCONTRADO();
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return errors.VALIDACION(fe.message || 'Solicitud inválida.');
  }
  return errors.ERROR_INTERNO();
}

type UnionIssue = { code: string; path: Array<string | number>; message: string; errors?: UnionIssue[][] };

/**
 * A value that matched no branch of a union is named by the fields of the branch it came closest to
 * (fewest issues), so `{"idEmpresa":"3","host":"x"}` names `idEmpresa`, not the whole body.
 */
function unionFields(at: string, params: { errors?: UnionIssue[][] }, message: string, context: string): Array<{ campo: string; mensaje: string }> {
  const branches = (params.errors ?? []).filter((b) => b.length > 0);
  if (branches.length === 0) return [{ campo: at || context, mensaje: message }];
  const closest = branches.reduce((a, b) => (b.length < a.length ? b : a));
  return closest.flatMap((issue) => {
    const campo = [at, ...issue.path.map(String)].filter((p) => p !== '').join('.');
    return issue.code === 'invalid_union' ? unionFields(campo, issue, issue.message, context) : [{ campo: campo || context, mensaje: issue.message }];
  });
}

/** The keys the route's body schema declares at a JSON pointer ("/cfe/totales"), for the did-you-mean hint. */
function declaredBodyKeys(request: FastifyRequest, pointer: string): string[] {
  const body = request.routeOptions.schema?.body;
  if (!body || typeof body !== 'object' || !('_zod' in body)) return [];
  const path = pointer.split('/').slice(1).filter((p) => p !== '').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return declaredKeysAt(body as Parameters<typeof declaredKeysAt>[0], path);
}

/**
 * PostgreSQL's class 22 (data exception: a number out of its column's range, a date that does not
 * exist, bytes the encoding refuses) means a value the request sent that no schema bounded: the
 * statement failed before writing anything, so it is the client's 400, never a 500.
 */
function pgDataError(err: unknown): AppError | undefined {
  const code = pgErrorCode(err);
  if (!code?.startsWith('22')) return undefined;
  const value = /"([^"]{1,40})"/.exec(pgErrorMessage(err))?.[1];
  const shown = value ? ` (${value})` : '';
  return code === '22003'
    ? errors.VALIDACION(`Un valor enviado${shown} está fuera del rango que admite el campo.`)
    : errors.VALIDACION(`Un valor enviado${shown} no es válido para el campo.`);
}

function mapOrDefault(request: FastifyRequest, fallback: AppError): AppError {
  const mapper = request.routeOptions.config?.mapValidationError;
  return mapper ? mapper([], 'body') : fallback;
}

export function errorPayload(e: AppError, requestId: string) {
  return { error: e.message, code: e.code, requestId, ...(e.details ?? {}) };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(err, request);
    if (appError.status >= 500) {
      // Anything may be thrown (a library may throw a string): only an object can be a serialization error.
      const serialization = typeof err === 'object' && err !== null && isResponseSerializationError(err);
      request.log.error({ err, serialization }, 'request failed');
    } else {
      request.log.info({ code: appError.code, status: appError.status }, appError.message);
    }
    if (appError.status === 401) reply.header('www-authenticate', 'Bearer');
    // A handler may have set a file's content type (zip, xlsx) before failing: the error is JSON.
    reply.status(appError.status).type('application/json; charset=utf-8').send(errorPayload(appError, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const e = errors.RUTA_NO_ENCONTRADA(`La ruta ${request.method} ${request.url.split('?')[0]} no existe.`);
    reply.status(404).send(errorPayload(e, request.id));
  });
}
