/** Examples of the master data operations: customers, products, exchange rates, tax benefit. */
import { customerExample } from './emission.js';
import { IDS, type ExampleCatalogue } from './types.js';

export const mastersExamples: ExampleCatalogue = {
  postClienteCrear: { request: customerExample },
  postClienteEditar: { request: { idCliente: IDS.cliente, emailIntercambio: 'cfe@distribuidoradeleste.com.uy' } },
  postProductoCrear: { request: { idEmpresa: IDS.empresa, codigo: 'YER-1KG', nombre: 'Yerba mate 1 kg', unidadMedida: 'UN', indicadorFacturacion: 3 } },
  postProductoEditar: { request: { idProducto: IDS.producto, descripcion: 'Yerba mate con palo, paquete de 1 kg' } },
  postProductoVarianteCrear: { request: { idProducto: IDS.producto, codigo: 'YER-1KG-SUAVE', nombre: 'Yerba mate suave 1 kg', precioUnitario: '189.90', unidadMedida: 'UN' } },
  postProductoVarianteEditar: { request: { idVariante: IDS.variante, precioUnitario: '194.50' } },
  postProductoVarianteByIdLotes: { request: { codigo: 'L2026-11-A', fechaVencimiento: '2028-11-30' } },
  postProductoVarianteByIdSeries: { request: { numeroSerie: 'SN-000154' } },
  postEmpresaCotizacionesCargar: { request: { idEmpresa: IDS.empresa, cotizaciones: [{ moneda: 'USD', fecha: '2026-11-26', tipoCambio: '39.850' }, { moneda: 'EUR', fecha: '2026-11-26', tipoCambio: '43.120' }] } },
  postEmpresaBeneficioFiscalDeclaracion: {
    request: {
      idEmpresa: IDS.empresa, anioFiscal: 2026, regimen: 'decreto_206_019', fundamento: 'ingresos_hasta_750000_ui', ingresosAnioAnterior: '3500000.00',
      grandeContribuyente: false,
      declarante: { nombre: 'María Fernández', documento: '45678905', cargo: 'Directora' }, aceptaDeclaracionJurada: true,
    },
  },
};
