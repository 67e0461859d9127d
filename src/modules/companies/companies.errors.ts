import { defineErrors } from '../../lib/errors.js';

/**
 * Companies, branches and emission points. "Not found" codes are 404 and also answer for rows of
 * companies the caller cannot see. The states that stop an emission (disabled company, branch or
 * point; no DGI branch code) are 422: the request is well formed but cannot be processed.
 */
export const companyErrors = defineErrors({
  RUT_INVALIDO: { status: 400, message: 'El RUT no es válido.' },
  EMPRESA_DUPLICADA: { status: 409, message: 'Ya existe una empresa con ese RUT.' },
  EMPRESA_DESHABILITADA: { status: 422, message: 'La empresa está deshabilitada; habilítela antes de emitir.' },
  SUCURSAL_NO_ENCONTRADA: { status: 404, message: 'La sucursal no existe.' },
  SUCURSAL_DUPLICADA: { status: 409, message: 'Ya existe una sucursal con ese codComercio en la empresa.' },
  SUCURSAL_DESHABILITADA: { status: 422, message: 'La sucursal está deshabilitada; habilítela antes de emitir.' },
  PUNTO_EMISION_NO_ENCONTRADO: { status: 404, message: 'El punto de emisión no existe.' },
  PUNTO_EMISION_DUPLICADO: { status: 409, message: 'Ya existe un punto de emisión con ese codTerminal en la sucursal.' },
  PUNTO_EMISION_DESHABILITADO: { status: 422, message: 'El punto de emisión está deshabilitado y no puede emitir.' },
  CODIGO_DGI_NO_DEFINIDO: {
    status: 422,
    message: 'No hay código DGI de sucursal (CdgDGISucur) para la fecha de emisión: envíe CodigoCasaDgi (o el historial codigosDgi) de la sucursal con POST /api/v1/sucursal/editar, o CodigoCasaDgiPorDefecto de la empresa con POST /api/v1/empresa/editar.',
  },
  HISTORIAL_CODIGOS_INVALIDO: { status: 400, message: 'El historial de códigos DGI de la sucursal no es válido.' },
  LOGO_INVALIDO: { status: 400, message: 'El logo debe ser una imagen PNG, JPEG o SVG.' },
  /** Right signature (PNG/JPEG) but the image does not decode: it would not print (documents/raster-image.ts). */
  LOGO_DANADO: { status: 400, message: 'El logo está dañado o incompleto: la imagen no se puede decodificar.' },
  LOGO_DEMASIADO_GRANDE: { status: 413, message: 'El logo supera el tamaño máximo de 512 KB.' },
  LOGO_NO_ENCONTRADO: { status: 404, message: 'No hay logo cargado.' },
  SMTP_FALLO: { status: 422, message: 'El servidor de correo no aceptó el mensaje; revise la configuración SMTP de la empresa.' },
  DESTINATARIO_PRUEBA_REQUERIDO: { status: 422, message: 'Indique destinatario o registre el correo de la empresa para enviar el mensaje de prueba.' },
  OPERADOR_REQUERIDO: { status: 403, message: 'Solo un operador del servicio puede realizar esta operación.' },
});
