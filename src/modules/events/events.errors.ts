import { defineErrors } from '../../lib/errors.js';

export const eventErrors = defineErrors({
  CURSOR_INVALIDO: { status: 400, message: 'El cursor `after` no es válido: use el valor `cursor` de una respuesta anterior de /api/v1/eventos.' },
});
