import { defineErrors } from '../../lib/errors.js';

export const currencyErrors = defineErrors({
  MONEDA_DESCONOCIDA: { status: 400, message: 'La moneda no existe en el catálogo (ISO 4217 de DGI, más UYI y UYR).' },
  COTIZACION_INVALIDA: { status: 400, message: 'El tipo de cambio debe ser un número positivo y la moneda distinta de UYU.' },
});
