/**
 * The sandbox of the simulated DGI (issue 27 point 2): what DGI's testing environment gives a company
 * to start, over HTTP. A test certificate for the company's RUT (PKCS#12 and its password, from the
 * simulator's CA) and CAE files in DGI's own format (CAE.xsd, signed by the simulator's "DGI"
 * certificate, as DGI signs them: BRIEF 10), whose ranges the simulator then knows, so receipts
 * numbered in them are accepted instead of E09. Only wired in simulator mode (modules/index.ts).
 */
import { addDays, uyToday } from '../../lib/dates.js';
import { readCertificate } from '../../platform/crypto/pki.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { CaeRange, DgiSimulatorControl } from '../dgi/dgi.simulator.js';
import { sandboxErrors } from './dgi-sandbox.errors.js';

export interface SandboxDeps {
  /** The in-process simulator's control. */
  simulator(): Promise<DgiSimulatorControl | undefined>;
  company(actor: Actor, id: number): Promise<{ rut: string; razonSocial: string }>;
  /** cae's rules for a range (type, numbers, dates), so the simulator never signs a CAE importar refuses. */
  assertCaeRules(d: { tipoCfe: number; dNro: number; hNro: number; fa: string; fvd: string }): void;
}

export interface SandboxCaeInput {
  idEmpresa: number;
  tipoCfe: number;
  serie: string;
  desde: number;
  hasta: number;
  fechaVencimiento?: string;
}

export function createDgiSandboxService(deps: SandboxDeps) {
  async function control() {
    const sim = await deps.simulator();
    if (!sim) throw sandboxErrors.SANDBOX_NO_DISPONIBLE();
    return sim;
  }

  return {
    async certificate(actor: Actor, idEmpresa: number) {
      assertCompanyRole(actor, idEmpresa, 'administrador');
      const company = await deps.company(actor, idEmpresa);
      const issued = (await control()).issueCompanyCertificate(company.rut, company.razonSocial);
      // Subject and issuer written as importarCertificado and the certificate list write them (RFC 2253).
      const cert = readCertificate(issued.certificatePem);
      return {
        idEmpresa, rut: company.rut, clave: issued.password, archivo: issued.p12.toString('base64'),
        sujeto: cert.subject, emisor: cert.issuer, vigenciaDesde: cert.notBefore.toISOString(), vigenciaHasta: cert.notAfter.toISOString(),
      };
    },

    async cae(actor: Actor, input: SandboxCaeInput) {
      assertCompanyRole(actor, input.idEmpresa, 'administrador');
      const company = await deps.company(actor, input.idEmpresa);
      const today = uyToday();
      const fechaVencimiento = input.fechaVencimiento ?? addDays(today, 365);
      deps.assertCaeRules({ tipoCfe: input.tipoCfe, dNro: input.desde, hNro: input.hasta, fa: today, fvd: fechaVencimiento });
      const sim = await control();
      const overlap = sim.caes().find((c: CaeRange) => c.rucEmisor === company.rut && c.tipoCfe === String(input.tipoCfe) && c.serie === input.serie && c.desde <= input.hasta && input.desde <= c.hasta);
      if (overlap) {
        const next = Math.max(...sim.caes().filter((c) => c.rucEmisor === company.rut && c.tipoCfe === String(input.tipoCfe) && c.serie === input.serie).map((c) => c.hasta)) + 1;
        throw sandboxErrors.SANDBOX_CAE_SUPERPUESTO(
          `El DGI simulado ya autorizó al RUT ${company.rut} los números ${overlap.desde}-${overlap.hasta} del tipo ${input.tipoCfe} serie ${input.serie} (CAE ${overlap.NA}): pida un rango desde ${next} u otra serie.`,
        );
      }
      const { xml, NA } = sim.issueCae({ rucEmisor: company.rut, tipoCfe: input.tipoCfe, serie: input.serie, desde: input.desde, hasta: input.hasta, fechaVencimiento });
      return { idEmpresa: input.idEmpresa, xml, numeroCae: NA, tipoCfe: input.tipoCfe, serie: input.serie, desde: input.desde, hasta: input.hasta, fechaVencimiento };
    },
  };
}

export type DgiSandboxService = ReturnType<typeof createDgiSandboxService>;
