/**
 * Customers (clientes) of a company: the receiver of a CFE. Emission uses `findForCompany`
 * (spec 2.3 rule 3: idCliente must belong to the same company) and `findByDocument`.
 */
import { and, asc, count, eq, ilike, inArray, or, type SQL, type SQLWrapper } from 'drizzle-orm';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db, type DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { receiverDocumentProblem } from '../../lib/receiver-document.js';
import { customerErrors as e } from './customers.errors.js';
import { customers } from './customers.tables.js';
import { companyOfIds } from '../../platform/db/company-of.js';

type Row = typeof customers.$inferSelect;
const view = (r: Row) => ({
  id: r.id, idEmpresa: r.companyId, tipoDocumento: r.tipoDocumento, codPais: r.codPais, documento: r.documento, razonSocial: r.razonSocial,
  direccion: r.direccion, ciudad: r.ciudad, departamento: r.departamento, pais: r.pais, codigoPostal: r.codigoPostal, email: r.email,
  emisorElectronico: r.emisorElectronico, emailIntercambio: r.emailIntercambio,
});

/** Same rule as emission (BRIEF 1): a customer that passes it never fails as a CFE receiver. */
function checkDocument(d: { tipoDocumento: number; codPais: string; documento: string }): void {
  const problem = receiverDocumentProblem(d.tipoDocumento, d.codPais, d.documento);
  if (problem) throw e.CLIENTE_DOCUMENTO_INVALIDO(problem);
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw e.CLIENTE_DUPLICADO();
    throw err;
  }
}

/**
 * DGI's registry of electronic issuers (issuer-registry module): which RUCs are issuers today, and
 * their exchange address (BRIEF 8: the registry's MAIL).
 */
export interface IssuerRegistryPort {
  activeRucs(tx: DbOrTx): SQLWrapper;
  entries(tx: DbOrTx, rucs: string[]): Promise<Map<string, { mail: string | null }>>;
}

const RUT = 2;

export function createCustomersService(deps: { db: Db; registry?: IssuerRegistryPort }) {
  const { db } = deps;
  async function visible(actor: Actor, id: number, role: 'lectura' | 'emisor') {
    const [row] = await db.select().from(customers).where(eq(customers.id, id));
    if (!row) throw e.CLIENTE_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, role, () => e.CLIENTE_NO_ENCONTRADO());
    return row;
  }
  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOf: (ids: readonly number[]) => companyOfIds(db, customers, ids),
    async create(actor: Actor, input: { idEmpresa: number } & Omit<typeof customers.$inferInsert, 'companyId'>) {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      checkDocument(input);
      const { idEmpresa, ...values } = input;
      return guard(async () => view((await db.insert(customers).values({ ...values, companyId: idEmpresa }).returning())[0]));
    },
    async edit(actor: Actor, input: { idCliente: number } & Partial<Omit<typeof customers.$inferInsert, 'companyId'>>) {
      const row = await visible(actor, input.idCliente, 'emisor');
      // Rows stored before the check can still be edited; changing any document field checks the result.
      if (input.tipoDocumento !== undefined || input.codPais !== undefined || input.documento !== undefined) {
        checkDocument({ tipoDocumento: input.tipoDocumento ?? row.tipoDocumento, codPais: input.codPais ?? row.codPais, documento: input.documento ?? row.documento });
      }
      const { idCliente, ...values } = input;
      return guard(async () => view((await db.update(customers).set({ ...values, updatedAt: new Date() }).where(eq(customers.id, idCliente)).returning())[0]));
    },
    get: async (actor: Actor, id: number) => view(await visible(actor, id, 'lectura')),
    async list(actor: Actor, f: { idEmpresa: number; q?: string }, paging: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const conds: SQL[] = [eq(customers.companyId, f.idEmpresa)];
      if (f.q) conds.push(or(ilike(customers.razonSocial, `%${f.q}%`), ilike(customers.documento, `%${f.q}%`))!);
      const where = and(...conds);
      const rows = await db.select().from(customers).where(where).orderBy(asc(customers.razonSocial), asc(customers.id)).offset(paging.start).limit(paging.length);
      const [{ total }] = await db.select({ total: count() }).from(customers).where(where);
      return { data: rows.map(view), total };
    },
    async searchByDocument(actor: Actor, companyId: number, documento: string, codPais?: string) {
      assertCompanyRole(actor, companyId, 'lectura');
      return (await this.findByDocument(db, companyId, documento, codPais)).map(view);
    },
    /** For emission: the customer only if it belongs to the company. */
    async findForCompany(tx: DbOrTx, companyId: number, id: number) {
      const [row] = await tx.select().from(customers).where(and(eq(customers.id, id), eq(customers.companyId, companyId)));
      return row;
    },
    /** For emission (spec 2.3 rule 3): customers of the company with that document. */
    findByDocument(tx: DbOrTx, companyId: number, documento: string, codPais?: string) {
      const conds = [eq(customers.companyId, companyId), eq(customers.documento, documento.trim())];
      if (codPais) conds.push(eq(customers.codPais, codPais));
      return tx.select().from(customers).where(and(...conds)).orderBy(asc(customers.id));
    },
    /**
     * For the CFE exchange between companies (BRIEF 8): customers that are electronic issuers, with
     * the address to use. A customer is one when DGI's registry lists its RUT as an issuer today,
     * or when it is flagged `emisorElectronico` (the override for a registry not synced yet). The
     * address: the customer's `emailIntercambio`, else the registry's MAIL, else its `email`.
     */
    async electronicReceivers(tx: DbOrTx, companyId?: number) {
      const registry = deps.registry;
      const issuer = registry
        ? or(eq(customers.emisorElectronico, true), and(eq(customers.tipoDocumento, RUT), inArray(customers.documento, registry.activeRucs(tx))))!
        : eq(customers.emisorElectronico, true);
      const conds = [issuer];
      if (companyId !== undefined) conds.push(eq(customers.companyId, companyId));
      const rows = await tx.select().from(customers).where(and(...conds)).orderBy(asc(customers.id));
      const entries = registry ? await registry.entries(tx, rows.filter((r) => r.tipoDocumento === RUT && !r.emailIntercambio).map((r) => r.documento)) : new Map<string, { mail: string | null }>();
      return rows.map((r) => ({
        id: r.id, companyId: r.companyId, tipoDocumento: r.tipoDocumento, documento: r.documento, razonSocial: r.razonSocial,
        email: r.emailIntercambio ?? (r.tipoDocumento === RUT ? entries.get(r.documento)?.mail : null) ?? r.email,
      }));
    },
  };
}

export type CustomersService = ReturnType<typeof createCustomersService>;
