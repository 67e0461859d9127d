/** Front door of the cfe-documents module: printed representation, preview, e-mail, ZIP (issue 7). */
import { z } from 'zod';
import type { Db } from '../../platform/db/client.js';
import { defineJob, handleJob } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mailer.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { OutboundMailService } from '../companies/outbound-mail.service.js';
import type { CustomersService } from '../customers/customers.service.js';
import { createIssuedCfeReader } from '../issued-cfe/issued-cfe.read.js';
import { iterateIssuedCfes } from '../issued-cfe/issued-cfe.search.js';
import type { IssuedCfeService } from '../issued-cfe/issued-cfe.service.js';
import { cfeDocumentsJobHandlers, createCfeMailService } from './cfe-documents.mail.js';
import type { CfeDocumentsPorts } from './cfe-documents.ports.js';
import { cfeDocumentsRoutes } from './cfe-documents.routes.js';
import { createCfeDocumentsService } from './cfe-documents.service.js';
import { createBuyerLookup } from './buyer-lookup.service.js';
import { buyerLookupRoutes } from './buyer-lookup.routes.js';

// graphile-worker crontab task identifiers allow no dots: [_a-zA-Z][_a-zA-Z0-9:/_-]*.
export const purgePreviewsJob = defineJob({ name: 'cfeDocuments_purgePreviews', payload: z.object({}).passthrough(), maxAttempts: 1 });

/** graphile-worker crontab lines of this module. */
export const CFE_DOCUMENTS_CRON = [`*/15 * * * * ${purgePreviewsJob.name}`];

export interface CfeDocumentsDeps {
  db: Db;
  mailer: Mailer;
  companies: CompaniesService;
  outboundMail: Pick<OutboundMailService, 'transportOf'>;
  customers: CustomersService;
  issuedCfe: IssuedCfeService;
  /** PUBLIC_URL: the buyers' lookup address printed on receipts is `<publicUrl>/consulta/<rut>`; unset = not printed. */
  publicUrl?: string;
  publicLookupRateLimitPerMinute: number;
}

export function cfeDocumentsPorts(deps: CfeDocumentsDeps): CfeDocumentsPorts {
  const { db } = deps;
  return {
    issued: createIssuedCfeReader(db),
    async printingProfile(companyId, branchId) {
      const profile = await deps.companies.printingProfile(companyId, branchId);
      const rut = profile && deps.publicUrl ? await deps.companies.rutOf(companyId) : undefined;
      // The legend prints a host/path (BRIEF 4 style); on e-Tickets it is also the verification site when the company set none.
      const urlConsulta = rut ? `${deps.publicUrl!.replace(/^https?:\/\//, '').replace(/\/$/, '')}/consulta/${rut}` : undefined;
      const enlaceConsulta = rut ? `${deps.publicUrl!.replace(/\/$/, '')}/consulta/${rut}` : undefined;
      return profile && { ...profile, urlConsulta, enlaceConsulta, urlVerificacion: profile.urlVerificacion ?? urlConsulta };
    },
    companyTransport: deps.outboundMail.transportOf,
    customerEmail: async (companyId, id) => (await deps.customers.findForCompany(db, companyId, id))?.email ?? undefined,
    async prepareDraft(body) {
      const p = await deps.issuedCfe.prepare(body);
      return { cfe: p.draft, branchId: p.branchId };
    },
    iterateWithXml: (companyId, filters, sort) => iterateIssuedCfes(db, companyId, filters, sort, { withXml: true, chunkSize: 200 }),
  };
}

export function createCfeDocumentsModule(deps: CfeDocumentsDeps) {
  const ports = cfeDocumentsPorts(deps);
  const service = createCfeDocumentsService({ db: deps.db, ports });
  const mail = createCfeMailService({ db: deps.db, ports, mailer: deps.mailer });
  return {
    service,
    mail,
    routes: cfeDocumentsRoutes(service, mail),
    /** The buyers' public lookup (issue 47 point 3): no authentication, rate-limited. */
    buyerRoutes: buyerLookupRoutes(createBuyerLookup({ ports }), { rateLimitPerMinute: deps.publicLookupRateLimitPerMinute }),
    jobs: [
      ...cfeDocumentsJobHandlers(mail),
      handleJob(purgePreviewsJob, async (_payload, ctx) => {
        const n = await service.purgePreviews();
        if (n) ctx.logger.info({ purged: n }, 'expired CFE previews purged');
      }),
    ],
    cron: CFE_DOCUMENTS_CRON,
  };
}

export type CfeDocumentsModule = ReturnType<typeof createCfeDocumentsModule>;
