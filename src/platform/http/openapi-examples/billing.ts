/** Examples of the billing operations: sales orders, recurring plans, usage metering, price books, contracts. */
import { IDS, type ExampleCatalogue } from './types.js';

const contractAction = { motivo: 'Acordado con el cliente' };

export const billingExamples: ExampleCatalogue = {
  postOrdenventaCrear: { request: { idEmpresa: IDS.empresa, cliente: { idCliente: IDS.cliente }, detalles: [{ nombreItem: 'Yerba mate 1 kg', cantidad: 12, unidadMedida: 'UN', precioUnitario: '189.90' }], tipoMoneda: 'UYU', estado: 'confirmada' } },
  postOrdenventaEditar: { request: { id: 1, observaciones: 'Entregar en el depósito de Pando' } },
  postOrdenventaByIdFinalizar: { request: { emitirCfe: true, codComercio: 'CENTRAL', codTerminal: 'CAJA1', tipoCfe: 111, formaPago: 2, indicadorFacturacion: 3 } },
  postFacturacionrecurrenteCrear: {
    request: {
      idEmpresa: IDS.empresa, nombre: 'Mantenimiento mensual Distribuidora del Este', codComercio: 'CENTRAL', codTerminal: 'CAJA1',
      plantilla: { idDoc: { tipoCfe: 111, formaPago: 2 }, receptor: { idCliente: IDS.cliente }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Servicio de mantenimiento mensual', cantidad: 1, precioUnitario: '12500.00' }] },
      frecuencia: { unidad: 'mes', intervalo: 1 }, anclaje: { diaDelMes: 1 }, horaEmision: '06:00', zonaHoraria: 'America/Montevideo', fechaInicio: '2026-12-01',
    },
  },
  postFacturacionrecurrenteEditar: { request: { id: 1, nombre: 'Mantenimiento mensual (contrato 2027)' } },
  postFacturacionrecurrenteActivarById: { request: {} },
  postFacturacionrecurrentePausarById: { request: { hasta: '2027-01-31T23:59:00-03:00' } },
  postFacturacionrecurrenteReanudarById: { request: { politicaReanudacion: 'omitir' } },
  postFacturacionrecurrenteEmitirAhoraById: { request: {} },
  postFacturacionrecurrenteOmitirProximaById: { request: {} },
  postFacturacionrecurrenteReintentarById: { request: { periodoDesde: '2026-12-01' } },
  postFacturacionrecurrenteCancelarById: { request: { motivo: 'El cliente rescindió el contrato' } },
  postSandboxFacturacionrecurrenteReloj: { request: { ahora: '2026-12-01T06:05:00-03:00' } },
  postSandboxReloj: { request: { ahora: '2026-12-01T06:05:00-03:00' } },
  postMetrics: { request: { codigo: 'api_calls', nombre: 'Llamadas a la API', unidad: 'llamadas', agregacion: 'count', clavesAgrupacion: ['region'] } },
  patchMetricsById: { request: { nombre: 'Llamadas a la API (todas las regiones)' } },
  postContracts: { request: { idCliente: IDS.cliente, idExterno: 'CTR-77', metricas: ['api_calls'], inicio: '2026-11-01T00:00:00-03:00', estado: 'borrador' } },
  patchContractsById: { request: { fin: '2027-10-31T23:59:59-03:00' } },
  putUsageSettings: { request: { graciaHoras: 48 } },
  postUsageEvents: { request: { idEmpresa: IDS.empresa, eventos: [{ idTransaccion: 'evt-2026-11-27-0001', idExternoContrato: 'CTR-77', metrica: 'api_calls', fechaHora: '2026-11-27T10:15:00-03:00', propiedades: { region: 'norte' } }] } },
  postPriceBooks: {
    request: {
      codigo: 'API-2026', nombre: 'Tarifa API 2026', moneda: 'UYU', vigenteDesde: '2026-11-01',
      precios: [{ metrica: 'api_calls', modelo: 'escalonado', tramos: [{ desde: '0', hasta: '10000', precioUnitario: '0.50' }, { desde: '10000', hasta: null, precioUnitario: '0.35' }], indicadorFacturacion: 3, nombreItem: 'Llamadas a la API' }],
    },
  },
  postPriceBooksByCodigoVersionesByVersionCerrar: { request: { vigenteHasta: '2027-10-31' } },
  putContractsByIdTerms: { request: { codigoListaPrecios: 'API-2026', diaAncla: 1, tipoCfe: 111, codComercio: 'CENTRAL', codTerminal: 'CAJA1', formaPago: 2, reglas: [{ id: 'fin-prueba-gratis', objetivo: 'unidades', metrica: 'api_calls', umbral: '1', accion: 'advertir', levantamiento: 'manual' }] } },
  postContractsByIdSuspender: { request: contractAction },
  postContractsByIdReanudar: { request: contractAction },
  postContractsByIdLevantar: { request: { reglas: ['fin-prueba-gratis'], motivo: 'El cliente contrató el plan pago' } },
  postContractsByIdActivar: { request: contractAction },
  postContractsByIdCancelar: { request: { motivo: 'Baja del servicio solicitada por el cliente' } },
  postContractsByIdFinalizar: { request: { motivo: 'Fin del contrato anual', facturar: true } },
};
