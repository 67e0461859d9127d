/** Examples of emission and the issued-CFE operations. VAT: IndFact 3 = basic rate 22 %, 2 = minimum rate 10 % (DGI). */
import { IDS, RUT_CLIENTE, RUT_EMPRESA, type ExampleCatalogue } from './types.js';

const eTicket = {
  idDoc: { tipoCfe: 101, fechaEmision: '2026-11-27', formaPago: 1, mntBruto: 1 },
  detalles: [
    { indicadorFacturacion: 3, nombreItem: 'Yerba mate 1 kg', cantidad: 2, precioUnitario: '189.90' },
    { indicadorFacturacion: 2, nombreItem: 'Arroz 1 kg', cantidad: 1, precioUnitario: '64.50' },
  ],
  mediosPago: [{ codigo: 1, glosa: 'Efectivo', valor: '444.30' }],
};

export const emitirExample = { idEmpresa: IDS.empresa, codComercio: 'CENTRAL', codTerminal: 'CAJA1', cfe: eTicket };

const search = { idEmpresa: IDS.empresa, tipoFiltro: 'fechaEmision', fechaFirmaDesde: '2026-11-01', fechaFirmaHasta: '2026-11-30' };

export const emissionExamples: ExampleCatalogue = {
  postComprobanteEmitir: { request: emitirExample },
  postComprobantePrevisualizar: {
    request: {
      idEmpresa: IDS.empresa, codComercio: 'CENTRAL', codTerminal: 'CAJA1',
      cfe: {
        idDoc: { tipoCfe: 111, fechaEmision: '2026-11-27', formaPago: 2, fechaVencimiento: '2026-12-27' },
        receptor: { idCliente: IDS.cliente },
        detalles: [{ indicadorFacturacion: 3, nombreItem: 'Servicio de mantenimiento mensual', cantidad: 1, precioUnitario: '12500.00' }],
      },
    },
  },
  postComprobanteTranscribirContingencia: {
    request: {
      idEmpresa: IDS.empresa, codComercio: 'CENTRAL', codTerminal: 'CAJA1',
      cfe: { idDoc: { tipoCfe: 201, fechaEmision: '2026-11-27', formaPago: 1, serie: 'B', numero: 1 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba mate 1 kg', cantidad: 1, precioUnitario: '189.90' }] },
    },
  },
  postComprobanteFirmarXml: { request: { idEmpresa: IDS.empresa, xml: '<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eTck>…(a CFE without its Signature)</eTck></CFE>' } },
  postCfeemitidoExportarExcel: { request: { ...search, columnas: ['fechaEmision', 'nombreTipoCfe', 'serie', 'numero', 'receptorNombre', 'moneda', 'mntTotal', 'estado'] } },
  postCfeemitidoConfiguracionExportacionCfe: { request: { idEmpresa: IDS.empresa, columnas: ['fechaEmision', 'nombreTipoCfe', 'serie', 'numero', 'receptorDocumento', 'receptorNombre', 'mntTotal', 'estado'] } },
  postExportacionContableExportarExt: { request: search },
  putExportacionContableCuentas: { request: { idEmpresa: IDS.empresa, cuentas: { deudoresPorVentas: '1.1.3.01', ventasTasaBasica: '4.1.1.01', ventasTasaMinima: '4.1.1.02', ivaVentasTasaBasica: '2.1.4.01', ivaVentasTasaMinima: '2.1.4.02' } } },
  postCfeemitidoEnviarPdfPorCorreo: { request: { idCfe: IDS.cfe, destinatarios: ['compras@clientedemo.com.uy'], asunto: 'Su comprobante de La Estrella', formato: 'A4' } },
  postCfeemitidoDescargarPdfsFiltrados: { request: { ...search, formato: 'A4', incluirXml: true } },
  postCfeemitidoGenerarSobreDgi: { request: { idEmpresa: IDS.empresa, idsCfe: [IDS.cfe] } },
  postCfeemitidoGenerarSobreReceptor: { request: { idEmpresa: IDS.empresa, idsCfe: [2], enviarPorCorreo: false } },
  // Answer hand-made: the flow has no receiving company to sign an ACKCFE (receiver-exchange tests cover it).
  postCfeemitidoRespuestaReceptor: {
    request: { idEmpresa: IDS.empresa, xml: '<ACKCFE xmlns="http://cfe.dgi.gub.uy" version="1.0">…(the receiver\'s signed answer)</ACKCFE>' },
    response: {
      tipo: 'ACKCFE', idRespuesta: 1, enlace: '/api/v1/cfeemitido/respuestaReceptor/1', idSobre: null, estadoSobre: null, motivos: [],
      cfes: [{ id: 2, tipoCfe: 111, serie: 'A', numero: 1, estadoReceptor: 'receptor_aceptado', cambio: true, motivos: [] }],
    },
  },
  postCfeemitidoByIdMarcarAceptado: { request: { motivo: 'Aceptado según consulta en el portal de DGI del 27/11/2026' } },
  postReportediarioRegenerar: { request: { idEmpresa: IDS.empresa, fecha: '2026-11-26' } },
  // Hand-made: the flow's report is accepted at once, and only an unanswered one (pendiente, error) is sent again.
  postReportediarioByIdReenviar: {
    response: {
      id: 3, idEmpresa: IDS.empresa, fechaResumen: '2026-11-26', secEnvio: 1, estado: 'aceptado', origen: 'cron', cantComprobantes: 41,
      resumen: [{ tipoComp: 101, cantDocsUtil: 38, cantDocsAnulados: 0, cantDocsEmi: 38 }, { tipoComp: 111, cantDocsUtil: 3, cantDocsAnulados: 0, cantDocsEmi: 3 }],
      tmstFirmaEnv: '2026-11-27T02:10:04-03:00', nombreArchivo: `Rep_${RUT_EMPRESA}_20261126_01.xml`, estadoDgi: 'AR', motivos: [], idReceptorDgi: '306900000',
      intentos: 2, ultimoError: null, creadoEn: '2026-11-27T05:10:04.000Z', enviadoEn: '2026-11-27T12:31:40.000Z',
    },
  },
};

/** The customer of the e-Factura examples. */
export const customerExample = { idEmpresa: IDS.empresa, tipoDocumento: 2, codPais: 'UY', documento: RUT_CLIENTE, razonSocial: 'Distribuidora del Este S.R.L.', direccion: 'Ruta 8 km 20', ciudad: 'Pando', departamento: 'Canelones', email: 'compras@distribuidoradeleste.com.uy', emisorElectronico: true };
