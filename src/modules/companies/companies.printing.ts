/**
 * What the printed representation needs from the company (BRIEF 4): the logo (the branch's, else
 * the company's; PNG/JPEG only, the PDF renderer cannot embed SVG), the e-Ticket verification
 * website, the DGI resolution, and the address that receives a copy of mailed CFEs. No access
 * check: callers (cfe-documents) have already checked the caller's role on the CFE's company.
 */
import type { DbOrTx } from '../../platform/db/client.js';
import { findBranchLogo } from './branches.repository.js';
import { findCompany, findCompanyLogo } from './companies.repository.js';

export interface PrintingProfile {
  razonSocial: string;
  email?: string;
  urlVerificacion?: string;
  resolucion?: { numero: string; fecha: string };
  logo?: Buffer;
  emailCopiaCfe?: string;
  /** The buyers' public lookup page of this company (cfe-documents, issue 47), printed on every CFE. */
  urlConsulta?: string;
  /** The same page as a full URL (with scheme), for links in mails. */
  enlaceConsulta?: string;
}

const PRINTABLE_LOGO = new Set(['image/png', 'image/jpeg']);

export function createPrintingProfiles(db: DbOrTx) {
  return async function printingProfile(companyId: number, branchId?: number): Promise<PrintingProfile | undefined> {
    const [company, branchLogo, companyLogo] = await Promise.all([
      findCompany(db, companyId),
      branchId ? findBranchLogo(db, branchId) : undefined,
      findCompanyLogo(db, companyId),
    ]);
    if (!company) return undefined;
    const logo = [branchLogo, companyLogo].find((l) => l && PRINTABLE_LOGO.has(l.contentType));
    const settings = company.settings as { emailCopiaCfe?: string };
    return {
      razonSocial: company.razonSocial,
      email: company.email ?? undefined,
      // The legend prints a host/path, not a scheme (BRIEF 4: "Puede verificar comprobante en www…").
      urlVerificacion: company.urlVerificacion?.replace(/^https?:\/\//, '').replace(/\/$/, '') || undefined,
      // The renderer prints "Res. <numero>/<year>": a number stored as "123/2024" keeps only "123".
      resolucion: company.numeroResolucion && company.fechaResolucion ? { numero: company.numeroResolucion.split('/')[0].trim(), fecha: company.fechaResolucion } : undefined,
      logo: logo?.data,
      emailCopiaCfe: settings.emailCopiaCfe,
    };
  };
}

export type PrintingProfiles = ReturnType<typeof createPrintingProfiles>;
