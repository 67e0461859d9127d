import { defineErrors } from '../../lib/errors.js';

/**
 * Products and variants. The 422 codes are the emission-line checks (spec 2.4 rule 3, spec 6
 * "product that requires traceability sent without datosTrazabilidad"); the 404s answer the
 * product routes, where another company's rows look exactly like missing ones. A missing variant
 * is one code everywhere, VARIANTE_NO_ENCONTRADA (404), on the product routes and on an emission
 * line alike, as the companies module's SUCURSAL_NO_ENCONTRADA is.
 */
export const productErrors = defineErrors({
  PRODUCTO_NO_ENCONTRADO: { status: 404, message: 'El producto no existe.' },
  PRODUCTO_DUPLICADO: { status: 409, message: 'Ya existe un producto de la empresa con ese código.' },
  VARIANTE_NO_ENCONTRADA: { status: 404, message: 'La variante de producto no existe en la empresa.' },
  VARIANTE_DUPLICADA: { status: 409, message: 'El producto ya tiene una variante con ese código.' },
  LOTE_DUPLICADO: { status: 409, message: 'La variante ya tiene un lote con ese código.' },
  SERIE_DUPLICADA: { status: 409, message: 'La variante ya tiene registrado ese número de serie.' },
  PRECIO_INVALIDO: { status: 400, message: 'El precio unitario debe ser un número decimal no negativo con hasta 10 decimales.' },
  VARIANTE_DESHABILITADA: { status: 422, message: 'La línea indica una variante o producto deshabilitado.' },
  TRAZABILIDAD_REQUERIDA: { status: 422, message: 'El producto requiere trazabilidad: envíe datosTrazabilidad con id_lote y/o id_serie según corresponda.' },
  LOTE_INVALIDO: { status: 422, message: 'El lote indicado (id_lote) no pertenece a la variante.' },
  SERIE_INVALIDA: { status: 422, message: 'La serie indicada (id_serie) no pertenece a la variante o a su lote.' },
});
