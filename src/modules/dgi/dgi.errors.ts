/**
 * Errors raised by the DGI/BCU clients. The submission worker decides retries with
 * `isTransient`: network failures, timeouts, HTTP 5xx without a SOAP fault and the
 * "not processed yet" faults are transient; everything DGI answered with a definite
 * fault code (certificate, authorisation, duplicate, malformed) is permanent.
 */

/** Fault codes of ExcepcionesServicios.xsd that mean "ask again later" (BRIEF §6). */
export const NOT_READY_FAULT_CODES = new Set([13, 99, 105]);

export type DgiService = 'WS_eFactura' | 'WS_eFactura_Consultas' | 'WS_PersonaGetActEmpresarial' | 'awsbcucotizaciones' | 'consultaQR';

export abstract class DgiError extends Error {
  abstract readonly isTransient: boolean;
  constructor(
    message: string,
    readonly service: DgiService,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Retry later: connection refused/reset, timeout, 5xx without a fault, faults 13/99/105. */
export class DgiTransientError extends DgiError {
  readonly isTransient = true;
  constructor(
    message: string,
    service: DgiService,
    readonly httpStatus: number | null = null,
    readonly faultCode: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, service, options);
  }
}

/** Do not retry the same request: DGI answered with a definite SOAP fault, or the answer is unusable. */
export class DgiPermanentError extends DgiError {
  readonly isTransient = false;
  constructor(
    message: string,
    service: DgiService,
    readonly faultCode: number | null,
    readonly faultDescription: string | null = null,
    readonly faultDetail: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, service, options);
  }
}

export function isTransientDgiError(error: unknown): boolean {
  return error instanceof DgiError && error.isTransient;
}
