import { sql } from 'drizzle-orm';
import {
  boolean, customType, date, foreignKey, index, integer, jsonb, pgTable, serial, text, timestamp, unique, uniqueIndex, varchar,
} from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** Open-ended per-company settings (per-type DGI sending config comes later); typed by zod in the API. */
export type CompanySettings = Record<string, unknown>;

/**
 * Companies (empresas): the tenant and the CFE issuer (spec 1). RUT and legal name fill
 * Emisor/RUCEmisor and RznSoc (spec 2.2 rule 2); the contact columns are the fallback of rule 3.
 */
export const companies = pgTable(
  'companies',
  {
    id: serial().primaryKey(),
    rut: varchar({ length: 12 }).notNull(),
    razonSocial: text().notNull(),
    nombreComercial: text(),
    domicilioFiscal: text(),
    ciudad: text(),
    departamento: text(),
    telefono: text(),
    email: text(),
    /** Activity (giro), printed as Emisor/GiroEmis. */
    actividad: text(),
    enabled: boolean().notNull().default(true),
    /** DGI environment the company sends to: 'testing' (homologación) or 'produccion'. */
    ambienteDgi: text({ enum: ['testing', 'produccion'] }).notNull().default('testing'),
    /** Fallback of spec 2.2 rule 5 when neither the branch history nor the branch has a code. */
    codigoCasaDgiPorDefecto: integer(),
    regimenTributario: text({ enum: ['general', 'iva_minimo', 'monotributo', 'monotributo_social', 'exonerado'] }).notNull().default('general'),
    /** Website where receivers verify an e-Ticket (printed legend of the representación impresa). */
    urlVerificacion: text(),
    /** CFE per calendar month; null = unlimited. Enforced by the emission flow. */
    limiteCfeMensual: integer(),
    numeroResolucion: text(),
    fechaResolucion: date({ mode: 'string' }),
    settings: jsonb().$type<CompanySettings>().notNull().default({}),
    /** Soft delete: fiscal records of a company are never destroyed. */
    deletedAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('companies_rut_uq').on(t.rut).where(sql`${t.deletedAt} is null`)],
);

/**
 * Branches (sucursales): identified inside their company by codComercio (spec 1). Contact columns
 * fill the CFE issuer (spec 2.2 rule 3).
 */
export const branches = pgTable(
  'branches',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    codComercio: varchar({ length: 40 }).notNull(),
    nombre: text().notNull(),
    direccion: text(),
    ciudad: text(),
    departamento: text(),
    telefono: text(),
    email: text(),
    /** Sucursal.CodigoCasaDgi: second step of spec 2.2 rule 5. */
    codigoCasaDgi: integer(),
    enabled: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('branches_company_cod_comercio_uq').on(t.companyId, t.codComercio),
    // Target of emission_points' (branch_id, company_id) key: a point cannot sit in another company's branch.
    unique('branches_id_company_uq').on(t.id, t.companyId),
  ],
);

/** History of DGI branch codes (spec 2.2 rule 5): valid from `validFrom` to `validTo`, both inclusive; open end = null. */
export const branchDgiCodes = pgTable(
  'branch_dgi_codes',
  {
    id: serial().primaryKey(),
    /** The branch's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id),
    branchId: integer().notNull().references(() => branches.id, { onDelete: 'cascade' }),
    codigoDgiSucursal: integer().notNull(),
    validFrom: date({ mode: 'string' }).notNull(),
    validTo: date({ mode: 'string' }),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('branch_dgi_codes_branch_from_idx').on(t.branchId, t.validFrom)],
);

/** Emission points (puntos de emisión, terminals): codTerminal is unique within the branch (spec 1). */
export const emissionPoints = pgTable(
  'emission_points',
  {
    id: serial().primaryKey(),
    branchId: integer().notNull(),
    companyId: integer().notNull(),
    codTerminal: varchar({ length: 40 }).notNull(),
    descripcion: text(),
    enabled: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('emission_points_branch_terminal_uq').on(t.branchId, t.codTerminal),
    index('emission_points_company_idx').on(t.companyId),
    foreignKey({ name: 'emission_points_branch_fk', columns: [t.branchId, t.companyId], foreignColumns: [branches.id, branches.companyId] }),
  ],
);

/** Logos for the representación impresa, stored in PostgreSQL (durable, backed up with the data). */
export const companyLogos = pgTable('company_logos', {
  companyId: integer().primaryKey().references(() => companies.id, { onDelete: 'cascade' }),
  contentType: text().notNull(),
  data: bytea().notNull(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const branchLogos = pgTable('branch_logos', {
  branchId: integer().primaryKey().references(() => branches.id, { onDelete: 'cascade' }),
  /** The branch's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
  companyId: integer().notNull().references(() => companies.id),
  contentType: text().notNull(),
  data: bytea().notNull(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Outbound mail settings of a company (issue 7 point 5: CFE e-mails go through the company's SMTP
 * server when it has one, else the service's transport). No row = the service's transport. The
 * password is sealed with the master key (AES-256-GCM, certificates.crypto) and never returned.
 */
export const companyOutboundMail = pgTable('company_outbound_mail', {
  companyId: integer().primaryKey().references(() => companies.id, { onDelete: 'cascade' }),
  smtpHost: text().notNull(),
  smtpPuerto: integer().notNull(),
  /** TLS from the first byte (SMTPS, usually 465); false = plain, upgraded by STARTTLS when offered. */
  smtpSeguro: boolean().notNull(),
  smtpUsuario: text(),
  smtpClaveCifrada: text(),
  remitente: text().notNull(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
