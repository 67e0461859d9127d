/**
 * Received CFEs, part 2 (issue 31 points 3, 5, 6): the export configuration of received CFEs, the
 * result of DGI's QR check per received CFE, and the stored reconciliations against DGI's
 * EFACCONSULTARCFERECIBIDOS. Kept apart from received-cfe.tables.ts (the intake's tables).
 */

import { bigint, bigserial, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';
import { receivedCfes } from './received-cfe.tables.js';

/** Columns of exportarExcel per user; company_scope 0 = every company of the user. */
export const receivedCfeExportConfigs = pgTable(
  'received_cfe_export_configs',
  {
    userId: integer().notNull(),
    companyScope: integer().notNull(),
    columnas: jsonb().$type<string[]>().notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.companyScope] })],
);

export type QrOutcome = 'pendiente' | 'coincide' | 'difiere' | 'no_encontrado' | 'error_consulta';
export interface QrDifference {
  campo: string;
  cfe: string | null;
  dgi: string | null;
}

/** The latest QR check of a received CFE (BRIEF 4): one row per CFE, replaced by each new check. */
export const receivedQrChecks = pgTable(
  'received_qr_checks',
  {
    receivedCfeId: bigint({ mode: 'number' }).primaryKey().references(() => receivedCfes.id),
    companyId: integer().notNull().references(() => companies.id),
    resultado: varchar({ length: 16 }).$type<QrOutcome>().notNull(),
    url: text(),
    diferencias: jsonb().$type<QrDifference[]>().notNull().default([]),
    /** What DGI's page showed (its fields), or why it could not be asked. */
    dgi: jsonb().$type<Record<string, string>>(),
    detalle: text(),
    intentos: integer().notNull().default(0),
    solicitadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    consultadoEn: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [index('received_qr_checks_company_idx').on(t.companyId, t.resultado)],
);

export type ReconciliationCategory = 'faltante_en_buzon' | 'no_registrado_en_dgi' | 'diferencia_estado' | 'diferencia_monto';
export interface ReconciliationItem {
  categoria: ReconciliationCategory;
  rutEmisor: string;
  tipoCfe: number;
  serie: string;
  numero: number;
  /** The received CFE here, when there is one. */
  idCfeRecibido: number | null;
  estadoLocal: string | null;
  estadoDgi: string | null;
  /** The CFE's FchEmis as received here (null when it never reached us). */
  fechaEmision: string | null;
  /** DGI's FechaHora (EFACCONSULTARCFERECIBIDOS): when DGI received the CFE; the date of a row missing here (issue 42 point 6). Absent in reconciliations stored before. */
  fechaDgi?: string | null;
  moneda: string | null;
  montoLocal: string | null;
  montoDgi: string | null;
  diferencias: Array<{ campo: string; local: string | null; dgi: string | null }>;
}

/** A reconciliation of a period (received CFE here vs what DGI says was issued to the company). */
export const receivedReconciliations = pgTable(
  'received_reconciliations',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    desde: date({ mode: 'string' }).notNull(),
    hasta: date({ mode: 'string' }).notNull(),
    rutEmisor: varchar({ length: 12 }),
    /** Calls made to DGI (periods over 31 days are split, BRIEF 7). */
    consultas: integer().notNull(),
    cantidadDgi: integer().notNull(),
    cantidadLocal: integer().notNull(),
    conteos: jsonb().$type<Record<ReconciliationCategory, number>>().notNull(),
    items: jsonb().$type<ReconciliationItem[]>().notNull(),
    creadoPor: integer(),
    creadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('received_reconciliations_company_idx').on(t.companyId, t.id)],
);

export type ReceivedReconciliationRow = typeof receivedReconciliations.$inferSelect;
export type ReceivedQrCheckRow = typeof receivedQrChecks.$inferSelect;
