/** The CAE files the simulated DGI hands out (`control.issueCae`): CAE.xsd / CAEType.xsd, signed by its "DGI" key. */
import type { CaeRange } from './cfe-checks.ts';
import { uyDate, uyDateTime } from './efactura-service.ts';
import { signEnveloped } from './xmldsig.ts';

/** CAE number "90" + yy + 6-digit correlative + check digit (BRIEF §10). The check digit
 *  algorithm is not published; the simulator uses Luhn. */
export function caeNumber(correlative: number): string {
  const base = `90${uyDate().slice(2, 4)}${String(correlative).padStart(6, '0')}`;
  let sum = 0;
  for (let i = 0; i < base.length; i++) {
    let d = Number(base[base.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return base + String((10 - (sum % 10)) % 10);
}

/** The signed CAE file of `range`; prefix ns0 as in DGI's real CAE files (samples/cae). */
export function caeFileXml(range: CaeRange, keys: { privateKeyPem: string; certificatePem: string }): string {
  const da =
    `<ns0:RucE>${range.rucEmisor}</ns0:RucE><ns0:TCFE>${range.tipoCfe}</ns0:TCFE><ns0:Serie>${range.serie}</ns0:Serie>` +
    `<ns0:DNro>${range.desde}</ns0:DNro><ns0:HNro>${range.hasta}</ns0:HNro><ns0:TA>E</ns0:TA><ns0:NA>${range.NA}</ns0:NA>` +
    `<ns0:FA>${uyDate()}</ns0:FA><ns0:FVD>${range.fechaVencimiento}</ns0:FVD>` +
    (range.especial ? `<ns0:CAEEspecial>${range.especial}</ns0:CAEEspecial>` : '');
  const unsigned = `<ns0:CAE xmlns:ns0="http://cfe.dgi.gub.uy" version="1.0"><ns0:TmstFrma>${uyDateTime()}</ns0:TmstFrma><ns0:DA>${da}</ns0:DA></ns0:CAE>`;
  return `<?xml version="1.0" encoding="UTF-8"?>${signEnveloped(unsigned, keys.privateKeyPem, keys.certificatePem)}`;
}
