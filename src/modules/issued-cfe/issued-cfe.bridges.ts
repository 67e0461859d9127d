/**
 * TEMPORARY read-only bridges to master data whose services (issue 4: customers, products,
 * currencies) had not landed when emission was wired. They read those modules' tables and nothing
 * else; replace each with the owning service's function as soon as it exists (STYLE 5.3).
 */
import { readFileSync } from 'node:fs';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import { DGI_XSD_DIR } from '../../platform/xml/xsd.js';
import { customers } from '../customers/customers.tables.js';
import { exchangeRates } from '../currencies/currencies.tables.js';
import { products, productVariants } from '../products/products.tables.js';
import type { VariantRule } from './issued-cfe.rules.js';
import type { CustomerRecord } from './issued-cfe.ports.js';

/** DGI's TpoMoneda enumeration (DGITypes.xsd TipMonType): ISO 4217 plus UYI/UYR (BRIEF 2.4). */
function xsdCurrencies(): Set<string> {
  const xsd = readFileSync(`${DGI_XSD_DIR}DGITypes.xsd`, 'utf8');
  const start = xsd.indexOf('name="TipMonType"');
  const block = xsd.slice(start, xsd.indexOf('</xs:simpleType>', start));
  return new Set([...block.matchAll(/enumeration value="([A-Z]{3})"/g)].map((m) => m[1]));
}

export function createMasterDataBridges(db: Db) {
  const currencies = xsdCurrencies();
  return {
    async customerById(companyId: number, id: number): Promise<CustomerRecord | undefined> {
      const [row] = await db.select().from(customers).where(and(eq(customers.id, id), eq(customers.companyId, companyId)));
      return row;
    },
    async customerByDocument(companyId: number, documento: string): Promise<CustomerRecord | undefined> {
      const [row] = await db.select().from(customers).where(and(eq(customers.companyId, companyId), eq(customers.documento, documento))).limit(1);
      return row;
    },
    async variants(companyId: number, ids: number[]): Promise<Map<number, VariantRule>> {
      const rows = await db
        .select({ id: productVariants.id, requiresLot: products.requiresLot, requiresSerial: products.requiresSerial })
        .from(productVariants)
        .innerJoin(products, eq(products.id, productVariants.productId))
        .where(and(eq(productVariants.companyId, companyId), inArray(productVariants.id, ids)));
      return new Map(rows.map((r) => [r.id, r]));
    },
    currencyExists: async (code: string) => currencies.has(code),
    async companyRate(companyId: number, currency: string, fecha: string): Promise<string | undefined> {
      const [row] = await db.select({ v: exchangeRates.tipoCambio }).from(exchangeRates)
        .where(and(eq(exchangeRates.companyId, companyId), eq(exchangeRates.moneda, currency), eq(exchangeRates.fecha, fecha)));
      return row?.v;
    },
  };
}
