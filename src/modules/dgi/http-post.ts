/**
 * POST of a hand-built SOAP envelope (RUT lookup, BCU) with undici, mapping transport failures to
 * `DgiTransientError` and returning the fault DGI sent, if any.
 */
import { request } from 'undici';
import { DgiPermanentError, DgiTransientError, type DgiService } from './dgi.errors.ts';
import { parseSoapFault, type SoapFault } from './dgi.soap.ts';

export async function postSoap(
  service: DgiService,
  url: string,
  envelope: string,
  soapAction: string,
  timeoutMs: number,
): Promise<{ xml: string } | { fault: SoapFault }> {
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${soapAction}"` },
      body: envelope,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (error) {
    throw new DgiTransientError(`${service}: ${(error as Error).message}`, service, null, null, { cause: error });
  }
  const fault = parseSoapFault(text);
  if (fault) return { fault };
  if (status >= 500 || status === 408 || status === 429) {
    throw new DgiTransientError(`${service}: HTTP ${status}`, service, status);
  }
  if (status >= 300) throw new DgiPermanentError(`${service}: HTTP ${status}`, service, null);
  return { xml: text };
}
