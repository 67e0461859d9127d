/**
 * The error catalogue. Every error the API returns has a stable machine `code` registered here,
 * with its HTTP status and whether a job may retry it. Modules add their own codes through
 * `defineErrors` (in their `*.errors.ts`), so the catalogue stays one list that the OpenAPI
 * description can publish. Services throw `AppError`; only the HTTP error handler maps it to a response.
 */
export interface ErrorSpec {
  status: number;
  /** A default human-readable message (Spanish, spec section 7: `error` is a sentence). */
  message: string;
  retryable?: boolean;
}

const catalogue = new Map<string, ErrorSpec>();

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message?: string, details?: Record<string, unknown>) {
    const spec = catalogue.get(code);
    if (!spec) throw new Error(`Unknown error code ${code}: register it with defineErrors`);
    super(message ?? spec.message);
    this.code = code;
    this.status = spec.status;
    this.retryable = spec.retryable ?? false;
    this.details = details;
  }
}

/** Registers codes and returns a typed factory: `errors.EMPRESA_NO_ENCONTRADA(msg?, details?)`. */
export function defineErrors<const T extends Record<string, ErrorSpec>>(specs: T) {
  const factories = {} as { [K in keyof T]: (message?: string, details?: Record<string, unknown>) => AppError };
  for (const [code, spec] of Object.entries(specs)) {
    const existing = catalogue.get(code);
    if (existing && (existing.status !== spec.status)) throw new Error(`Error code ${code} registered twice`);
    catalogue.set(code, spec);
    (factories as Record<string, unknown>)[code] = (message?: string, details?: Record<string, unknown>) =>
      new AppError(code, message, details);
  }
  return factories;
}

export function listErrorCodes(): Array<{ code: string } & ErrorSpec> {
  return [...catalogue.entries()].map(([code, spec]) => ({ code, ...spec })).sort((a, b) => a.code.localeCompare(b.code));
}

/** Generic codes used across modules. */
export const errors = defineErrors({
  VALIDACION: { status: 400, message: 'Los datos enviados no son válidos.' },
  CAMPO_DESCONOCIDO: { status: 400, message: 'El cuerpo lleva un campo que la operación no conoce (campos[] nombra cada uno con su ruta).' },
  JSON_INVALIDO: { status: 400, message: 'El cuerpo de la solicitud está vacío o no es JSON válido.' },
  NO_AUTENTICADO: { status: 401, message: 'Falta el token de acceso o no es válido.' },
  TOKEN_EXPIRADO: { status: 401, message: 'El token de acceso expiró; renuévelo con el refresh token.' },
  SIN_PERMISO: { status: 403, message: 'No tiene permiso para realizar esta operación.' },
  NO_ENCONTRADO: { status: 404, message: 'El recurso no existe.' },
  RUTA_NO_ENCONTRADA: { status: 404, message: 'La ruta solicitada no existe.' },
  METODO_NO_PERMITIDO: { status: 405, message: 'Método no permitido en esta ruta.' },
  CONFLICTO: { status: 409, message: 'El recurso fue modificado por otra operación.' },
  DUPLICADO: { status: 409, message: 'Ya existe un recurso con esos datos.' },
  CUERPO_DEMASIADO_GRANDE: { status: 413, message: 'El cuerpo de la solicitud supera el tamaño permitido.' },
  TIPO_CONTENIDO_NO_SOPORTADO: { status: 415, message: 'Tipo de contenido no soportado.' },
  DEMASIADAS_SOLICITUDES: { status: 429, message: 'Demasiadas solicitudes; intente más tarde.', retryable: true },
  NO_IMPLEMENTADO: { status: 501, message: 'Este endpoint aún no está implementado.' },
  SERVICIO_NO_DISPONIBLE: { status: 503, message: 'El servicio no está disponible en este momento.', retryable: true },
  ERROR_INTERNO: { status: 500, message: 'Error interno del servidor.', retryable: true },
  EMPRESA_NO_ENCONTRADA: { status: 404, message: 'La empresa no existe.' },
});
