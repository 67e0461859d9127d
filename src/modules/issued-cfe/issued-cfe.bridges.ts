/**
 * TEMPORARY read-only bridge to the products tables (variants' traceability flags). Customers and
 * currencies now come from their services (issued-cfe/index.ts); replace this one with
 * `products.checkLines` (STYLE 5.3: no module reads another module's tables).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import { products, productVariants } from '../products/products.tables.js';
import type { VariantRule } from './issued-cfe.rules.js';

export function createMasterDataBridges(db: Db) {
  return {
    async variants(companyId: number, ids: number[]): Promise<Map<number, VariantRule>> {
      const rows = await db
        .select({ id: productVariants.id, requiresLot: products.requiresLot, requiresSerial: products.requiresSerial })
        .from(productVariants)
        .innerJoin(products, eq(products.id, productVariants.productId))
        .where(and(eq(productVariants.companyId, companyId), inArray(productVariants.id, ids)));
      return new Map(rows.map((r) => [r.id, r]));
    },
  };
}
