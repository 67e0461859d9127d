import { defineErrors } from '../../lib/errors.js';

/** One code per rule of BRIEF 12 checked on a declaration (tax-benefit.rules.ts), plus lookups. */
export const taxBenefitErrors = defineErrors({
  BENEFICIO_DATO_REQUERIDO: { status: 422, message: 'Falta un dato que el régimen declarado requiere.' },
  BENEFICIO_DATO_NO_CORRESPONDE: { status: 422, message: 'Se envió un dato que no corresponde al régimen o fundamento declarado.' },
  BENEFICIO_ANIO_FISCAL_FUTURO: { status: 422, message: 'Se puede declarar hasta el ejercicio siguiente al actual.' },
  BENEFICIO_206_FUERA_DE_VIGENCIA: { status: 422, message: 'El Decreto 206/019 no rige para ese ejercicio.' },
  BENEFICIO_206_NO_LITERAL_E: { status: 422, message: 'La empresa no está en el régimen de literal E (IVA mínimo).' },
  BENEFICIO_206_EJERCICIO_NO_CERRADO: { status: 422, message: 'Los ingresos de un ejercicio no cerrado no se pueden declarar.' },
  BENEFICIO_206_INGRESOS_SUPERAN_TOPE: { status: 422, message: 'Los ingresos del ejercicio anterior superan 750.000 UI.' },
  BENEFICIO_206_INICIO_FUERA_DE_PLAZO: { status: 422, message: 'El inicio de actividad no está en el ejercicio declarado ni en el anterior.' },
  BENEFICIO_VALOR_UI_NO_DISPONIBLE: { status: 503, message: 'No se obtuvo del BCU el valor de la UI; intente más tarde.', retryable: true },
  BENEFICIO_COTIZACION_NO_DISPONIBLE: { status: 503, message: 'No se obtuvo del BCU la cotización del dólar; intente más tarde.', retryable: true },
  BENEFICIO_FECHA_INICIO_DESCONOCIDA: { status: 422, message: 'No se conoce la fecha de inicio como emisor electrónico.' },
  BENEFICIO_FECHA_INICIO_DISTINTA: { status: 422, message: 'La fecha de inicio declarada no coincide con la conocida.' },
  BENEFICIO_324_INVERSION_FUERA_DE_PLAZO: { status: 422, message: 'Una inversión está fuera del plazo de 12 meses antes a 4 meses después del inicio como emisor.' },
  BENEFICIO_324_SAAS_ANTES_DE_2015: { status: 422, message: 'El servicio de facturación electrónica cuenta desde el 17/10/2015.' },
  BENEFICIO_324_SAAS_SUPERA_TOPE: { status: 422, message: 'El servicio de facturación electrónica supera el tope en dólares del Decreto 324/011.' },
  BENEFICIO_324_FUERA_DE_PLAZO: { status: 422, message: 'El ejercicio está fuera de los ejercicios de la exoneración.' },
  BENEFICIO_DECLARACION_CONCURRENTE: { status: 409, message: 'Otra declaración para el mismo ejercicio y régimen se guardó al mismo tiempo; consulte la lista y reintente.' },
  REGISTRO_EMISORES_NO_SINCRONIZADO: { status: 503, message: 'El registro de emisores electrónicos de DGI todavía no se sincronizó: no se sabe si la empresa figura en él. Vuelva a intentar cuando termine la primera sincronización, o cargue la fecha de resolución de habilitación de la empresa.', retryable: true },
  FECHA_INICIO_NO_DISPONIBLE: { status: 404, message: 'No se conoce la fecha de inicio como emisor electrónico: la empresa no figura en el registro de emisores de DGI y no tiene fecha de resolución de habilitación cargada.' },
  DECLARACION_NO_ENCONTRADA: { status: 404, message: 'La declaración no existe.' },
});
