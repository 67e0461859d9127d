import { defineErrors } from '../../lib/errors.js';

export const userErrors = defineErrors({
  USUARIO_NO_ENCONTRADO: { status: 404, message: 'El usuario no existe.' },
  USUARIO_DUPLICADO: { status: 409, message: 'Ya existe un usuario con ese correo.' },
  CLAVE_DEBIL: { status: 400, message: 'La contraseña debe tener al menos 8 caracteres.' },
  CLAVE_ACTUAL_INCORRECTA: { status: 400, message: 'La contraseña actual no es correcta.' },
  EMPRESA_REQUERIDA: { status: 400, message: 'Indique idEmpresa: solo un operador puede listar usuarios de todas las empresas.' },
  OPERADOR_REQUERIDO: { status: 403, message: 'Solo un operador del servicio puede realizar esta operación.' },
});
