/**
 * DGI's public QR verification (BRIEF 4): GET `…/consultaQR/cfe?ruc,tipoCFE,serie,nroCFE,monto,fecha,hash`,
 * the URL a CFE's QR carries. It is a web page, not an API (RECEIVED-RECURRING-USAGE A.5): this
 * client reads the page shape the local simulator serves (simulator/recibidos-service.ts: cells with
 * `data-campo`, a `data-resultado` marker). DGI's real markup is undocumented in everything we have;
 * a page this client cannot read is reported as such (`ilegible`), never as a match: check it during
 * homologation and adapt `parseQrPage`.
 */
import { request } from 'undici';
import { DgiTransientError } from './dgi.errors.ts';

export type QrPageResult =
  | { resultado: 'encontrado'; campos: Record<string, string> }
  | { resultado: 'no_encontrado' }
  | { resultado: 'ilegible'; detalle: string };

export interface DgiQrClient {
  /** `query` is the part after `?` of the CFE's QR URL (comma-separated parameters, hash URL-encoded). */
  check(query: string): Promise<QrPageResult>;
}

const decodeHtml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;|&#39;/g, "'").replace(/&amp;/g, '&').trim();

export function parseQrPage(html: string): QrPageResult {
  const marker = /data-resultado="([a-z_]+)"/.exec(html)?.[1];
  if (marker === 'no_encontrado') return { resultado: 'no_encontrado' };
  const campos: Record<string, string> = {};
  for (const m of html.matchAll(/<td[^>]*data-campo="([A-Za-z]+)"[^>]*>([^<]*)<\/td>/g)) campos[m[1]] = decodeHtml(m[2]);
  if (marker && Object.keys(campos).length) return { resultado: 'encontrado', campos };
  return { resultado: 'ilegible', detalle: 'La página de consulta QR de DGI no tiene el formato esperado.' };
}

export class DgiHttpQrClient implements DgiQrClient {
  /** `baseUrl`: DGI's `https://www.efactura.dgi.gub.uy/consultaQR/cfe`, or the simulator's `urls.consultaQr`. */
  constructor(private readonly options: { baseUrl: string; timeoutMs?: number }) {}

  async check(query: string): Promise<QrPageResult> {
    const url = `${this.options.baseUrl}?${query}`;
    const timeout = this.options.timeoutMs ?? 30_000;
    let status: number;
    let text: string;
    try {
      const res = await request(url, { method: 'GET', headers: { accept: 'text/html' }, headersTimeout: timeout, bodyTimeout: timeout });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      throw new DgiTransientError(`consultaQR: ${(error as Error).message}`, 'consultaQR', null, null, { cause: error });
    }
    if (status >= 500 || status === 408 || status === 429) throw new DgiTransientError(`consultaQR: HTTP ${status}`, 'consultaQR', status);
    if (status >= 300) return { resultado: 'ilegible', detalle: `La consulta QR de DGI respondió HTTP ${status}.` };
    return parseQrPage(text);
  }
}
