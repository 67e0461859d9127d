import { defineErrors } from '../../lib/errors.js';

/** Price books (issue 34 point 1). */
export const priceBookErrors = defineErrors({
  LISTA_PRECIOS_NO_ENCONTRADA: { status: 404, message: 'La lista de precios no existe.' },
  LISTA_PRECIOS_SUPERPUESTA: { status: 409, message: 'La vigencia se superpone con la de otra versión de la misma lista de precios.' },
  LISTA_PRECIOS_EMPRESA_REQUERIDA: { status: 400, message: 'Indique idEmpresa en la consulta: su usuario tiene acceso a más de una empresa.' },
  LISTA_PRECIOS_VIGENCIA_INVALIDA: { status: 400, message: 'vigenteHasta no puede ser anterior a vigenteDesde.' },
  LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO: { status: 400, message: 'El tipo de cambio no corresponde a la moneda: en UYU no se indica; con modo fijo se indica valor, con los demás no.' },
  LISTA_PRECIOS_MONEDA_DESCONOCIDA: { status: 400, message: 'La moneda no existe en el catálogo (ISO 4217 de DGI, más UYI y UYR).' },
  LISTA_PRECIOS_VERSION_CERRADA: { status: 409, message: 'La versión ya terminó o se cerraría antes de hoy: solo se puede adelantar el fin de una versión a hoy o después.' },
  PRECIO_MODELO_INVALIDO: { status: 400, message: 'Los campos del precio no corresponden a su modelo.' },
  PRECIO_TRAMOS_INVALIDOS: { status: 400, message: 'Los tramos deben ser contiguos: el primero empieza en 0, cada uno empieza donde termina el anterior y solo el último queda abierto (hasta null).' },
  PRECIO_DIMENSIONES_INVALIDAS: { status: 400, message: 'Los precios con dimensiones de una misma métrica deben usar las mismas claves.' },
  PRECIO_DUPLICADO: { status: 400, message: 'Hay dos precios para la misma métrica y las mismas dimensiones.' },
});
