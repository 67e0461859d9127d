/**
 * Currencies and each company's exchange-rate table (spec 2.3 rules 7-8). Emission calls
 * `findRate` first and the central bank (dgi module) only when the company has no rate.
 */
import { Decimal } from 'decimal.js';
import { and, asc, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { CURRENCY_CODES, isKnownCurrency } from './currencies.catalogue.js';
import { currencyErrors as e } from './currencies.errors.js';
import { exchangeRates } from './currencies.tables.js';

export interface RateInput { moneda: string; fecha: string; tipoCambio: string | number }

export function createCurrenciesService(deps: { db: Db }) {
  const { db } = deps;
  return {
    catalogue: () => CURRENCY_CODES,
    isKnownCurrency,

    /** Loads (inserts or replaces) rates; one transaction for the whole batch. */
    async loadRates(actor: Actor, companyId: number, rates: RateInput[]) {
      assertCompanyRole(actor, companyId, 'emisor');
      const rows = rates.map((r) => {
        if (!isKnownCurrency(r.moneda)) throw e.MONEDA_DESCONOCIDA(`La moneda ${r.moneda} no existe en el catálogo.`);
        let rate: Decimal;
        try {
          rate = new Decimal(r.tipoCambio);
        } catch {
          throw e.COTIZACION_INVALIDA();
        }
        if (r.moneda === 'UYU' || !rate.isFinite() || rate.lte(0)) throw e.COTIZACION_INVALIDA();
        return { companyId, moneda: r.moneda, fecha: r.fecha, tipoCambio: rate.toFixed(6), updatedAt: new Date() };
      });
      await db.transaction(async (tx) => {
        for (const row of rows) {
          await tx.insert(exchangeRates).values(row).onConflictDoUpdate({ target: [exchangeRates.companyId, exchangeRates.moneda, exchangeRates.fecha], set: { tipoCambio: row.tipoCambio, updatedAt: row.updatedAt } });
        }
      });
      return { cargadas: rows.length };
    },

    async listRates(actor: Actor, f: { idEmpresa: number; moneda?: string; desde?: string; hasta?: string }, paging: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const conds: SQL[] = [eq(exchangeRates.companyId, f.idEmpresa)];
      if (f.moneda) conds.push(eq(exchangeRates.moneda, f.moneda));
      if (f.desde) conds.push(gte(exchangeRates.fecha, f.desde));
      if (f.hasta) conds.push(lte(exchangeRates.fecha, f.hasta));
      const where = and(...conds);
      const rows = await db.select().from(exchangeRates).where(where).orderBy(desc(exchangeRates.fecha), asc(exchangeRates.moneda)).offset(paging.start).limit(paging.length);
      const [{ total }] = await db.select({ total: count() }).from(exchangeRates).where(where);
      return { data: rows.map((r) => ({ moneda: r.moneda, fecha: r.fecha, tipoCambio: r.tipoCambio })), total };
    },

    /** For emission: the company's rate for that exact date, as a decimal string; undefined if none. */
    async findRate(tx: DbOrTx, companyId: number, moneda: string, fecha: string): Promise<string | undefined> {
      const [row] = await tx.select({ v: exchangeRates.tipoCambio }).from(exchangeRates).where(and(eq(exchangeRates.companyId, companyId), eq(exchangeRates.moneda, moneda), eq(exchangeRates.fecha, sql`${fecha}::date`)));
      return row?.v;
    },
  };
}

export type CurrenciesService = ReturnType<typeof createCurrenciesService>;
