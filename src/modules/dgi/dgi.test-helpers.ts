/**
 * Test-only builders: small signed CFEs, envelopes and reports, until the emission library's
 * builders can be used here. The CFE is DGI's own sample e-Ticket (fixtures/Sob_…_Ej_Mod_19072016.xml)
 * with issuer and numbering replaced, re-signed as a standalone document (BRIEF §3).
 */
import { readFileSync } from 'node:fs';
import { pemToBase64, signEnveloped } from './simulator/xmldsig.ts';
import { uyDate, uyDateTime } from './simulator/efactura-service.ts';

export interface Signer {
  privateKeyPem: string;
  certificatePem: string;
}

const SAMPLE = readFileSync(new URL('./fixtures/Sob_219999830019_Ej_Mod_19072016.xml', import.meta.url)).toString('latin1');
const SAMPLE_TICKET = (/<ns0:CFE [\s\S]*?<\/ns0:CFE>/.exec(SAMPLE) ?? [''])[0].replace(
  /<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">[\s\S]*<\/Signature>/,
  '',
);

/** DGI's sample contingency e-Remito (TipoCFE 281, serie XA): a CFC, so DGI can only observe it. */
const SAMPLE_CFC = ([...SAMPLE.matchAll(/<ns0:CFE [\s\S]*?<\/ns0:CFE>/g)].map((m) => m[0]).find((c) => c.includes('<ns0:TipoCFE>281<')) ?? '').replace(
  /<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">[\s\S]*<\/Signature>/,
  '',
);

const setTag = (xml: string, tag: string, value: string) =>
  xml.replace(new RegExp(`(<ns0:${tag}>)[^<]*(</ns0:${tag}>)`), `$1${value}$2`);

/** A signed e-Ticket (TipoCFE 101 unless overridden) for `rucEmisor`, serie and number. */
export function signedTicket(signer: Signer, cfe: { rucEmisor: string; serie: string; nro: number; tipoCFE?: number }): string {
  let xml = SAMPLE_TICKET;
  xml = setTag(xml, 'RUCEmisor', cfe.rucEmisor);
  xml = setTag(xml, 'TipoCFE', String(cfe.tipoCFE ?? 101));
  xml = setTag(xml, 'Serie', cfe.serie);
  xml = setTag(xml, 'Nro', String(cfe.nro));
  xml = setTag(xml, 'TmstFirma', uyDateTime(Date.now() - 60_000));
  return signEnveloped(xml, signer.privateKeyPem, signer.certificatePem, 'sha256');
}

/** The sample 281 CFC for `rucEmisor`, signed. */
export function signedCfc(signer: Signer, rucEmisor: string): string {
  return signEnveloped(setTag(SAMPLE_CFC, 'RUCEmisor', rucEmisor), signer.privateKeyPem, signer.certificatePem, 'sha256');
}

/** EnvioCFE to DGI (FSOB v05): signed CFEs embedded verbatim after the Caratula. */
export function envelope(
  signer: Signer,
  opts: { rucEmisor: string; idEmisor: number; cfes: string[]; cantCfe?: number; rutReceptor?: string },
): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><DGICFE:EnvioCFE xmlns:DGICFE="http://cfe.dgi.gub.uy" version="1.0">` +
    `<DGICFE:Caratula version="1.0"><DGICFE:RutReceptor>${opts.rutReceptor ?? '219999830019'}</DGICFE:RutReceptor>` +
    `<DGICFE:RUCEmisor>${opts.rucEmisor}</DGICFE:RUCEmisor><DGICFE:Idemisor>${opts.idEmisor}</DGICFE:Idemisor>` +
    `<DGICFE:CantCFE>${opts.cantCfe ?? opts.cfes.length}</DGICFE:CantCFE><DGICFE:Fecha>${uyDateTime()}</DGICFE:Fecha>` +
    `<DGICFE:X509Certificate>${pemToBase64(signer.certificatePem)}</DGICFE:X509Certificate></DGICFE:Caratula>` +
    opts.cfes.join('') +
    `</DGICFE:EnvioCFE>`
  );
}

/**
 * A signed "zero" daily report (CantComprobantes 0, no Resumen blocks), FREP v13.2. Default date:
 * yesterday, a day on which the tests' CFEs (signed now) were not signed, so the simulator, which
 * compares a report with the CFEs it received that day (report-rules.ts), finds it right.
 */
export function zeroReport(signer: Signer, opts: { rucEmisor: string; fechaResumen?: string; secEnvio: number }): string {
  const xml =
    `<ns1:Reporte xmlns:ns1="http://cfe.dgi.gub.uy"><ns1:Caratula version="1.0"><ns1:RUCEmisor>${opts.rucEmisor}</ns1:RUCEmisor>` +
    `<ns1:FechaResumen>${opts.fechaResumen ?? uyDate(Date.now() - 86_400_000)}</ns1:FechaResumen><ns1:SecEnvio>${opts.secEnvio}</ns1:SecEnvio>` +
    `<ns1:TmstFirmaEnv>${uyDateTime()}</ns1:TmstFirmaEnv><ns1:CantComprobantes>0</ns1:CantComprobantes></ns1:Caratula></ns1:Reporte>`;
  return signEnveloped(xml, signer.privateKeyPem, signer.certificatePem, 'sha256');
}
