import { defineErrors } from '../../lib/errors.js';

/** Received CFEs (BRIEF 8; issue 30). */
export const receivedErrors = defineErrors({
  CFE_RECIBIDO_NO_ENCONTRADO: { status: 404, message: 'El CFE recibido no existe en la empresa.' },
  DOCUMENTO_RECIBIDO_INVALIDO: { status: 422, message: 'El documento no es un sobre EnvioCFE_entreEmpresas ni un CFE firmado que se pueda leer.' },
  MOTIVO_RECHAZO_INVALIDO: { status: 422, message: 'El motivo de rechazo no está en la tabla de DGI (E02-E07, E10-E12, E20-E60).' },
  MOTIVO_RECHAZO_SIN_GLOSA: { status: 422, message: 'Los motivos E27 a E60 se acuerdan entre las partes: indique su glosa.' },
  RESPUESTA_NO_ENCONTRADA: { status: 404, message: 'La respuesta (ACKSobre / ACKCFE) no existe en la empresa.' },
  IDEMPOTENCIA_CONFLICTO_RECIBIDO: { status: 409, message: 'La Idempotency-Key ya se usó con otra solicitud.' },
  CFE_RECIBIDO_NO_IMPRIMIBLE: { status: 422, message: 'El documento recibido no es un CFE legible: no tiene representación impresa (descargue su XML).' },
  CFE_RECIBIDO_YA_REGISTRADO: { status: 409, message: 'El CFE ya está registrado en la empresa (idCfeRecibido): no se registra otra vez ni se responde al emisor.' },
  CFE_RECIBIDO_YA_IMPORTADO_STOCK: { status: 409, message: 'El CFE recibido ya se importó a stock con otra referencia.' },
  CFE_RECIBIDO_NO_IMPORTABLE_STOCK: { status: 409, message: 'El CFE recibido no se puede importar a stock en su estado (duplicado, rechazado por formato o anulado por el emisor).' },
  STOCK_LINEA_INVALIDA: { status: 422, message: 'Las líneas deben ser líneas del CFE (NroLinDet), sin repetir.' },
  CORREO_ENTRANTE_NO_CONFIGURADO: { status: 404, message: 'La empresa no tiene buzón de entrada configurado: configúrelo con PUT /api/v1/empresa/correoEntrante.' },
  CORREO_ENTRANTE_CLAVE_REQUERIDA: { status: 422, message: 'Indique la clave del buzón (clave): no hay una guardada.' },
  CORREO_ENTRANTE_FALLO: { status: 422, message: 'No se pudo leer el buzón de entrada.' },
});
