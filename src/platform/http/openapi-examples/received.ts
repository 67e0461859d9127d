/** Examples of the received-CFE operations. */
import { IDS, type ExampleCatalogue } from './types.js';

const search = { idEmpresa: IDS.empresa, tipoFiltro: 'fechaComprobante', fechaComprobanteDesde: '2026-11-01', fechaComprobanteHasta: '2026-11-30' };

export const receivedExamples: ExampleCatalogue = {
  postCferecibidoImportar: { request: { idEmpresa: IDS.empresa, xml: '<EnvioCFE_entreEmpresas xmlns="http://cfe.dgi.gub.uy" version="1.0">…(the envelope as the issuer sent it)</EnvioCFE_entreEmpresas>', nombreArchivo: 'Sob_210475730011_20261127_1.xml', emailRespuesta: 'facturacion@distribuidoradeleste.com.uy' } },
  postCferecibidoAceptar: { request: { idEmpresa: IDS.empresa, ids: [1] } },
  postCferecibidoRechazar: { request: { idEmpresa: IDS.empresa, ids: [2], motivo: { codigo: 'E22', detalle: 'La mercadería facturada no fue recibida' } } },
  postCferecibidoMarcarComoImportadoStockById: { request: { idEmpresa: IDS.empresa, referencia: 'REM-2026-0457', lineas: [{ nroLinea: 1, cantidad: '10' }] } },
  postCferecibidoExportarExcel: { request: { ...search, columnas: ['fechaEmision', 'rutEmisor', 'razonSocialEmisor', 'nombreTipoCfe', 'serie', 'numero', 'mntTotal', 'estado'] } },
  postCferecibidoConfiguracionExportacionCfe: { request: { idEmpresa: IDS.empresa, columnas: ['fechaEmision', 'rutEmisor', 'razonSocialEmisor', 'serie', 'numero', 'mntTotal', 'estado'] } },
  postCferecibidoDescargarPdfsFiltrados: { request: { ...search, formato: 'A4', incluirXml: false } },
  postCferecibidoConsultarQr: { request: { idEmpresa: IDS.empresa, ids: [1] } },
  postCferecibidoConciliar: { request: { idEmpresa: IDS.empresa, desde: '2026-11-01', hasta: '2026-11-27' } },
  postCferecibidoExportarConciliacion: { request: { idEmpresa: IDS.empresa, idConciliacion: 1 } },
};
