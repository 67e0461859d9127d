/**
 * `ops_operator_checks` (crontab, daily 11:05 UTC = 08:05 in Uruguay): the states an operator must
 * act on before they stop emission, logged even on a day nothing is issued (issue 44 point 7). The
 * emission path logs the same conditions as they happen (cae.service.ts, certificates.service.ts);
 * this catches the quiet companies. Read-only queries over the CAE and certificate tables, like
 * metrics.repository.ts. One warn line per company and case, the company in the message.
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../platform/db/client.js';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';

export const operatorChecksJob = defineJob({ name: 'ops_operator_checks', payload: z.object({}).passthrough() });
export const operatorChecksCrontab = [`5 11 * * * ${operatorChecksJob.name} ?max=1&jobKey=${operatorChecksJob.name}`];

/** Same window as the certificates' `porVencer` flag. */
const CERT_WARNING_DAYS = 30;

type Row = Record<string, unknown>;

export function operatorCheckHandlers(db: Db): JobHandler[] {
  return [
    handleJob(operatorChecksJob, async (_payload, ctx) => {
      const certs = (await db.execute(sql`
        select company_id, id, not_after, ceil(extract(epoch from not_after - now()) / 86400)::int as days
          from company_certificates
         where is_active and not_after < now() + make_interval(days => ${CERT_WARNING_DAYS})`)).rows as Row[];
      for (const c of certs) {
        const days = Number(c.days);
        ctx.logger.warn({ companyId: Number(c.company_id), certificateId: Number(c.id), venceEnDias: days }, days > 0
          ? `signing certificate of company ${c.company_id} expires in ${days} days; import and activate its renewal`
          : `signing certificate of company ${c.company_id} has expired; it cannot sign until a new one is imported`);
      }
      // Per company and CFE type, the numbers left in usable ranges (not annulled, not expired)
      // against max(10, 10 % of those ranges' size), as cae.service.ts warns when one range crosses it.
      const cae = (await db.execute(sql`
        select company_id, tipo_cfe, sum(h_nro - next_number + 1)::int as remaining, sum(h_nro - d_nro + 1)::int as size
          from cae_ranges
         where annulled_at is null and fvd >= (now() at time zone 'America/Montevideo')::date
         group by company_id, tipo_cfe
        having sum(h_nro - next_number + 1) <= greatest(10, sum(h_nro - d_nro + 1) / 10)`)).rows as Row[];
      for (const r of cae) {
        const remaining = Number(r.remaining);
        ctx.logger.warn({ companyId: Number(r.company_id), tipoCfe: Number(r.tipo_cfe), remaining }, remaining > 0
          ? `CAE running out: company ${r.company_id} type ${r.tipo_cfe} has ${remaining} numbers left; import the next one`
          : `CAE exhausted: company ${r.company_id} cannot issue type ${r.tipo_cfe} (no CAE with numbers left); import one`);
      }
      ctx.logger.info({ certificates: certs.length, caeTypes: cae.length }, 'operator checks done');
    }),
  ];
}
