import { defineErrors } from '../../lib/errors.js';

/** CAE ranges and CFC. Each refusal of a CAE file has its own code so the user knows what to fix. */
export const caeErrors = defineErrors({
  CAE_XML_INVALIDO: { status: 400, message: 'El archivo no es un CAE de DGI válido (XML mal formado o no cumple CAE.xsd).' },
  CAE_FIRMA_INVALIDA: { status: 400, message: 'La firma del CAE no es válida: el archivo fue alterado o no es el original descargado de DGI.' },
  CAE_FIRMANTE_NO_CONFIABLE: { status: 400, message: 'El CAE no está firmado por DGI; descargue el archivo original desde Servicios en línea de DGI.' },
  CAE_RUT_DISTINTO: { status: 400, message: 'El CAE pertenece a otro RUT (RucE) que el de la empresa.' },
  CAE_DUPLICADO: { status: 409, message: 'Ese CAE (mismo número NA) ya fue importado en la empresa.' },
  CAE_RANGO_INVALIDO: { status: 400, message: 'El rango o las fechas del CAE no son válidos (DGI: 1 ≤ DNro ≤ HNro, hasta 1.000.000 números, FA no futura, FVD entre FA y FA + 24 meses).' },
  /** BRIEF 1, 10: only electronic types (1xx) get a CAE; contingency (2xx) ranges go through altaCfc. */
  CAE_TIPO_INVALIDO: { status: 400, message: 'El tipo de CFE no admite CAE: solo los tipos electrónicos (101 a 182); la contingencia (2xx) se registra con altaCfc.' },
  /** Another live range of the same type and serie already holds some of these numbers: emitting would repeat them. */
  CAE_SUPERPUESTO: { status: 409, message: 'El rango del CAE se superpone con otro CAE no anulado de la empresa para ese tipo y serie.' },
  CAE_NO_ENCONTRADO: { status: 404, message: 'El CAE no existe.' },
  CAE_SIN_NUMEROS: { status: 409, message: 'No hay un CAE vigente con números disponibles para ese tipo de CFE y serie: cargue uno con POST /api/v1/cae/importar (el archivo XML del CAE firmado por DGI) o POST /api/v1/cae/importar-manual (los datos de un CAE recibido en papel).' },
  CAE_NUMERO_INVALIDO: { status: 400, message: 'El número indicado no es válido para el rango del CAE.' },
  CAE_NO_MODIFICABLE: { status: 409, message: 'El CAE está anulado o agotado y no admite cambios.' },
  CAE_SUCURSAL_NO_ENCONTRADA: { status: 404, message: 'La sucursal no existe en la empresa del CAE.' },
  CFC_NO_ENCONTRADO: { status: 404, message: 'El rango de contingencia (CFC) no existe.' },
  CFC_TIPO_INVALIDO: { status: 400, message: 'El tipo de CFC debe ser un tipo de contingencia (2xx).' },
  CFC_SUPERPUESTO: { status: 409, message: 'El rango de contingencia se superpone con otro ya registrado para ese tipo y serie.' },
  CFC_NUMERO_NO_DISPONIBLE: { status: 409, message: 'El número de contingencia no está en un rango registrado o ya fue utilizado.' },
});
