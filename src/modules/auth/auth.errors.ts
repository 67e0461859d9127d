import { defineErrors } from '../../lib/errors.js';

export const authErrors = defineErrors({
  CREDENCIALES_INVALIDAS: { status: 401, message: 'Usuario o contraseña incorrectos.' },
  USUARIO_BLOQUEADO: { status: 423, message: 'El usuario está bloqueado por intentos fallidos; un administrador debe desbloquearlo.' },
  USUARIO_DESHABILITADO: { status: 403, message: 'El usuario está deshabilitado.' },
  REFRESH_TOKEN_INVALIDO: { status: 401, message: 'El refresh token no es válido, expiró o fue revocado.' },
  REFRESH_TOKEN_REUTILIZADO: { status: 401, message: 'El refresh token ya había sido usado; por seguridad se revocó toda la sesión.' },
  REFRESH_TOKEN_NO_ENCONTRADO: { status: 404, message: 'El refresh token no existe.' },
  TOKEN_RECUPERACION_INVALIDO: { status: 400, message: 'El código de recuperación no es válido, ya fue usado o expiró.' },
});
