/**
 * Front door of the DGI testing-set module (issue 47): wires the service's ports to the modules it
 * drives (companies, certificates, CAE, emission, DGI submission, daily report), acting as the system.
 */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { Actor } from '../../platform/http/actor.js';
import type { CaeService } from '../cae/cae.service.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { DailyReportService } from '../daily-report/daily-report.service.js';
import type { DgiSubmissionModule } from '../dgi-submission/index.js';
import type { IssuedCfeService } from '../issued-cfe/issued-cfe.service.js';
import type { Lookups } from '../lookups/lookups.service.js';
import { dgiVerdictsOf } from '../issued-cfe/issued-cfe.handoff.js';
import { createDgiTestingService } from './dgi-testing.service.js';
import { dgiTestingJobHandlers } from './dgi-testing.jobs.js';
import { dgiTestingRoutes } from './dgi-testing.routes.js';

const PAGE = { start: 0, length: 500 };

export function createDgiTestingModule(deps: {
  db: Db; config: AppConfig; system: Actor; companies: CompaniesService; certificates: CertificatesService; cae: CaeService;
  issuedCfe: IssuedCfeService; lookups: Lookups; dgiSubmission: DgiSubmissionModule['service']; dailyReport: DailyReportService;
}) {
  const { db, system } = deps;
  const service = createDgiTestingService({
    db,
    destino: deps.config.dgi.mode === 'real' ? 'dgi_testing' : 'simulador',
    ports: {
      company: async (id) => {
        const c = await deps.companies.get(system, id).catch(() => undefined);
        return c ? { id, rut: c.rut, razonSocial: c.razonSocial } : undefined;
      },
      async emissionPoint(companyId) {
        const branches = (await deps.companies.branches.list(system, { idEmpresa: companyId, habilitada: true }, PAGE)).data;
        const points = (await deps.companies.points.list(system, { idEmpresa: companyId, habilitada: true }, PAGE)).data;
        for (const b of branches) {
          const p = points.find((x) => x.idSucursal === b.id);
          if (p) return { codComercio: b.codComercio, codTerminal: p.codTerminal, direccion: b.direccion, ciudad: b.ciudad, departamento: b.departamento, codigoCasaDgi: b.CodigoCasaDgi };
        }
        return undefined;
      },
      async certificate(companyId) {
        const active = (await deps.certificates.list(system, companyId)).find((c) => c.activo);
        return active ? { vigente: active.vigente, validoHasta: active.validoHasta, sujeto: active.sujeto } : undefined;
      },
      async caeAvailable(companyId) {
        const out = new Map<number, number>();
        for (const a of await deps.cae.availability(system, companyId)) out.set(a.tipoCfe, (out.get(a.tipoCfe) ?? 0) + a.numerosDisponibles);
        return out;
      },
      envioIndividual: async (companyId) => (await deps.dgiSubmission.getSettings(companyId)).envioIndividual,
      // The dry run asks DGI itself about the RUT only against DGI (the simulator knows few RUTs).
      rutLookup: deps.config.dgi.mode === 'real'
        ? async (companyId, rut) => {
          const ctx = await deps.certificates.signingContextOf(companyId);
          if (!ctx) throw new Error('sin certificado activo para firmar la consulta');
          return deps.lookups.lookupRut(companyId, ctx, rut);
        }
        : undefined,
      async issue(body) {
        const { view } = await deps.issuedCfe.emit(body);
        return { id: view.id, tipoCfe: view.tipoCfe, serie: view.serie, numero: view.numero, fechaEmision: view.fechaEmision, moneda: view.moneda, tipoCambio: view.tipoCambio, receptor: view.receptor as Record<string, unknown> | null };
      },
      verdicts: (ids) => dgiVerdictsOf(db, ids),
      async dailyReport(companyId, fecha) {
        let row = await deps.dailyReport.generate(companyId, fecha, 'manual', undefined, { today: true });
        // Sent here and followed to DGI's answer; transport failures are retried a few times.
        for (let attempt = 0; attempt < 5; attempt++) {
          row = (await deps.dailyReport.send(row.id).catch(() => undefined)) ?? row;
          if (row.estado !== 'pendiente' && row.estado !== 'enviando') break;
          await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
        }
        const motivos = (row.motivos ?? []) as Array<{ codigo: string; glosa?: string | null; detalle?: string | null }>;
        return { id: row.id, fecha: row.fechaResumen, secEnvio: row.secEnvio, estado: row.estado, ackEstado: row.ackEstado, motivos };
      },
    },
  });
  return { service, routes: dgiTestingRoutes(service), jobs: dgiTestingJobHandlers((id, opts) => service.execute(id, opts)) };
}
