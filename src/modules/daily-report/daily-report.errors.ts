import { defineErrors } from '../../lib/errors.js';

/** Daily report (BRIEF 9). */
export const dailyReportErrors = defineErrors({
  REPORTE_NO_ENCONTRADO: { status: 404, message: 'El reporte diario no existe.' },
  REPORTE_FECHA_INVALIDA: { status: 422, message: 'Solo se puede generar el reporte de un día ya terminado (DGI rechaza con R06 un reporte anterior a su fecha de resumen).' },
  REPORTE_SIN_CERTIFICADO: { status: 422, message: 'La empresa no tiene un certificado activo para firmar el reporte diario: importe uno con POST /api/v1/empresa/importarCertificado (idEmpresa, clave y el archivo .p12/.pfx; el primero queda activo) o active uno ya importado con POST /api/v1/empresa/asignarCertificado.' },
  REPORTE_INVALIDO: { status: 422, message: 'El reporte diario generado no cumple el esquema de DGI; revise los comprobantes del día.' },
  REPORTE_NO_REENVIABLE: { status: 409, message: 'El reporte ya tiene respuesta de DGI o fue reemplazado; para corregirlo genere uno nuevo (regenerar).' },
  REPORTE_DGI_NO_DISPONIBLE: { status: 503, message: 'DGI no respondió al envío del reporte; se reintentará automáticamente.', retryable: true },
});
