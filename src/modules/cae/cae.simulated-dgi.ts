/**
 * In DGI_MODE=simulator the simulated DGI must know every CAE range the company uses: it answers
 * E09 for a range it did not authorize, as DGI does (issue 27 point 2). Ranges it signed itself
 * (the sandbox) it knows already; one typed in with importar-manual, or a file from elsewhere (a DGI
 * sample), it learns at import through this port, wired in modules/index.ts.
 */
import type { CaeData } from './cae.xml.js';
import type { CaeRangeView } from './cae.view.js';

export interface SimulatedDgiRange {
  rucEmisor: string;
  tipoCfe: number;
  serie: string;
  desde: number;
  hasta: number;
  fechaVencimiento: string;
  NA: string;
}

/** Registers the range; returns a warning for the import's answer when the simulated DGI cannot know it. */
export type RegisterWithSimulatedDgi = (range: SimulatedDgiRange) => Promise<string | undefined>;

/** The import's answer: the stored range, plus `advertencias` when the simulated DGI will reject its receipts. */
export async function withSimulatedDgi(register: RegisterWithSimulatedDgi | undefined, view: CaeRangeView, data: CaeData): Promise<CaeRangeView & { advertencias?: string[] }> {
  if (!register) return view;
  const warning = await register({ rucEmisor: data.rucE, tipoCfe: data.tipoCfe, serie: data.serie, desde: data.dNro, hasta: data.hNro, fechaVencimiento: data.fvd, NA: data.na });
  return warning ? { ...view, advertencias: [warning] } : view;
}
