import { defineErrors } from '../../lib/errors.js';

export const customerErrors = defineErrors({
  CLIENTE_NO_ENCONTRADO: { status: 404, message: 'El cliente no existe.' },
  CLIENTE_DUPLICADO: { status: 409, message: 'Ya existe un cliente de la empresa con ese documento.' },
});
