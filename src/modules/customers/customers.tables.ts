import { boolean, index, integer, pgTable, serial, smallint, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';

/** Customers (clientes) of a company: the DGI receiver block (CFEType.xsd Receptor). */
export const customers = pgTable(
  'customers',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    /** TipoDocRecep: 2 RUT, 3 CI, 4 otros, 5 pasaporte, 6 DNI, 7 NIFE. */
    tipoDocumento: smallint().notNull(),
    codPais: varchar({ length: 2 }).notNull(),
    documento: varchar({ length: 20 }).notNull(),
    razonSocial: varchar({ length: 150 }).notNull(),
    direccion: varchar({ length: 70 }),
    ciudad: varchar({ length: 30 }),
    departamento: varchar({ length: 30 }),
    pais: varchar({ length: 30 }),
    codigoPostal: varchar({ length: 10 }),
    email: text(),
    /** The customer is a DGI electronic issuer: its CFEs go to it in EnvioCFE_entreEmpresas (BRIEF 8). */
    emisorElectronico: boolean().notNull().default(false),
    /** Address for the CFE exchange (DGI's MAIL of EFACCONSULTARRUCEMISORES); falls back to `email`. */
    emailIntercambio: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('customers_document_uq').on(t.companyId, t.codPais, t.tipoDocumento, t.documento),
    index('customers_document_idx').on(t.companyId, t.documento),
  ],
);
