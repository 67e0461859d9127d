/** Printed representation, preview, e-mail and ZIP of issued CFEs (issue 7). */
import { defineErrors } from '../../lib/errors.js';

export const cfeDocumentsErrors = defineErrors({
  PREVISUALIZACION_NO_ENCONTRADA: { status: 404, message: 'La vista previa no existe o no pertenece a una empresa suya.' },
  PREVISUALIZACION_EXPIRADA: { status: 410, message: 'La vista previa expiró: vuelva a generarla con POST /api/v1/comprobante/previsualizar.' },
  SIN_DESTINATARIO: { status: 422, message: 'No hay a quién enviar el comprobante: indique destinatarios o registre el correo del cliente receptor.' },
  FILTROS_INVALIDOS: { status: 400, message: 'Los filtros no son coherentes.' },
  // The buyer's public lookup (issue 47): one answer for every mismatch, naming no field.
  CONSULTA_NO_ENCONTRADA: { status: 404, message: 'No encontramos un comprobante con esos datos. Verifique el tipo, la serie, el número, la fecha y el código de seguridad impresos en el comprobante.' },
});
