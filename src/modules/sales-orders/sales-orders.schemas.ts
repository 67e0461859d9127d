import { z } from 'zod';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { salesOrderStates } from './sales-orders.tables.js';

const amount = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]).describe('Decimal amount (number or string).');

const line = z.object({
  nombreItem: z.string().min(1).max(80),
  descripcionItem: z.string().max(1000).optional(),
  cantidad: amount,
  unidadMedida: z.string().max(4).optional(),
  precioUnitario: amount,
});
const cliente = z.object({
  idCliente: z.number().int().positive().optional(),
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
  id: z.number().int().positive(),
  cliente: cliente.optional(),
  detalles: z.array(line).min(1).max(500).optional(),
  tipoMoneda: z.string().length(3).optional(),
  observaciones: z.string().max(1000).nullable().optional(),
  estado: z.enum(['borrador', 'confirmada']).optional().describe('borrador ↔ confirmada.'),
});
export const finalizeBody = z.object({
  emitirCfe: z.boolean().default(false).describe('Issue the CFE of the order while finalizing (needs the emission module; 501 EMISION_NO_DISPONIBLE until then).'),
}).default({ emitirCfe: false });
export const idParams = z.object({ id: z.coerce.number().int().positive() });
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
