import { defineErrors } from '../../lib/errors.js';

/** Received CFEs, part 2 (issue 31 points 3, 5, 6): exports, DGI's QR check, reconciliation. */
export const receivedReportErrors = defineErrors({
  EXPORTACION_DEMASIADO_GRANDE: { status: 422, message: 'La exportación supera el máximo permitido: acote los filtros.' },
  CONCILIACION_NO_ENCONTRADA: { status: 404, message: 'La conciliación no existe en la empresa.' },
  PERIODO_CONCILIACION_INVALIDO: { status: 400, message: 'El período de conciliación no es válido: desde ≤ hasta, dentro de 2011-10-01..2050-12-31 y de hasta 366 días.' },
  CONCILIACION_DGI_NO_DISPONIBLE: { status: 503, message: 'DGI no respondió la consulta de CFE recibidos; intente más tarde.', retryable: true },
  CONCILIACION_DGI_RECHAZADA: { status: 502, message: 'DGI rechazó la consulta de CFE recibidos.' },
  CONSULTA_QR_SIN_CFE: { status: 404, message: 'Ninguno de los CFE recibidos indicados existe en la empresa.' },
});
