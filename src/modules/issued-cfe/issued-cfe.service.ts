/**
 * Issued CFEs: emitir (spec 4.1, 2.1-2.4), read by id, signed XML download, firmarXml.
 * Emission: everything that may touch the network (RUT lookup, BCU) or parse is resolved first
 * (`prepare`); then ONE transaction reserves the number, signs, validates against DGI's XSD, stores
 * and writes the Cfe.Emitido outbox event (issued-cfe.batcher.ts, which groups concurrent requests
 * into one such transaction). Any failure rolls back: no row, no event, no number consumed.
 */
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Db } from '../../platform/db/client.js';
import { PG_UNIQUE_VIOLATION, constraintName, pgErrorCode } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { CfeXmlError, formatTmstFirma, getCfeType, isContingencyCode, securityCode, signXmlDocument, SignatureError, type CfeTypeInfo } from '../emission/index.js';
import { createEmissionBatcher } from './issued-cfe.batcher.js';
import { emittedEvent, sealedRow, type Emitted, type PreparedCfe } from './issued-cfe.sealed-row.js';
import { draftCfe } from './issued-cfe.assemble.js';
import { listStateHistory } from './issued-cfe.history.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import type { IssuedCfePorts } from './issued-cfe.ports.js';
import { resolveReceptor } from './issued-cfe.receptor.js';
import { createSealer } from './issued-cfe.sealer.js';
import type { SealedXmlCache } from './issued-cfe.xml-cache.js';
import * as repo from './issued-cfe.repository.js';
import { fillFromVariants } from './issued-cfe.variants.js';
import { checkFieldsOfType } from './issued-cfe.type-fields.js';
import { buildEmisor, issuerOf, cfeTypeOf, checkFechaEmision, checkLines, checkReceptor } from './issued-cfe.rules.js';
import { checkReferencedCfes, checkReferences, referencedKeys } from './issued-cfe.references.js';
import { uyToday } from '../../lib/dates.js';
import type { ContingencyBody, IssueCfeBody } from './issued-cfe.schemas.js';
import type { IssuedCfeRow } from './issued-cfe.tables.js';
import { issuedCfeView, type IssuedCfeView } from './issued-cfe.view.js';
import { issuedCfes } from './issued-cfe.tables.js';
import { companyOfIds } from '../../platform/db/company-of.js';

export interface IssuedCfeSettings {
  /** UI value at the close of the previous year (BRIEF 1). */
  uiValue: string;
  /** Worker threads that seal CFEs (sign, XSD, QR); 0 = on the event loop (issued-cfe.sealer.ts). */
  sealWorkers: number;
}

export function createIssuedCfeService(deps: { db: Db; ports: IssuedCfePorts; settings: IssuedCfeSettings; xmlCache?: SealedXmlCache }) {
  const { db, ports } = deps;
  const sealer = createSealer({ workers: deps.settings.sealWorkers });
  const batcher = createEmissionBatcher({ db, sealer, ...ports, xmlCache: deps.xmlCache });
  // BRIEF 1 and 11: 5,000 UI at the UI value of 31 December of the year before fechaEmision
  // (BCU code 9800), cached per year; UI_VALUE (config) when the central bank cannot be reached.
  const uiThresholds = new Map<string, Promise<Decimal>>();
  function uiThreshold(fecha: string): Promise<Decimal> {
    const year = Number(fecha.slice(0, 4));
    const key = String(year);
    let hit = uiThresholds.get(key);
    if (!hit) {
      hit = ports.bcuRate('UYI', `${year - 1}-12-31`).catch(() => undefined)
        .then((rate) => {
          if (!rate) uiThresholds.delete(key); // try the central bank again next time
          return new Decimal(5000).times(rate ?? deps.settings.uiValue);
        });
      uiThresholds.set(key, hit);
    }
    return hit;
  }

  async function resolveCurrency(companyId: number, totales: IssueCfeBody['cfe']['totales'], fecha: string) {
    const TpoMoneda = totales?.tipoMoneda ?? 'UYU';
    if (!(await ports.currencyExists(TpoMoneda))) throw E.MONEDA_NO_EXISTE(`La moneda ${TpoMoneda} no existe en el catálogo.`);
    if (TpoMoneda === 'UYU') return { TpoMoneda };
    // Spec 2.3 rule 7: as sent, else the company's table for fechaEmision, else the central bank.
    const rate = totales?.tipoCambio ?? (await ports.companyRate(companyId, TpoMoneda, fecha)) ?? (await ports.bcuRate(TpoMoneda, fecha).catch(() => undefined));
    if (!rate) throw E.TIPO_CAMBIO_NO_RESUELTO(`No se encontró tipo de cambio de ${TpoMoneda} para ${fecha}: envíe totales.tipoCambio o cargue la cotización.`);
    // TpoCambio is decimal(7,3) (BRIEF 2.4).
    return { TpoMoneda, TpoCambio: new Decimal(rate).toDecimalPlaces(3, Decimal.ROUND_HALF_UP).toString() };
  }

  async function replay(companyId: number, key: string, hash: string): Promise<IssuedCfeView | undefined> {
    const row = await repo.findByIdempotencyKey(db, companyId, key);
    if (!row) return undefined;
    if (row.requestHash !== hash) throw E.IDEMPOTENCIA_CONFLICTO();
    return await issuedCfeView(row);
  }

  async function loadVisible(actor: Actor, id: number) {
    const row = await repo.findIssuedCfe(db, id);
    if (!row) throw E.CFE_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, 'lectura', () => E.CFE_NO_ENCONTRADO());
    return row;
  }

  /**
   * Everything before numbering (spec 2.2-2.4): rules, emission point, usage limit, products,
   * currency, receiver, issuer, the draft CFE with its totals, the signing context. No writes.
   * Also the preview's entry point (nothing numbered, signed or stored).
   */
  async function prepare(body: IssueCfeBody, opts: { info?: CfeTypeInfo; idempotencyKey?: string; requestHash?: string } = {}): Promise<PreparedCfe> {
    const companyId = body.idEmpresa;
    const info = opts.info ?? cfeTypeOf(body.cfe.idDoc.tipoCfe);
    checkReferences(info, body.cfe);
    // Spec 2.1/2.4 rule 3: variant lines are checked (traceability) and completed from the variant first,
    // so the line rules below see what will be signed.
    const productLines = body.cfe.detalles.flatMap((d) => (d.idVariante ? [{ idVariante: d.idVariante, datosTrazabilidad: d.datosTrazabilidad }] : []));
    const cfe = productLines.length ? fillFromVariants(body.cfe, await ports.checkProductLines(companyId, productLines)) : body.cfe;
    checkLines(info, cfe);
    checkFieldsOfType(info, cfe);
    const fecha = cfe.idDoc.fechaEmision;
    checkFechaEmision(fecha, uyToday());
    const ep = await ports.resolveEmissionPoint({ idEmpresa: companyId, codComercio: body.codComercio, codTerminal: body.codTerminal, fecha });
    if (ep.company.limiteCfeMensual != null) {
      const now = new Date();
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 3)); // 00:00 in Uruguay (UTC−3)
      if ((await repo.countSignedSince(db, companyId, monthStart)) >= ep.company.limiteCfeMensual) {
        throw E.LIMITE_MENSUAL_EXCEDIDO(`La empresa alcanzó su límite de ${ep.company.limiteCfeMensual} comprobantes en el mes.`);
      }
    }
    const refKeys = referencedKeys(cfe);
    if (refKeys.length) checkReferencedCfes(cfe, await repo.findReferenced(db, companyId, refKeys));
    const currency = await resolveCurrency(companyId, cfe.totales, fecha);
    const { receptor, customerId } = await resolveReceptor(ports, companyId, cfe.receptor);
    const emisor = buildEmisor(cfe.emisor, issuerOf(ep.company, ep.branch, ep.codigoDgiSucursal));
    const signedAt = new Date();
    const draft = draftCfe({ info, cfe, emisor, receptor, currency, TmstFirma: formatTmstFirma(signedAt) });
    checkReceptor(info, draft.Receptor, draft.Totales, await uiThreshold(fecha));
    const ctx = await ports.signingContext(companyId);
    if (!ctx) throw E.SIN_CERTIFICADO();
    return {
      companyId, branchId: ep.branch.id, emissionPointId: ep.point.id, info, fecha, signedAt, emisor, draft, customerId, currency,
      adenda: cfe.adenda, ctx, idempotencyKey: opts.idempotencyKey, requestHash: opts.requestHash,
    };
  }

  /** Idempotency-Key: the original receipt for a repeated key; a concurrent duplicate that lost the race gets the winner's. */
  async function withIdempotency(body: unknown, companyId: number, key: string | undefined, issue: (hash?: string) => Promise<Emitted>) {
    const hash = key ? createHash('sha256').update(JSON.stringify(body)).digest('hex') : undefined;
    if (key) {
      const previous = await replay(companyId, key, hash!);
      if (previous) return { view: previous, replayed: true };
    }
    try {
      const emitted = await issue(hash);
      return { view: await issuedCfeView(emitted.row, emitted), replayed: false };
    } catch (err) {
      if (key && pgErrorCode(err) === PG_UNIQUE_VIOLATION && constraintName(err) === 'issued_cfes_idempotency_uq') {
        const previous = await replay(companyId, key, hash!);
        if (previous) return { view: previous, replayed: true };
      }
      throw err;
    }
  }

  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOf: (ids: readonly number[]) => companyOfIds(db, issuedCfes, ids),
    prepare: (body: IssueCfeBody) => prepare(body),

    /** Stops the sealing worker threads (app close). */
    close: () => sealer.close(),

    /** Emission pipeline counters (issued-cfe.batcher.ts). */
    emissionStats: () => batcher.stats(),

    /** POST /api/v1/comprobante/emitir. Returns the view and whether it was a replay of an Idempotency-Key. */
    emit: (body: IssueCfeBody, idempotencyKey?: string): Promise<{ view: IssuedCfeView; replayed: boolean }> =>
      withIdempotency(body, body.idEmpresa, idempotencyKey, async (requestHash) => batcher.submit(await prepare(body, { idempotencyKey, requestHash }))),

    /**
     * Transcription of a contingency CFC (types 2xx, BRIEF 10): the paper was already issued with a
     * number of a registered CFC range; that number is marked used (once) and the CFE is signed and
     * stored like any other, in state `firmado`, so it goes to DGI (never to the receiver).
     */
    transcribeContingency: (body: ContingencyBody, idempotencyKey?: string): Promise<{ view: IssuedCfeView; replayed: boolean }> =>
      withIdempotency(body, body.idEmpresa, idempotencyKey, async (requestHash) => {
        const tipo = body.cfe.idDoc.tipoCfe;
        if (!isContingencyCode(tipo)) throw E.TIPO_CFE_INVALIDO(`El tipo ${tipo} no es un tipo de contingencia (2xx): los CFE electrónicos se emiten con /api/v1/comprobante/emitir.`);
        const info = getCfeType(tipo);
        const prepared = await prepare(body, { info, idempotencyKey, requestHash });
        return db.transaction(async (tx) => {
          const cfc = await ports.reserveContingencyNumber(tx, { companyId: prepared.companyId, tipoCfc: tipo, serie: body.cfe.idDoc.serie, numero: body.cfe.idDoc.numero, fecha: prepared.fecha });
          const sealed = await sealedRow(sealer, prepared, { caeRangeId: null, serie: cfc.serie, numero: cfc.numero, cae: { NA: cfc.constancia, DNro: cfc.desde, HNro: cfc.hasta, FVD: cfc.fechaVencimiento } });
          const [inserted] = await repo.insertIssuedCfes(tx, [{ ...sealed.row, cfcRangeId: cfc.cfcRangeId }]);
          await ports.recordEvents(tx, [emittedEvent(inserted, sealed.printed.cae)]);
          return { row: inserted, qrPng: sealed.qrPng, printed: sealed.printed };
        });
      }),

    /**
     * GET /api/v1/cfeemitido/{id} and getByIdCfeEmitido: the emitir view plus `estadoReceptor` and
     * `historial` (every state change, issue 6 point 1). Another company's CFE answers 404.
     */
    async get(actor: Actor, id: number) {
      const row = await loadVisible(actor, id);
      return { ...(await issuedCfeView(row)), estadoReceptor: row.estadoReceptor, historial: await listStateHistory(db, id) };
    },

    /** The signed XML bytes exactly as stored. */
    async xml(actor: Actor, id: number) {
      const row = await loadVisible(actor, id);
      return { xml: row.xml, fileName: `CFE_${row.tipoCfe}_${row.serie}${row.numero}.xml` };
    },

    /** POST /api/v1/comprobante/firmarXml: XSD-validated after signing with the company's active certificate. */
    async signXml(companyId: number, xml: string) {
      const ctx = await ports.signingContext(companyId);
      if (!ctx) throw E.SIN_CERTIFICADO();
      let signed;
      try {
        signed = signXmlDocument(xml, ctx);
      } catch (err) {
        if (err instanceof SignatureError || err instanceof CfeXmlError) throw E.FIRMA_XML_INVALIDA(`No se pudo firmar el XML: ${err.message}.`);
        throw err;
      }
      const xsd = validateXml('CFE', signed.xml);
      if (!xsd.ok) throw E.XML_INVALIDO(`El XML no cumple el esquema XSD de DGI: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
      return { xml: signed.xml, digestValue: signed.digestValue, codigoSeguridad: securityCode(signed.digestValue) };
    },
  };
}

export type IssuedCfeService = ReturnType<typeof createIssuedCfeService>;
