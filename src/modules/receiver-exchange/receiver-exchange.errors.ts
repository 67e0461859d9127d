import { defineErrors } from '../../lib/errors.js';

/** Exchange with electronic receivers (BRIEF 8; issue 6 points 1-2; DGI first, BRIEF 1 and 10). */
export const receiverErrors = defineErrors({
  CFE_NO_ENCONTRADO_SOBRE: { status: 404, message: 'Alguno de los comprobantes indicados no existe en la empresa.' },
  SOBRE_RECEPTOR_CFC: { status: 422, message: 'Los comprobantes de contingencia (CFC, tipos 2xx) nunca se envían al receptor; solo a DGI.' },
  SOBRE_RECEPTOR_SIN_RUC: { status: 422, message: 'Solo se envía sobre a un receptor identificado por RUT (emisor electrónico).' },
  SOBRE_RECEPTOR_MEZCLADO: { status: 422, message: 'Un sobre entre empresas lleva solo comprobantes de un mismo receptor (RUT).' },
  SOBRE_RECEPTOR_NO_ELECTRONICO: { status: 422, message: 'El cliente no es emisor electrónico (ni marcado emisorElectronico ni en el registro de emisores de DGI): el sobre entre empresas solo se envía a emisores electrónicos.' },
  SOBRE_RECEPTOR_SIN_CLIENTE: { status: 422, message: 'El receptor del comprobante no es un cliente de la empresa: créelo para enviarle el sobre por correo.' },
  SOBRE_RECEPTOR_SIN_CORREO: { status: 422, message: 'El cliente es emisor electrónico pero no tiene dirección de correo para el intercambio (emailIntercambio, MAIL del registro de DGI o email).' },
  SOBRE_RECEPTOR_RECHAZADO_DGI: { status: 409, message: 'Hay comprobantes rechazados por DGI: están anulados (no pueden volver a usarse) y nunca se envían al receptor como válidos.' },
  SOBRE_RECEPTOR_SIN_DGI: { status: 409, message: 'Hay comprobantes que DGI todavía no recibió: cada CFE se envía a DGI antes que al receptor electrónico.' },
  SOBRE_RECEPTOR_INVALIDO: { status: 422, message: 'El sobre generado no cumple EnvioCFE_entreEmpresas.xsd.' },
  SIN_CERTIFICADO_SOBRE: { status: 422, message: 'La empresa no tiene un certificado activo (el sobre lleva el certificado que firmó los comprobantes): importe uno con POST /api/v1/empresa/importarCertificado (idEmpresa, clave y el archivo .p12/.pfx; el primero queda activo) o active uno ya importado con POST /api/v1/empresa/asignarCertificado.' },
  RESPUESTA_RECEPTOR_INVALIDA: { status: 422, message: 'La respuesta del receptor no es un ACKSobre ni un ACKCFE válido según los XSD de DGI.' },
  RESPUESTA_RECEPTOR_FIRMA: { status: 422, message: 'La firma de la respuesta del receptor no es válida o no trae el certificado del receptor.' },
  RESPUESTA_RECEPTOR_OTRA_EMPRESA: { status: 422, message: 'La respuesta del receptor es para otro emisor (RUCEmisor distinto del RUT de la empresa).' },
  RESPUESTA_RECEPTOR_SIN_CFE: { status: 422, message: 'La respuesta del receptor menciona comprobantes que la empresa no emitió.' },
  RESPUESTA_RECEPTOR_NO_ES_RECEPTOR: { status: 422, message: 'La respuesta viene de un RUT (RUCReceptor) que no es el receptor del comprobante o del sobre: solo la respuesta del receptor cuenta; no se aplica.' },
  RESPUESTA_RECEPTOR_SIN_SOBRE: { status: 422, message: 'El ACKSobre se refiere a un sobre (IDEmisor) que la empresa no generó.' },
  AVISO_ANULACION_INVALIDO: { status: 422, message: 'El aviso CFEs_Anulados_x_RechazoDGI generado no cumple su XSD.' },
  SOBRE_RECEPTOR_NO_ENCONTRADO: { status: 404, message: 'El sobre al receptor no existe en la empresa.' },
  RESPUESTA_RECEPTOR_NO_ENCONTRADA: { status: 404, message: 'La respuesta del receptor no existe en la empresa.' },
  AVISO_ANULACION_NO_ENCONTRADO: { status: 404, message: 'El aviso de anulación por rechazo de DGI no existe en la empresa.' },
  RESPUESTA_RECEPTOR_TRANSICION: { status: 409, message: 'La respuesta del receptor contradice una respuesta anterior ya registrada para el comprobante.' },
});
