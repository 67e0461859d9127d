/**
 * Read access to stored issued CFEs for other modules (cfe-documents: printed representation,
 * e-mail, ZIP). Kept apart from issued-cfe.service.ts/repository.ts (the emission hot path).
 * Another company's CFE answers 404 CFE_NO_ENCONTRADO, exactly like a missing one.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { companies } from '../companies/companies.tables.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import { getCfeType } from '../emission/index.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import { issuedCfes, type IssuedCfeRow } from './issued-cfe.tables.js';

export type { IssuedCfeRow };

/** `E-Ticket_A-0000123`: the base of the PDF/XML file names of one issued CFE. */
export function issuedCfeFileBase(row: Pick<IssuedCfeRow, 'tipoCfe' | 'serie' | 'numero'>): string {
  return `${getCfeType(row.tipoCfe).name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9-]+/g, '_')}_${row.serie}-${String(row.numero).padStart(7, '0')}`;
}

export function createIssuedCfeReader(db: DbOrTx) {
  async function byId(id: number): Promise<IssuedCfeRow | undefined> {
    const [row] = await db.select().from(issuedCfes).where(eq(issuedCfes.id, id));
    return row;
  }
  return {
    byId,
    /** The CFE if the actor has at least `min` on its company; 404 otherwise (SIN_PERMISO if visible but below `min`). */
    async visible(actor: Actor, id: number, min: CompanyRole = 'lectura'): Promise<IssuedCfeRow> {
      const row = Number.isSafeInteger(id) && id > 0 ? await byId(id) : undefined;
      if (!row) throw E.CFE_NO_ENCONTRADO();
      assertCompanyRole(actor, row.companyId, min, () => E.CFE_NO_ENCONTRADO());
      return row;
    },
    /**
     * The buyer's public lookup (issue 47 point 3): the CFE of the enabled company with this RUT, by
     * type, serie, number and date of issue. The caller checks the security code; no access check here.
     */
    async forBuyer(q: { rut: string; tipoCfe: number; serie: string; numero: number; fechaEmision: string }): Promise<IssuedCfeRow | undefined> {
      const [hit] = await db.select({ cfe: issuedCfes }).from(issuedCfes)
        .innerJoin(companies, eq(companies.id, issuedCfes.companyId))
        .where(and(eq(companies.rut, q.rut), isNull(companies.deletedAt), eq(companies.enabled, true), eq(issuedCfes.tipoCfe, q.tipoCfe),
          eq(issuedCfes.serie, q.serie), eq(issuedCfes.numero, q.numero), eq(issuedCfes.fechaEmision, q.fechaEmision)));
      return hit?.cfe;
    },
  };
}

export type IssuedCfeReader = ReturnType<typeof createIssuedCfeReader>;
