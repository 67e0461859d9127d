import { defineErrors } from '../../lib/errors.js';

export const customerErrors = defineErrors({
  CLIENTE_NO_ENCONTRADO: { status: 404, message: 'El cliente no existe.' },
  CLIENTE_DUPLICADO: { status: 409, message: 'Ya existe un cliente de la empresa con ese documento.' },
  /** The rule emission applies to the receiver (lib/receiver-document.ts): checked on create/edit so a stored customer can always be invoiced. */
  CLIENTE_DOCUMENTO_INVALIDO: { status: 400, message: 'El documento del cliente no es válido para su tipo y país.' },
});
