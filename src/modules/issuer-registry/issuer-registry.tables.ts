import { date, integer, pgTable, smallint, text, timestamp, varchar } from 'drizzle-orm/pg-core';

/**
 * Local copy of DGI's registry of electronic issuers (EFACCONSULTARRUCEMISORES, BRIEF 7), kept by
 * the sync job (issuer-registry.jobs.ts). One row per RUC, as DGI last described it.
 */
export const electronicIssuers = pgTable('dgi_electronic_issuers', {
  ruc: varchar({ length: 12 }).primaryKey(),
  denominacion: text().notNull(),
  /** FECHA_INICIO: start as an electronic issuer. */
  fechaInicio: date({ mode: 'string' }),
  /** FECHA_FIN_TRANSICION: end of the transition period (paper and CFE side by side). */
  fechaFinTransicion: date({ mode: 'string' }),
  /** FECHA_FIN: no longer an electronic issuer from this date. */
  fechaFin: date({ mode: 'string' }),
  /** MAIL: the address other issuers send its CFEs to (BRIEF 8). */
  mail: text(),
  /** When our sync (or an on-demand lookup) last read this entry from DGI. */
  readAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
});

/** The sync's single state row (id = 1): where the next incremental query starts. */
export const issuerRegistrySync = pgTable('dgi_issuer_registry_sync', {
  id: smallint().primaryKey(),
  /** Filtro_eFacRUCEmisorAudFchHora of the next run (Uruguay local time); null = full download. */
  changedSince: text(),
  lastRunAt: timestamp({ withTimezone: true, mode: 'date' }),
  lastSuccessAt: timestamp({ withTimezone: true, mode: 'date' }),
  lastCount: integer(),
  lastError: text(),
});
