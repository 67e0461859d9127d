/** Errors of the issued-CFE search, exports and charts (issue 7). */
import { defineErrors } from '../../lib/errors.js';

export const reportErrors = defineErrors({
  EXPORTACION_DEMASIADO_GRANDE: { status: 422, message: 'La exportación supera el máximo de filas permitido; acote los filtros (por ejemplo el rango de fechas).' },
  RANGO_FECHAS_INVALIDO: { status: 400, message: 'El rango de fechas no es válido: desde debe ser anterior o igual a hasta y no superar el máximo de la gráfica.' },
  CONFIGURACION_NO_VISIBLE: { status: 404, message: 'El usuario no existe o no puede ver su configuración.' },
});
