/**
 * What this module needs from the others (STYLE 5.3: their services, wired in modules/index.ts).
 * Interfaces so the bench can pass fakes.
 */
import type { Cfe } from '../emission/index.js';
import type { PrintingProfile } from '../companies/companies.printing.js';
import type { IssuedCfeReader } from '../issued-cfe/issued-cfe.read.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import type { SearchFilters, Sort, IssuedCfeSummary } from '../issued-cfe/issued-cfe.search.js';

export interface CfeDocumentsPorts {
  issued: IssuedCfeReader;
  printingProfile(companyId: number, branchId?: number): Promise<PrintingProfile | undefined>;
  /** The company's own SMTP transport (companies outbound mail settings); undefined = the service's. */
  companyTransport(companyId: number): Promise<{ smtpUrl: string; from: string } | undefined>;
  /** E-mail of the receiver's customer record, when the CFE names one. */
  customerEmail(companyId: number, customerId: number): Promise<string | undefined>;
  /**
   * emitir's preparation without numbering, signing or storing (issued-cfe `prepare`): the draft CFE
   * after validation, issuer/receiver resolution and totals. Throws emitir's own 4xx errors.
   */
  prepareDraft(body: IssueCfeBody): Promise<{ cfe: Cfe; branchId?: number }>;
  /** Every issued CFE of the company matching the search filters, with its signed XML (keyset-paged). */
  iterateWithXml(companyId: number, filters: SearchFilters, sort: Sort): AsyncIterable<IssuedCfeSummary>;
}
