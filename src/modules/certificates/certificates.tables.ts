import { sql } from 'drizzle-orm';
import { boolean, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';
import type { TrustWarning } from './certificates.trust.js';

/**
 * Signing certificates of a company (BRIEF 3). The private key is stored only as AES-256-GCM
 * ciphertext under the master key; at most one certificate per company is active.
 */
export const companyCertificates = pgTable(
  'company_certificates',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    subject: text().notNull(),
    issuer: text().notNull(),
    /** Decimal, as X509SerialNumber requires. */
    serialNumber: text().notNull(),
    notBefore: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    notAfter: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    fingerprint256: text().notNull(),
    certificatePem: text().notNull(),
    chainPem: text().notNull().default(''),
    /** base64(iv).base64(tag).base64(ciphertext of the PKCS#8 PEM). */
    encryptedKey: text().notNull(),
    isActive: boolean().notNull().default(false),
    /** Trust findings at import (certificates.trust.ts): stored in simulator mode, where they do not refuse it. */
    trustWarnings: jsonb().$type<TrustWarning[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('company_certificates_fp_uq').on(t.companyId, t.fingerprint256),
    uniqueIndex('company_certificates_active_uq').on(t.companyId).where(sql`${t.isActive}`),
  ],
);
