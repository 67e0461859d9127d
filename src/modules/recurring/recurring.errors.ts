import { defineErrors } from '../../lib/errors.js';

export const recurringErrors = defineErrors({
  PLAN_EMPRESA_REQUERIDA: { status: 400, message: 'Indique idEmpresa en la consulta: su usuario tiene acceso a más de una empresa.' },
  PLAN_NO_ENCONTRADO: { status: 404, message: 'El plan de facturación recurrente no existe.' },
  ACCION_DESCONOCIDA: { status: 404, message: 'La acción no existe. Acciones: activar, pausar, reanudar, cancelar, emitirAhora, omitirProxima, reintentar.' },
  TRANSICION_NO_PERMITIDA: { status: 409, message: 'La acción no está permitida en el estado actual del plan.' },
  PLAN_NO_EDITABLE: { status: 409, message: 'Un plan cancelado o finalizado no se puede editar.' },
  EJECUCION_NO_ENCONTRADA: { status: 404, message: 'El plan no tiene una ejecución para ese período.' },
  EJECUCION_NO_REINTENTABLE: { status: 409, message: 'Solo se reintenta una ejecución fallida o rechazada por DGI.' },
  SIN_PERIODOS_RESTANTES: { status: 409, message: 'El plan no tiene más períodos (fin alcanzado).' },
  PLAN_TIPO_CFE_NO_PERMITIDO: { status: 422, message: 'Un plan recurrente emite e-Ticket, e-Factura, e-Factura de exportación o sus variantes por cuenta ajena (101, 111, 121, 131, 141).' },
  PLAN_ANCLAJE_INVALIDO: { status: 422, message: 'El anclaje no corresponde a la frecuencia.' },
  PLAN_FIN_INVALIDO: { status: 422, message: 'La fecha de fin es anterior a la fecha de inicio.' },
  PLAN_TOTALES_FIJOS: { status: 422, message: 'Con politicaAtrasos emitir_uno la plantilla no puede fijar montos en totales (se multiplican las cantidades).' },
  PAUSA_HASTA_PASADA: { status: 422, message: 'La fecha hasta de la pausa debe ser futura.' },
});
