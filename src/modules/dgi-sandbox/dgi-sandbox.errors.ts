import { defineErrors } from '../../lib/errors.js';

/** The sandbox of the simulated DGI (issue 27 point 2). */
export const sandboxErrors = defineErrors({
  /** Real DGI never authorizes the same numbers twice for a RUT, type and serie (BRIEF 10). */
  SANDBOX_CAE_SUPERPUESTO: { status: 409, message: 'El DGI simulado ya autorizó números de ese rango para ese RUT, tipo y serie.' },
  SANDBOX_NO_DISPONIBLE: { status: 503, message: 'El DGI simulado no está disponible.', retryable: true },
});
