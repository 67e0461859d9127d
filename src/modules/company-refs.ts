/**
 * Where each kind of company-owned id is resolved (issue 28 point 5): the owning module's service
 * and the answer for an id that does not exist. Used by platform/http/company-refs.ts for every
 * field declared with `companyRef(…)`.
 */
import type { CompanyRefResolvers } from '../platform/http/company-refs.js';
import { caeErrors } from './cae/cae.errors.js';
import type { CaeService } from './cae/cae.service.js';
import { certificateErrors } from './certificates/certificates.errors.js';
import type { CertificatesService } from './certificates/certificates.service.js';
import { companyErrors } from './companies/companies.errors.js';
import type { CompaniesService } from './companies/companies.service.js';
import { customerErrors } from './customers/customers.errors.js';
import type { CustomersService } from './customers/customers.service.js';
import { issuedCfeErrors } from './issued-cfe/issued-cfe.errors.js';
import type { IssuedCfeService } from './issued-cfe/issued-cfe.service.js';
import { priceBookErrors } from './price-books/price-books.errors.js';
import type { PriceBooksService } from './price-books/price-books.service.js';
import { productErrors } from './products/products.errors.js';
import type { ProductsService } from './products/products.service.js';
import { recurringErrors } from './recurring/recurring.errors.js';
import type { RecurringService } from './recurring/recurring.service.js';
import { salesOrderErrors } from './sales-orders/sales-orders.errors.js';
import type { SalesOrdersService } from './sales-orders/sales-orders.service.js';

export function companyRefResolvers(s: {
  customers: CustomersService; products: ProductsService; companies: CompaniesService; cae: CaeService;
  certificates: CertificatesService; issuedCfe: IssuedCfeService; salesOrders: SalesOrdersService; priceBooks: PriceBooksService;
  recurring: RecurringService;
}): CompanyRefResolvers {
  return {
    cliente: { companyOf: s.customers.companyOf, notFound: () => customerErrors.CLIENTE_NO_ENCONTRADO() },
    producto: { companyOf: s.products.companyOfProducts, notFound: () => productErrors.PRODUCTO_NO_ENCONTRADO() },
    variante: { companyOf: s.products.companyOfVariants, notFound: () => productErrors.VARIANTE_NO_ENCONTRADA() },
    lote: { companyOf: s.products.companyOfLots, notFound: () => productErrors.LOTE_INVALIDO() },
    sucursal: { companyOf: s.companies.companyOfBranches, notFound: () => companyErrors.SUCURSAL_NO_ENCONTRADA() },
    puntoEmision: { companyOf: s.companies.companyOfEmissionPoints, notFound: () => companyErrors.PUNTO_EMISION_NO_ENCONTRADO() },
    cae: { companyOf: s.cae.companyOfRanges, notFound: () => caeErrors.CAE_NO_ENCONTRADO() },
    cfc: { companyOf: s.cae.companyOfCfcRanges, notFound: () => caeErrors.CFC_NO_ENCONTRADO() },
    certificado: { companyOf: s.certificates.companyOf, notFound: () => certificateErrors.CERTIFICADO_NO_ENCONTRADO() },
    cfe: { companyOf: s.issuedCfe.companyOf, notFound: () => issuedCfeErrors.CFE_NO_ENCONTRADO() },
    ordenVenta: { companyOf: s.salesOrders.companyOf, notFound: () => salesOrderErrors.ORDEN_NO_ENCONTRADA() },
    // A price book version pinned by a contract (issue 34): declared here for the contracts body.
    versionListaPrecios: { companyOf: s.priceBooks.companyOf, notFound: () => priceBookErrors.LISTA_PRECIOS_NO_ENCONTRADA() },
    planRecurrente: { companyOf: s.recurring.companyOf, notFound: () => recurringErrors.PLAN_NO_ENCONTRADO() },
  };
}
