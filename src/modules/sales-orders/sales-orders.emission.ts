/**
 * Builds the emitir request (spec 2.1) of a sales order being finalized with emitirCfe: the order
 * knows lines, customer and currency; the caller adds what only a point of sale knows (comercio,
 * terminal, type, payment form, date). Pure functions: no database, no HTTP.
 */
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import type { SalesOrderClient, SalesOrderLine } from './sales-orders.tables.js';

/** e-Ticket and e-Factura (DGI CFE type codes). */
export const E_TICKET = 101;
export const E_FACTURA = 111;
/** IndFact 3 = gravado a tasa básica (DGI formato CFE, IndFact). */
export const DEFAULT_INDICADOR_FACTURACION = 3;
/** TipoDocRecep 2 = RUT (DGI formato CFE). */
const TIPO_DOC_RUT = 2;

export type ReceptorInput = NonNullable<IssueCfeBody['cfe']['receptor']>;

/** What the finalize body adds to the order when emitirCfe is true. */
export interface EmissionOptions {
  codComercio: string;
  codTerminal: string;
  tipoCfe?: number;
  formaPago?: 1 | 2;
  fechaEmision?: string;
  mntBruto?: 1 | 2 | 3;
  indicadorFacturacion?: number;
  tipoCambio?: string | number;
  receptor?: ReceptorInput;
}

export interface OrderForEmission {
  id: number;
  companyId: number;
  cliente: SalesOrderClient;
  detalles: SalesOrderLine[];
  tipoMoneda: string;
}

/** The Idempotency-Key of an order's CFE: a retry after a partial failure replays the same receipt. */
export const orderIdempotencyKey = (orderId: number) => `ordenventa-${orderId}`;

/** The receptor of the CFE: the override as sent, else the order's customer (by id, else by document/name). */
export function receptorOf(cliente: SalesOrderClient, override?: ReceptorInput): ReceptorInput | undefined {
  if (override) return override;
  if (cliente.idCliente !== undefined) return { idCliente: cliente.idCliente };
  if (cliente.documento) return { documento: cliente.documento, ...(cliente.nombre ? { razonSocial: cliente.nombre } : {}) };
  return undefined;
}

const isRut = (documento: string | undefined) => !!documento && /^\d{12}$/.test(documento.trim());

/**
 * Default type: e-Factura (111) when the receiver has a RUT (DGI: e-Factura is the receipt for
 * RUT-holding receivers), otherwise e-Ticket (101). `customerDocType` is the TipoDocRecep of the
 * customer when the receptor is given by idCliente.
 */
export function defaultTipoCfe(receptor: ReceptorInput | undefined, customerDocType?: number): number {
  if (!receptor) return E_TICKET;
  if (receptor.idCliente !== undefined) return customerDocType === TIPO_DOC_RUT ? E_FACTURA : E_TICKET;
  if (receptor.tipoDocumento !== undefined) return receptor.tipoDocumento === TIPO_DOC_RUT && isRut(receptor.documento) ? E_FACTURA : E_TICKET;
  return isRut(receptor.documento) ? E_FACTURA : E_TICKET;
}

export function buildEmitBody(order: OrderForEmission, opts: EmissionOptions, tipoCfe: number, fechaEmision: string): IssueCfeBody {
  const receptor = receptorOf(order.cliente, opts.receptor);
  const indicadorFacturacion = opts.indicadorFacturacion ?? DEFAULT_INDICADOR_FACTURACION;
  return {
    idEmpresa: order.companyId,
    codComercio: opts.codComercio,
    codTerminal: opts.codTerminal,
    cfe: {
      idDoc: { tipoCfe, fechaEmision, formaPago: opts.formaPago ?? 1, ...(opts.mntBruto ? { mntBruto: opts.mntBruto } : {}), numeroInterno: `OV-${order.id}` },
      ...(receptor ? { receptor } : {}),
      totales: { tipoMoneda: order.tipoMoneda, ...(opts.tipoCambio !== undefined ? { tipoCambio: String(opts.tipoCambio) } : {}) },
      detalles: order.detalles.map((l) => ({
        numeroLineaDetalle: l.numeroLineaDetalle,
        indicadorFacturacion,
        nombreItem: l.nombreItem,
        ...(l.descripcionItem ? { descripcionItem: l.descripcionItem } : {}),
        cantidad: l.cantidad,
        unidadMedida: l.unidadMedida || 'N/A',
        precioUnitario: l.precioUnitario,
        montoItem: l.montoItem,
      })),
    },
  };
}
