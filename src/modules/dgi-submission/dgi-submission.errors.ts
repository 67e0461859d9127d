/** Errors of the DGI round trip endpoints (generarSobreDgi, marcar-aceptado, envelopes, settings). */
import { defineErrors } from '../../lib/errors.js';

export const dgiSubmissionErrors = defineErrors({
  SOBRE_CFE_NO_ENCONTRADO: { status: 404, message: 'Uno o más comprobantes indicados no existen en esta empresa.' },
  SOBRE_CANTIDAD_INVALIDA: { status: 422, message: 'Un sobre para DGI lleva entre 1 y 250 comprobantes distintos.' },
  SOBRE_TAMANO_EXCEDIDO: { status: 422, message: 'Los comprobantes indicados superan los 2 MB de un sobre: divídalos en varios sobres.' },
  SOBRE_XML_INVALIDO: { status: 422, message: 'El sobre no cumple el esquema XSD de DGI (EnvioCFE).' },
  SOBRE_CERTIFICADOS_DISTINTOS: { status: 422, message: 'Los comprobantes de un sobre deben estar firmados con el mismo certificado: hay comprobantes de otra empresa.' },
  SOBRE_CFE_ANULADO: { status: 409, message: 'Hay comprobantes rechazados por DGI: su número está anulado y no puede volver a enviarse (DGI respondería E01).' },
  SOBRE_CFE_YA_EN_DGI: { status: 409, message: 'Hay comprobantes que DGI ya recibió o aceptó: enviarlos en otro sobre sería un duplicado (E02).' },
  SOBRE_SIN_CERTIFICADO: { status: 422, message: 'La empresa no tiene un certificado activo para la carátula del sobre: importe uno con POST /api/v1/empresa/importarCertificado (idEmpresa, clave y el archivo .p12/.pfx; el primero queda activo) o active uno ya importado con POST /api/v1/empresa/asignarCertificado.' },
  SOBRE_NO_ENCONTRADO: { status: 404, message: 'El sobre no existe.' },
  MARCAR_ACEPTADO_ESTADO: { status: 409, message: 'El comprobante ya tiene una respuesta definitiva de DGI y no se puede marcar como aceptado a mano.' },
});
