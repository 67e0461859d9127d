import { defineErrors } from '../../lib/errors.js';

export const userErrors = defineErrors({
  USUARIO_NO_ENCONTRADO: { status: 404, message: 'El usuario no existe.' },
  USUARIO_DUPLICADO: { status: 409, message: 'Ya existe un usuario con ese correo.' },
  CLAVE_DEBIL: { status: 400, message: 'La contraseña debe tener al menos 8 caracteres.' },
  CLAVE_ACTUAL_INCORRECTA: { status: 400, message: 'La contraseña actual no es correcta.' },
  EMPRESA_REQUERIDA: { status: 400, message: 'Indique idEmpresa: solo un operador puede listar usuarios de todas las empresas.' },
  /** nombre/habilitado of a user who also belongs to companies the caller does not administer. */
  USUARIO_DE_OTRAS_EMPRESAS: { status: 403, message: 'El usuario también pertenece a empresas que usted no administra: solo un operador o quien administre todas sus empresas puede cambiar su nombre o habilitación.' },
  /** The edit would leave a company without an enabled administrador (details.idEmpresa). */
  ULTIMO_ADMINISTRADOR: { status: 409, message: 'La empresa quedaría sin ningún administrador habilitado: asigne otro administrador antes de quitar, cambiar o deshabilitar este.' },
  OPERADOR_REQUERIDO: { status: 403, message: 'Solo un operador del servicio puede realizar esta operación.' },
});
