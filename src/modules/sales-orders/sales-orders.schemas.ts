import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { dgiDecimal, dgiText } from '../../platform/http/dgi-fields.js';
import { receptorBody } from '../issued-cfe/issued-cfe.schemas.js';
import { salesOrderStates } from './sales-orders.tables.js';
import { companyRef } from '../../platform/http/company-refs.js';


// The lines become the CFE's items when the order is finalized: DGI's limits at the door (issue 28 point 3).
// An order sells: a quantity of 0 or below is refused (a CFE's negative quantity only takes back an item of the same CFE).
const line = z.object({
  nombreItem: dgiText('NomItemType', { required: true }).describe('NomItem (≤ 80 characters; blank refused)'),
  descripcionItem: z.string().max(1000).optional(),
  cantidad: dgiDecimal('CantType').refine((v) => /[1-9]/.test(v), 'debe ser mayor que 0').describe('Quantity > 0, at most 3 decimals and 17 digits (DGI CantType); 0 or negative is a 400.'),
  unidadMedida: dgiText('UniMedType').optional().describe('UniMed (≤ 4 characters)'),
  precioUnitario: dgiDecimal('PrecioUnitarioType').describe('0..99999999999.999999, at most 6 decimals (DGI PrecioUnitarioType).'),
});
const cliente = z.object({
  idCliente: companyRef(z.number().int().positive(), 'cliente').optional().describe('Customer of the order\'s company; another company\'s answers 404 CLIENTE_NO_ENCONTRADO.'),
  documento: z.string().max(20).optional(),
  nombre: z.string().max(150).optional(),
});

export const createOrderBody = z.object({
  idEmpresa: z.number().int().positive(),
  cliente: cliente.default({}),
  detalles: z.array(line).min(1).max(500),
  tipoMoneda: z.string().length(3).default('UYU'),
  observaciones: z.string().max(1000).optional(),
  estado: z.enum(['borrador', 'confirmada']).default('borrador').describe('Initial state.'),
});
export const editOrderBody = z.object({
  id: companyRef(z.number().int().positive(), 'ordenVenta', { anchor: true }),
  cliente: cliente.optional(),
  detalles: z.array(line).min(1).max(500).optional(),
  tipoMoneda: z.string().length(3).optional(),
  observaciones: z.string().max(1000).nullable().optional(),
  estado: z.enum(['borrador', 'confirmada']).optional().describe('borrador ↔ confirmada.'),
});
export const finalizeBody = z.object({
  emitirCfe: z.boolean().default(false).describe('Issue the CFE of the order while finalizing (spec 2.1 emitir rules apply; needs the emisor role).'),
  codComercio: z.string().min(1).max(40).optional().describe('Branch code (codComercio) of the emission point. Required with emitirCfe.').meta({ example: 'C1' }),
  codTerminal: z.string().min(1).max(40).optional().describe('Terminal code (codTerminal) of the emission point. Required with emitirCfe.').meta({ example: 'T1' }),
  tipoCfe: z.number().int().optional().describe('CFE type. Default 111 (e-Factura) when the receiver has a RUT, else 101 (e-Ticket).'),
  formaPago: z.union([z.literal(1), z.literal(2)]).optional().describe('FmaPago: 1 contado (default), 2 crédito.'),
  fechaEmision: calendarDate.optional().describe('FchEmis; default today in America/Montevideo.'),
  mntBruto: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional().describe('MntBruto: 1 = the order prices include VAT. Default: prices without VAT.'),
  indicadorFacturacion: z.number().int().optional().describe('IndFact of every line; default 3 (gravado a tasa básica).'),
  tipoCambio: dgiDecimal('TipCambioType').optional().describe('TpoCambio for a foreign-currency order (0.001..9999.999, at most 3 decimals: DGI TipCambioType); when omitted it is resolved as in emitir (spec 2.3 rule 7).'),
  receptor: receptorBody.optional().describe('Receiver override (emitir receptor shape); default: the order customer (idCliente, else documento + nombre).'),
}).refine((b) => !b.emitirCfe || (b.codComercio && b.codTerminal), { message: 'Con emitirCfe se requieren codComercio y codTerminal.', path: ['codComercio'] })
  .default({ emitirCfe: false });
export const idParams = z.object({ id: companyRef(z.coerce.number().int().positive(), 'ordenVenta', { anchor: true }) });
export const listQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive(),
  estado: z.enum(salesOrderStates).optional(),
});

export const orderView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  estado: z.enum(salesOrderStates).describe('borrador → confirmada → finalizada; borrador/confirmada → cancelada.'),
  cliente,
  detalles: z.array(line.extend({ numeroLineaDetalle: z.number().int(), cantidad: z.string(), precioUnitario: z.string(), montoItem: z.string() })),
  tipoMoneda: z.string(),
  total: z.string().describe('Sum of montoItem, 2 decimals.'),
  observaciones: z.string().nullable(),
  idCfeEmitido: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const ordersPage = pagedResponse(orderView);
