import { sql } from 'drizzle-orm';
import { date, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';
import { GROUNDS, REGIMES, type Investment } from './tax-benefit.rules.js';

/** What was declared and what it was checked against, kept as it was at the time (the PDF prints it). */
export interface DeclaredFacts {
  ingresosAnioAnterior?: string;
  ingresosAnioAnteriorUi?: string;
  valorUiCierre?: string;
  fechaInicioActividad?: string;
  grandeContribuyente?: boolean;
  inversiones?: Investment[];
  /** Decreto 324/011: share exempted, fiscal years, cap on the tax (BRIEF 12), and the amounts invested per currency. */
  exoneracion?: { porcentaje: number; ejercicios: number; topeImpuestoPorcentaje: number | null; invertido: Record<string, string>; exonerable: Record<string, string> };
  /** The company as it was when it declared. */
  empresa: { rut: string; razonSocial: string; domicilioFiscal: string | null; ciudad: string | null; departamento: string | null; regimenTributario: string };
}

/**
 * Sworn declarations of a company for a tax benefit tied to e-invoicing (BRIEF 12). A newer one
 * for the same fiscal year and regime supersedes the older, which stays (reemplazada_por set):
 * at most one current declaration per company, year and regime.
 */
export const taxBenefitDeclarations = pgTable(
  'tax_benefit_declarations',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    anioFiscal: integer().notNull(),
    regimen: text({ enum: REGIMES }).notNull(),
    fundamento: text({ enum: GROUNDS }),
    /** Start as an electronic issuer used by the checks, and where it came from. */
    fechaInicioEmisor: date({ mode: 'string' }),
    fuenteFechaInicio: text({ enum: ['registro_dgi', 'empresa', 'declarada'] }),
    hechos: jsonb().$type<DeclaredFacts>().notNull(),
    declaranteNombre: varchar({ length: 150 }).notNull(),
    declaranteDocumento: varchar({ length: 20 }).notNull(),
    declaranteCargo: varchar({ length: 100 }).notNull(),
    createdByUserId: integer(),
    reemplazadaPor: integer(),
    reemplazadaEn: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('tax_benefit_current_uq').on(t.companyId, t.anioFiscal, t.regimen).where(sql`${t.reemplazadaPor} is null`),
    index('tax_benefit_company_idx').on(t.companyId, t.id),
  ],
);
