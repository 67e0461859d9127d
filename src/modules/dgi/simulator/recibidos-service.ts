/**
 * What the simulated DGI knows of the CFE issued *to* a company (issue 31 points 5 and 6): every
 * CFE that reached it in an envelope (EFACRECEPCIONSOBRE) is kept for the QR page, and indexed by
 * its receiver when that is a RUC, plus CFE a test declares with `control.addCfeRecibido` (say, one whose envelope to the
 * receiver was never mailed, or whose data differ). It answers
 * - EFACCONSULTARCFERECIBIDOS of ws_consultas (BRIEF 7; client dgi.recibidos-client.ts): the CFE
 *   addressed to the caller's RUC (its WS-Security certificate) with FchEmis in FechaDesde..FechaHasta
 *   (≤ 31 days; RUCEmisor empty = every issuer, TipoCFE/Serie/Nro optional filters);
 * - DGI's public QR page (BRIEF 4), GET /consultaQR/cfe?ruc,tipoCFE,serie,nroCFE,monto,fecha,hash.
 *   The real page's markup is not documented anywhere we have (RECEIVED-RECURRING-USAGE A.5: an HTML
 *   page, not an API). The simulator's page is a table whose cells carry `data-campo` (the QR's
 *   parameter names plus `estado`), or `<p id="resultado" data-resultado="no_encontrado">`; the
 *   client (dgi.qr-client.ts) reads that shape.
 * Simulator choices where WSC says nothing: the period applies to FchEmis; FechaHora is when DGI
 * received the envelope; TotalNeto = MntNoGrv + MntExpoyAsim + the three net amounts; TotalIVA =
 * the three VAT amounts; Estado = the CFE's result at DGI (AE/BE/CE).
 */
import type { X509Certificate } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { rootChildSpans, type ElementSpan } from '../../../platform/xml/standalone-signature.ts';
import { cfeKey } from './cfe-checks.ts';
import { escapeXml, soapEnvelope, soapFaultXml } from '../dgi.soap.ts';
import type { EfacturaService, SoapReply } from './efactura-service.ts';
import { rucFromCertificate } from './xmldsig.ts';

export interface RecibidoCfe {
  rucEmisor: string;
  /** '' when the receiver is no RUC (e-Ticket to a consumer): on the QR page, not in any company's list. */
  rucReceptor: string;
  tipoCfe: string;
  serie: string;
  nro: string;
  fchEmis: string;
  tmstFirma: string;
  moneda: string;
  totalNeto: string;
  totalIva: string;
  montoTotal: string;
  totalRetenido: string;
  /** The QR's `monto` (BRIEF 4: 0 for e-Remito, MntTotRetenido for e-Resguardo, MntTotal for e-Remito de exportación, else MntPagar). */
  montoQr: string;
  /** The CFE signature's DigestValue (the QR's hash). */
  hash: string;
  /** When DGI received it (FechaHora). */
  recibidoEn: string;
  /** A declared state (control.addCfeRecibido); otherwise the CFE's result in its envelope. */
  estado?: string;
}

export type RecibidoRecord = { t: 'recibido'; cfe: RecibidoCfe };

export const CFE_RECIBIDOS_OPERATION = 'EFACCONSULTARCFERECIBIDOS';
export const QR_PATH = '/consultaQR/cfe';

/**
 * The first value of each leaf element of a CFE (`<Tag>value</`, any prefix), by name, read in one scan: a regex per
 * field name scanned each CFE ~20 times (8 % of the simulator thread under load).
 */
function leafValues(xml: string): (tag: string) => string | null {
  const values = new Map<string, string>();
  for (const m of xml.matchAll(/<(?:\w+:)?(\w+)>\s*([^<]*?)\s*<\//g)) if (!values.has(m[1])) values.set(m[1], m[2]);
  return (tag) => values.get(tag) ?? null;
}
const sum = (...vs: Array<string | null>) => vs.reduce((acc, v) => acc.plus(v ?? 0), new Decimal(0)).toFixed(2);
const DAY_MS = 86_400_000;
/**
 * The record with strings of its own. A regex match of 13 or more characters (the DigestValue, TmstFirma) is a slice
 * of the EnvioCFE it was found in, and these records live as long as the simulator: each kept its whole envelope alive
 * (~0.7 MB per 250 CFEs, the in-process simulator's heap grew ~3 KB per receipt for good; issue 29 point 5).
 */
const detached = (cfe: RecibidoCfe): RecibidoCfe => JSON.parse(JSON.stringify(cfe)) as RecibidoCfe;

function qrMonto(tipo: string, first: (tag: string) => string | null): string {
  const t = Number(tipo) % 100;
  if (t === 81) return '0'; // e-Remito
  if (t === 82) return first('MntTotRetenido') ?? '0'; // e-Resguardo
  if (t === 24) return first('MntTotal') ?? '0'; // e-Remito de exportación
  return first('MntPagar') ?? '0';
}

/** dd/mm/yyyy of a TmstFirma; the QR also carries YYYYMMDD in the wild (BRIEF 4): both are read. */
const qrDate = (tmst: string) => `${tmst.slice(8, 10)}/${tmst.slice(5, 7)}/${tmst.slice(0, 4)}`;
const normDate = (v: string) => (/^\d{8}$/.test(v) ? `${v.slice(6, 8)}/${v.slice(4, 6)}/${v.slice(0, 4)}` : v);

export class RecibidosService {
  private readonly byReceiver = new Map<string, Map<string, RecibidoCfe>>();
  private readonly byIdentity = new Map<string, RecibidoCfe>();

  constructor(private readonly efactura: EfacturaService) {}

  apply(record: RecibidoRecord): void {
    const c = record.cfe;
    const key = cfeKey(c.rucEmisor, c.tipoCfe, c.serie, c.nro);
    if (c.rucReceptor) {
      if (!this.byReceiver.has(c.rucReceptor)) this.byReceiver.set(c.rucReceptor, new Map());
      this.byReceiver.get(c.rucReceptor)!.set(key, c);
    }
    this.byIdentity.set(key, c);
  }

  /**
   * The records of an accepted envelope's CFE that name a RUC receiver (TipoDocRecep 2). `cfeSpans`: the CFEs' spans
   * in `xmlData` when the caller has them (receiveEnvelope's answer); else the envelope is scanned for them.
   */
  fromEnvelope(xmlData: string, receivedAt: string, cfeSpans?: ElementSpan[]): RecibidoRecord[] {
    const out: RecibidoRecord[] = [];
    for (const span of cfeSpans ?? rootChildSpans(xmlData) ?? []) {
      if (span.name.replace(/^[^:]*:/, '') !== 'CFE') continue;
      const first = leafValues(xmlData.slice(span.start, span.end));
      const [ruc, docRecep, tipo, serie, nro, hash] = ['RUCEmisor', 'DocRecep', 'TipoCFE', 'Serie', 'Nro', 'DigestValue'].map(first);
      if (!ruc || !tipo || !serie || !nro || !hash) continue;
      const rucReceptor = first('TipoDocRecep') === '2' && docRecep ? docRecep : '';
      out.push({
        t: 'recibido',
        cfe: detached({
          rucEmisor: ruc, rucReceptor, tipoCfe: tipo, serie, nro: String(Number(nro)),
          fchEmis: first('FchEmis') ?? '', tmstFirma: first('TmstFirma') ?? '', moneda: first('TpoMoneda') ?? 'UYU',
          totalNeto: sum(...['MntNoGrv', 'MntExpoyAsim', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra'].map(first)),
          totalIva: sum(...['MntIVATasaMin', 'MntIVATasaBasica', 'MntIVAOtra'].map(first)),
          montoTotal: sum(first('MntTotal')), totalRetenido: sum(first('MntTotRetenido')),
          montoQr: qrMonto(tipo, first), hash, recibidoEn: receivedAt,
        }),
      });
    }
    return out;
  }

  /** The CFE's state at DGI: the declared one, else its result in the first envelope that accepted it. */
  private estado(c: RecibidoCfe): string {
    if (c.estado) return c.estado;
    const results = this.efactura.envelopesOfCfe(c.rucEmisor, c.tipoCfe, c.serie, c.nro).map((e) => e.result.Estado);
    return results.find((e) => e !== 'BE') ?? results[0] ?? 'AE';
  }

  /** EFACCONSULTARCFERECIBIDOS; `texts` are the request's leaf elements, `callerCert` the verified WS-Security certificate. */
  answer(texts: Map<string, string>, callerCert: X509Certificate): SoapReply {
    const fault = (detail: string) => ({ status: 500, body: soapFaultXml(100, 'El método invocado ha detectado una excepción en su ejecución.', detail) });
    const get = (name: string) => texts.get(name)?.trim() ?? '';
    const [desde, hasta] = [get('FechaDesde'), get('FechaHasta')];
    const valid = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && d >= '2011-10-01' && d <= '2050-12-31';
    if (!valid(desde) || !valid(hasta)) return fault('FechaDesde y FechaHasta: fechas AAAA-MM-DD entre 2011-10-01 y 2050-12-31');
    const days = (Date.parse(`${hasta}T00:00:00Z`) - Date.parse(`${desde}T00:00:00Z`)) / DAY_MS;
    if (days < 0) return fault('FechaDesde posterior a FechaHasta');
    if (days > 30) return fault('El período no puede superar 31 días');
    const receiver = rucFromCertificate(callerCert) ?? '';
    const [ruc, tipo, serie, nro] = [get('RUCEmisor'), get('TipoCFE'), get('Serie'), get('Nro')];
    const rows = [...(this.byReceiver.get(receiver)?.values() ?? [])].filter((c) =>
      c.fchEmis >= desde && c.fchEmis <= hasta && (!ruc || c.rucEmisor === ruc) && (!tipo || c.tipoCfe === String(Number(tipo))) && (!serie || c.serie === serie) && (!nro || c.nro === String(Number(nro))));
    const datos = rows.map((c) =>
      `<DatosCFE><TipoCFE>${c.tipoCfe}</TipoCFE><Serie>${escapeXml(c.serie)}</Serie><Nro>${c.nro}</Nro><Estado>${this.estado(c)}</Estado>` +
      `<FechaHora>${escapeXml(c.recibidoEn)}</FechaHora><RUCEmisor>${c.rucEmisor}</RUCEmisor><Moneda>${escapeXml(c.moneda)}</Moneda>` +
      `<TotalNeto>${c.totalNeto}</TotalNeto><TotalIVA>${c.totalIva}</TotalIVA><MontoTotal>${c.montoTotal}</MontoTotal><TotalRetenido>${c.totalRetenido}</TotalRetenido></DatosCFE>`).join('');
    return {
      status: 200,
      body: soapEnvelope(`<WS_eFactura_Consultas.${CFE_RECIBIDOS_OPERATION}Response xmlns="http://dgi.gub.uy"><Ackconsultacferecibidos><ColeccionDatosCFE>${datos}</ColeccionDatosCFE></Ackconsultacferecibidos></WS_eFactura_Consultas.${CFE_RECIBIDOS_OPERATION}Response>`),
    };
  }

  /** GET /consultaQR/cfe?ruc,tipoCFE,serie,nroCFE,monto,fecha,hash (comma-separated, BRIEF 4). */
  qrPage(query: string): { status: number; body: string } {
    const params = decodeURIComponent(query.replace(/\+/g, ' ')).split(',');
    const page = (content: string) => ({ status: 200, body: `<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><title>Consulta de CFE</title></head><body><h1>Consulta de CFE</h1>${content}</body></html>` });
    if (params.length < 7) return { status: 400, body: '<!DOCTYPE html><html><body><p id="resultado" data-resultado="invalido">Parámetros incorrectos</p></body></html>' };
    const [ruc, tipo, serie, nro, monto, fecha, ...hashParts] = params.map((p) => p.trim());
    const c = this.byIdentity.get(cfeKey(ruc, Number(tipo), serie, Number(nro)));
    if (!c) return page('<p id="resultado" data-resultado="no_encontrado">El comprobante no se encuentra registrado en DGI.</p>');
    const dgi = { ruc: c.rucEmisor, tipoCFE: c.tipoCfe, serie: c.serie, nroCFE: c.nro, monto: c.montoQr, fecha: qrDate(c.tmstFirma), hash: c.hash, estado: this.estado(c) };
    const coincide = new Decimal(monto || 'NaN').equals(c.montoQr) && normDate(fecha) === dgi.fecha && hashParts.join(',') === c.hash;
    const rows = Object.entries(dgi).map(([k, v]) => `<tr><th>${k}</th><td data-campo="${k}">${escapeXml(v)}</td></tr>`).join('');
    return page(`<p id="resultado" data-resultado="${coincide ? 'coincide' : 'difiere'}">${coincide ? 'Los datos del comprobante coinciden con los registrados en DGI.' : 'Los datos del comprobante no coinciden con los registrados en DGI.'}</p><table id="cfe">${rows}</table>`);
  }
}
