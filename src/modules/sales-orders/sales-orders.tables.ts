import { integer, jsonb, numeric, pgTable, serial, text, timestamp, index } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';

export const salesOrderStates = ['borrador', 'confirmada', 'cancelada', 'finalizada'] as const;
export type SalesOrderState = (typeof salesOrderStates)[number];

export interface SalesOrderClient {
  idCliente?: number;
  documento?: string;
  nombre?: string;
}

export interface SalesOrderLine {
  numeroLineaDetalle: number;
  nombreItem: string;
  descripcionItem?: string;
  cantidad: string;
  unidadMedida?: string;
  precioUnitario: string;
  montoItem: string;
}

/** Sales orders (órdenes de venta): the minimal resource behind the OrdenDeVenta.* events (spec 6). */
export const salesOrders = pgTable(
  'sales_orders',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    estado: text({ enum: salesOrderStates }).notNull().default('borrador'),
    cliente: jsonb().$type<SalesOrderClient>().notNull().default({}),
    detalles: jsonb().$type<SalesOrderLine[]>().notNull(),
    tipoMoneda: text().notNull().default('UYU'),
    total: numeric({ precision: 18, scale: 2 }).notNull(),
    observaciones: text(),
    /** The CFE issued when the order was finalized with emitirCfe (issued-cfe module). */
    idCfeEmitido: integer(),
    finalizedAt: timestamp({ withTimezone: true, mode: 'date' }),
    cancelledAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [index('sales_orders_company_idx').on(t.companyId, t.id)],
);
