/**
 * Simulated registry of electronic issuers: `WS_eFactura_Consultas.EFACCONSULTARRUCEMISORES` and
 * `…COMPRIMIDO` (BRIEF 7; element names in ../registry.soap-client.ts). Who it knows:
 * - DGI's Testing RUTs (BRIEF 11), as issuers since fixed dates; the cancelled one (210094030014)
 *   with FECHA_FIN;
 * - every RUC this DGI authorised a CAE to (efactura-service `caes`, journaled, so it survives a
 *   restart): an issuer since the day of its first CAE (`autorizadoEn`; ranges learned by hand or
 *   stored before that field existed count from 2020-01-01);
 * - entries set by tests or the demo through `control.registry.set` (this process only, like
 *   scripted rejections), which win over the two above.
 * Filtro_eFacRUCEmisorAudFchHora returns the entries changed since that instant; Filtro_eFacDocNro
 * one RUC; Filtro_eFacDenominacion a case-insensitive part of the name.
 */
import { gzipSync } from 'node:zlib';
import type { RutInfo } from '../dgi.client.ts';
import { escapeXml, soapEnvelope, soapFaultXml } from '../dgi.soap.ts';
import { REGISTRY_ITEM, REGISTRY_OPERATION, REGISTRY_OPERATION_COMPRESSED, type RegistryIssuer } from '../registry.soap-client.ts';
import type { Submission } from '../dgi.simulator.ts';
import type { CaeRange } from './cfe-checks.ts';
import { uyDateTime, type SoapReply } from './efactura-service.ts';
import { seedRuts } from './rut-service.ts';

export type RegistryOperation = typeof REGISTRY_OPERATION | typeof REGISTRY_OPERATION_COMPRESSED;
const operationName = (bodyElement: string) => bodyElement.replace(/^WS_eFactura_Consultas\./, '');
/** Whether a consultas request's Body element is one of the registry's operations. */
export const isRegistryOperation = (bodyElement: string): boolean =>
  [REGISTRY_OPERATION, REGISTRY_OPERATION_COMPRESSED].includes(operationName(bodyElement));

export interface SimulatedIssuer extends RegistryIssuer {
  /** When the entry last changed (Uruguay time, YYYY-MM-DDTHH:mm:ss): what the audit filter compares. */
  changedAt: string;
}

const SEED_CHANGED_AT = '2020-01-01T00:00:00';
/** Start dates of the Testing RUTs as issuers: plausible, fixed; only determinism matters. */
const SEED_START: Record<string, string> = {
  '219000090011': '2012-05-01',
  '219999820013': '2011-10-01',
  '219999830019': '2011-10-01',
  '211428940011': '2016-03-01',
  '210475730011': '2017-07-01',
  '210465050018': '2015-11-01',
  '210154140015': '2019-02-01',
  '210094030014': '2014-06-01',
};

function seedIssuers(): SimulatedIssuer[] {
  return seedRuts().map((r: RutInfo) => {
    const start = SEED_START[r.RUT] ?? '2015-01-01';
    return {
      RUC: r.RUT,
      DENOMINACION: r.Denominacion,
      FECHA_INICIO: start,
      FECHA_FIN_TRANSICION: `${Number(start.slice(0, 4)) + 1}${start.slice(4)}`,
      FECHA_FIN: r.EstadoActividad === 'CC' ? '2024-12-31' : null,
      MAIL: `cfe.${r.RUT}@example.com.uy`,
      changedAt: SEED_CHANGED_AT,
    };
  });
}

export class RegistryService {
  private readonly seeds = new Map(seedIssuers().map((i) => [i.RUC, i]));
  private readonly explicit = new Map<string, SimulatedIssuer>();

  constructor(
    private readonly caes: () => readonly (CaeRange & { autorizadoEn?: string })[],
    private readonly nameOf: (ruc: string) => string | undefined,
  ) {}

  /** Adds or replaces an entry (changedAt = now unless given). */
  set(issuer: RegistryIssuer & { changedAt?: string }): void {
    this.explicit.set(issuer.RUC, { ...issuer, changedAt: issuer.changedAt ?? uyDateTime().slice(0, 19) });
  }

  /** Every entry it knows, explicit ones first in precedence. */
  all(): SimulatedIssuer[] {
    const out = new Map(this.seeds);
    for (const range of this.caes()) {
      const at = range.autorizadoEn?.slice(0, 19) ?? SEED_CHANGED_AT;
      const known = out.get(range.rucEmisor);
      if (known && (this.seeds.has(range.rucEmisor) || known.changedAt <= at)) continue;
      out.set(range.rucEmisor, {
        RUC: range.rucEmisor,
        DENOMINACION: this.nameOf(range.rucEmisor) ?? `EMISOR ${range.rucEmisor}`,
        FECHA_INICIO: at.slice(0, 10),
        FECHA_FIN_TRANSICION: null,
        FECHA_FIN: null,
        MAIL: `cfe.${range.rucEmisor}@example.com.uy`,
        changedAt: at,
      });
    }
    for (const [ruc, issuer] of this.explicit) out.set(ruc, issuer);
    return [...out.values()].sort((a, b) => a.RUC.localeCompare(b.RUC));
  }

  /** The simulator's dispatch: the reply and the line of its submissions log. */
  handle(op: { operation: string; texts: ReadonlyMap<string, string> }, base: { at: string }): { reply: SoapReply; submission: Submission } {
    const service = operationName(op.operation) as RegistryOperation;
    const reply = this.answer(service, op.texts);
    return { reply, submission: { ...base, service, xmlData: op.texts.get('Filtro_eFacRUCEmisorAudFchHora') ?? '', httpStatus: reply.status } };
  }

  answer(operation: string, texts: ReadonlyMap<string, string>): SoapReply {
    const since = texts.get('Filtro_eFacRUCEmisorAudFchHora')?.trim() ?? '';
    if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?/.test(since)) {
      return { status: 500, body: soapFaultXml(100, 'El método invocado ha detectado una excepción en su ejecución.', 'Filtro_eFacRUCEmisorAudFchHora inválido') };
    }
    const ruc = texts.get('Filtro_eFacDocNro')?.trim();
    const name = texts.get('Filtro_eFacDenominacion')?.trim().toUpperCase();
    const from = since.slice(0, 19);
    const items = this.all()
      .filter((i) => i.changedAt >= from && (!ruc || i.RUC === ruc) && (!name || i.DENOMINACION.toUpperCase().includes(name)))
      .map((i) => {
        const el = (tag: string, v: string | null) => `<${tag}>${escapeXml(v ?? '')}</${tag}>`;
        return `<${REGISTRY_ITEM}>${el('RUC', i.RUC)}${el('DENOMINACION', i.DENOMINACION)}${el('FECHA_INICIO', i.FECHA_INICIO)}` +
          `${el('FECHA_FIN_TRANSICION', i.FECHA_FIN_TRANSICION)}${el('FECHA_FIN', i.FECHA_FIN)}${el('MAIL', i.MAIL)}</${REGISTRY_ITEM}>`;
      })
      .join('');
    const list = `<Rucemisoresmail>${items}</Rucemisoresmail>`;
    const content = operation === REGISTRY_OPERATION_COMPRESSED
      ? `<Rucemisoresmailcomprimido>${gzipSync(Buffer.from(list, 'utf8')).toString('base64')}</Rucemisoresmailcomprimido>`
      : list;
    return {
      status: 200,
      body: soapEnvelope(`<WS_eFactura_Consultas.${operation}Response xmlns="http://dgi.gub.uy">${content}</WS_eFactura_Consultas.${operation}Response>`),
    };
  }
}
