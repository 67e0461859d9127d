import { defineErrors } from '../../lib/errors.js';

/** Spec 7.1 and 7.2 fix the meaning of the first two messages: registration needs url and events. */
export const webhookErrors = defineErrors({
  WEBHOOK_CAMPOS_REQUERIDOS: { status: 400, message: 'Los campos requeridos son url y events.' },
  WEBHOOK_PAYLOAD_INVALIDO: { status: 400, message: 'El payload está vacío o no es válido.' },
  WEBHOOK_EVENTO_DESCONOCIDO: { status: 400, message: 'Uno o más eventos no existen en el catálogo de eventos.' },
  WEBHOOK_URL_INVALIDA: { status: 400, message: 'La url debe ser una dirección http o https válida.' },
  WEBHOOK_URL_PRIVADA: { status: 400, message: 'La url apunta a una dirección privada o local, que no está permitida.' },
  WEBHOOK_EMPRESA_REQUERIDA: { status: 400, message: 'Indique idEmpresa en la consulta: su usuario tiene acceso a más de una empresa.' },
  WEBHOOK_ENCABEZADO_INVALIDO: { status: 400, message: 'Los encabezados deben tener nombres válidos (token RFC 7230, sin espacios) y valores de ASCII visible, espacio o tabulador (sin CR, LF ni NUL).' },
  WEBHOOK_SECRETO_INVALIDO: { status: 400, message: 'Un secreto whsec_ debe ser base64 estándar de al menos 24 bytes después del prefijo (Standard Webhooks).' },
  WEBHOOK_EVENTO_NO_DISPONIBLE: { status: 400, message: 'Uno o más eventos del catálogo todavía no se emiten y no se pueden suscribir.' },
  WEBHOOK_DESACTIVADO: { status: 409, message: 'El webhook está desactivado: actívelo (enabled: true) antes de probarlo o reenviar entregas.' },
  WEBHOOK_NO_ENCONTRADO: { status: 404, message: 'El webhook no existe.' },
  ENTREGA_NO_ENCONTRADA: { status: 404, message: 'La entrega no existe.' },
  ENTREGA_PENDIENTE: { status: 409, message: 'La entrega todavía está pendiente; espere a que termine antes de reenviarla.' },
});
