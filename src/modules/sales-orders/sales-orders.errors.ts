import { defineErrors } from '../../lib/errors.js';

export const salesOrderErrors = defineErrors({
  ORDEN_NO_ENCONTRADA: { status: 404, message: 'La orden de venta no existe.' },
  ORDEN_ESTADO_INVALIDO: { status: 409, message: 'La orden de venta no admite esta operación en su estado actual.' },
  EMISION_NO_DISPONIBLE: { status: 501, message: 'La emisión de CFE desde una orden de venta aún no está disponible; finalice sin emitirCfe.' },
});
