import { defineErrors } from '../../lib/errors.js';

export const billingErrors = defineErrors({
  CONTRATO_NO_ENCONTRADO: { status: 404, message: 'El contrato no existe.' },
  CONTRATO_SIN_CONDICIONES: { status: 409, message: 'El contrato no tiene condiciones de facturación: defínalas con PUT /api/v1/contracts/{id}/terms.' },
  CONDICIONES_INVALIDAS: { status: 400, message: 'Las condiciones de facturación no son válidas.' },
  LISTA_PRECIOS_NO_ENCONTRADA: { status: 404, message: 'La lista de precios no existe.' },
  CONTRATO_ACCION_INVALIDA: { status: 409, message: 'La acción no está permitida en el estado actual del contrato.' },
  HISTORIAL_CONSULTA_INVALIDA: { status: 400, message: 'La consulta del historial no es válida.' },
  PERIODO_NO_ENCONTRADO: { status: 404, message: 'El período no existe o no se cerró todavía.' },
  PERIODO_NO_EMITIDO: { status: 409, message: 'El período no tiene un CFE emitido que corregir.' },
});
