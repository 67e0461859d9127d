import { defineErrors } from '../../lib/errors.js';

/** CFC codes added with altaCfc/editarCfc (the base CFC codes live in cae.errors.ts). */
export const cfcErrors = defineErrors({
  CFC_RANGO_INVALIDO: { status: 400, message: 'El rango de contingencia no es válido: desde debe ser menor o igual que hasta.' },
  CFC_NUMEROS_UTILIZADOS: { status: 409, message: 'El rango de contingencia ya tiene números transcriptos: no puede cambiar tipo ni serie, ni dejar fuera números utilizados.' },
});
