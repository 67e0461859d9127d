/**
 * CAE ranges (spec 4.3 CAE; BRIEF 10): import from DGI's file or by hand, list, availability,
 * branch assignment, adjust and void, and the number reservation the emission flow calls.
 */
import { errors } from '../../lib/errors.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db, type DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import type { Logger } from '../../platform/logger.js';
import { addDays, uyToday } from '../../lib/dates.js';
import { caeErrors } from './cae.errors.js';
import * as repo from './cae.repository.js';
import { createCfcFunctions } from './cfc.service.js';
import { caeRuleProblems } from './cae.rules.js';
import type { CaeTrust } from './cae.trust.js';
import { checkCaeXml, type CaeCheck, type CaeData } from './cae.xml.js';
import { rangeView } from './cae.view.js';
import { withSimulatedDgi, type RegisterWithSimulatedDgi } from './cae.simulated-dgi.js';
import { caeRanges, cfcRanges } from './cae.tables.js';
import { companyOfIds } from '../../platform/db/company-of.js';

export interface ReserveInput {
  companyId: number;
  /** The emitting branch: its own ranges are used first, then company-wide ones (branch null). */
  branchId: number | null;
  tipoCfe: number;
  /** A specific serie, or any serie when omitted. */
  serie?: string | null;
  /** Date the range must still be valid on (YYYY-MM-DD); default today in Uruguay. */
  fecha?: string;
}

export { rangeView, type CaeRangeView } from './cae.view.js';

export interface ManualCaeInput {
  idEmpresa: number;
  tipoCfe: number;
  serie: string;
  desde: number;
  hasta: number;
  numeroCae: string;
  fechaAutorizacion: string;
  fechaVencimiento: string;
  caeEspecial?: number;
  causalCaeEspecial?: number;
  idSucursal?: number | null;
}

export interface CaeServiceDeps {
  db: Db;
  logger: Logger;
  trust: CaeTrust;
  companyRut(companyId: number): Promise<string | undefined>;
  /** DGI_MODE=simulator only (cae.simulated-dgi.ts). */
  registerWithSimulatedDgi?: RegisterWithSimulatedDgi;
}

export function createCaeService(deps: CaeServiceDeps) {
  const { db } = deps;

  async function loadVisible(actor: Actor, id: number, minRole: 'lectura' | 'emisor' | 'administrador', forUpdateTx?: DbOrTx) {
    const row = await repo.findRange(forUpdateTx ?? db, id, Boolean(forUpdateTx));
    if (!row) throw caeErrors.CAE_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, minRole, () => caeErrors.CAE_NO_ENCONTRADO());
    return row;
  }

  async function assertBranch(tx: DbOrTx, branchId: number | null | undefined, companyId: number) {
    if (branchId == null) return;
    if (!(await repo.branchBelongsTo(tx, branchId, companyId))) throw caeErrors.CAE_SUCURSAL_NO_ENCONTRADA();
  }

  async function store(data: CaeData, companyId: number, extra: { origin: 'xml' | 'manual'; xml?: string; branchId?: number | null }) {
    try {
      return await db.transaction(async (tx) => {
        await assertBranch(tx, extra.branchId, companyId);
        await refuseOverlap(tx, companyId, data);
        const row = await repo.insertRange(tx, {
          companyId,
          branchId: extra.branchId ?? null,
          tipoCfe: data.tipoCfe,
          serie: data.serie,
          dNro: data.dNro,
          hNro: data.hNro,
          nextNumber: data.dNro,
          caeNumber: data.na,
          ta: data.ta ?? 'E',
          fa: data.fa,
          fvd: data.fvd,
          caeEspecial: data.caeEspecial ?? null,
          causalCaeEsp: data.causalCaeEsp ?? null,
          origin: extra.origin,
          xml: extra.xml ?? null,
        });
        return rangeView(row, 0, uyToday());
      });
    } catch (err) {
      if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw caeErrors.CAE_DUPLICADO(`El CAE ${data.na} ya fue importado en la empresa.`);
      throw err;
    }
  }

  /**
   * Two live ranges sharing numbers would hand out the same number twice (the second import used to
   * make every emission of the type fail on issued_cfes' unique key). DGI never authorizes that
   * (BRIEF 10: numbering unique per RUC, TipoCFE and Serie), so it is a typing error or a forged file.
   * The series lock makes the check race-free; a voided (anulado) range no longer hands out numbers.
   */
  async function refuseOverlap(tx: DbOrTx, companyId: number, data: CaeData) {
    await repo.lockSeries(tx, { companyId, tipoCfe: data.tipoCfe, serie: data.serie });
    const other = await repo.findOverlap(tx, { companyId, tipoCfe: data.tipoCfe, serie: data.serie, desde: data.dNro, hasta: data.hNro });
    if (!other) return;
    if (other.caeNumber === data.na) throw caeErrors.CAE_DUPLICADO(`El CAE ${data.na} ya fue importado en la empresa.`);
    throw caeErrors.CAE_SUPERPUESTO(`Los números ${data.dNro}-${data.hNro} se superponen con el CAE ${other.caeNumber} (id ${other.id}, ${other.dNro}-${other.hNro}) del tipo ${other.tipoCfe} serie ${other.serie}.`);
  }

  /**
   * Operator lines (issue 44 point 7): a warn once when a range's remaining numbers cross
   * max(10, 10 % of its size), an error when an emission finds none (at most once a minute per
   * company, type and serie: under load every refused receipt would repeat it).
   */
  function warnIfRunningOut(companyId: number, tipoCfe: number, got: { first: repo.ReservedNumber; taken: number }) {
    const { DNro, HNro, NA } = got.first.cae;
    const threshold = Math.max(10, Math.floor((HNro - DNro + 1) / 10));
    const after = HNro - (got.first.numero + got.taken - 1);
    if (after <= threshold && after + got.taken > threshold) {
      deps.logger.warn({ companyId, tipoCfe, serie: got.first.serie, NA, remaining: after }, `CAE running out: company ${companyId} type ${tipoCfe} serie ${got.first.serie} has ${after} numbers left in CAE ${NA}; import the next one`);
    }
  }
  const outOfNumbersLogged = new Map<string, number>();
  function logOutOfNumbers(companyId: number, tipoCfe: number, serie: string | null) {
    const key = `${companyId}/${tipoCfe}/${serie ?? ''}`;
    if (Date.now() - (outOfNumbersLogged.get(key) ?? 0) < 60_000) return;
    outOfNumbersLogged.set(key, Date.now());
    deps.logger.error({ companyId, tipoCfe, serie }, `CAE exhausted: company ${companyId} cannot issue type ${tipoCfe}${serie ? ` serie ${serie}` : ''} (no CAE with numbers left); import one`);
  }

  /**
   * `count` consecutive-as-possible numbers for a batch of emissions (issue 5 point 11): one
   * statement per range used. Ranges are taken in the same order as reserveNumber; when one runs
   * out mid-batch the rest come from the next. All or nothing: CAE_SIN_NUMEROS if not enough.
   */
  async function reserveNumbers(tx: DbOrTx, input: ReserveInput, count: number): Promise<repo.ReservedNumber[]> {
    const params = { companyId: input.companyId, branchId: input.branchId, tipoCfe: input.tipoCfe, serie: input.serie ?? null, fecha: input.fecha ?? uyToday() };
    const numbers: repo.ReservedNumber[] = [];
    // A range may run out between choosing and locking it: asking again chooses the next range.
    for (let misses = 0; numbers.length < count && misses < 3; ) {
      const got = await repo.reserveBlockFromBestRange(tx, params, count - numbers.length);
      if (!got) {
        misses++;
        continue;
      }
      for (let k = 0; k < got.taken; k++) numbers.push({ ...got.first, numero: got.first.numero + k });
      warnIfRunningOut(input.companyId, input.tipoCfe, got);
    }
    if (numbers.length < count) logOutOfNumbers(input.companyId, input.tipoCfe, input.serie ?? null);
    if (numbers.length < count) throw caeErrors.CAE_SIN_NUMEROS(`No hay un CAE vigente con números disponibles para el tipo ${input.tipoCfe}${input.serie ? ` serie ${input.serie}` : ''}: cargue uno con POST /api/v1/cae/importar (el archivo XML del CAE firmado por DGI) o POST /api/v1/cae/importar-manual (los datos de un CAE recibido en papel).`);
    return numbers;
  }

  async function checkForCompany(xml: string, companyId: number | undefined): Promise<CaeCheck & { rutEmpresa?: string }> {
    const found = checkCaeXml(xml, await deps.trust.anchors(), uyToday());
    if (companyId === undefined || !found.data) return found;
    const rut = await deps.companyRut(companyId);
    if (!rut) throw errors.EMPRESA_NO_ENCONTRADA();
    if (found.data.rucE !== rut) found.problems.push({ code: 'CAE_RUT_DISTINTO', message: `El CAE es del RUT ${found.data.rucE}; la empresa tiene RUT ${rut}.` });
    return { ...found, rutEmpresa: rut };
  }

  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOfRanges: (ids: readonly number[]) => companyOfIds(db, caeRanges, ids),
    companyOfCfcRanges: (ids: readonly number[]) => companyOfIds(db, cfcRanges, ids),
    // Contingency ranges (CFC): altaCfc, editarCfc, listCfc, numeroDisponibleContingencia, reserveContingencyNumber.
    ...createCfcFunctions({ db }),

    /** importar: DGI's signed CAE file. Refuses on the first problem, each with its own code. */
    async importXml(actor: Actor, companyId: number, xml: string, branchId?: number | null) {
      assertCompanyRole(actor, companyId, 'administrador');
      const found = await checkForCompany(xml, companyId);
      const first = found.problems[0];
      if (first) throw (caeErrors as Record<string, (m?: string) => Error>)[first.code](first.message);
      deps.logger.info({ companyId, NA: found.data!.na, warnings: found.warnings }, 'CAE imported');
      const data = found.data!;
      const view = await store(data, companyId, { origin: 'xml', xml, branchId });
      // A file the simulator issued is already known to it; one from elsewhere (a DGI sample) is not.
      return withSimulatedDgi(deps.registerWithSimulatedDgi, view, { ...data, rucE: found.rutEmpresa ?? data.rucE });
    },

    /** importar-manual: a CAE received on paper, typed in. No signature to check; DGI's data rules apply (cae.rules). */
    async importManual(actor: Actor, input: ManualCaeInput) {
      assertCompanyRole(actor, input.idEmpresa, 'administrador');
      const data: CaeData = {
        rucE: '', tipoCfe: input.tipoCfe, serie: input.serie, dNro: input.desde, hNro: input.hasta, na: input.numeroCae,
        fa: input.fechaAutorizacion, fvd: input.fechaVencimiento, caeEspecial: input.caeEspecial, causalCaeEsp: input.causalCaeEspecial,
      };
      const [problem] = caeRuleProblems(data, uyToday());
      if (problem) throw caeErrors[problem.code](problem.message);
      const view = await store(data, input.idEmpresa, { origin: 'manual', branchId: input.idSucursal });
      return withSimulatedDgi(deps.registerWithSimulatedDgi, view, { ...data, rucE: (await deps.companyRut(input.idEmpresa)) ?? '' });
    },

    /** For the simulated DGI's sandbox: refuses, with importar's own error, range data importar would refuse. */
    assertRangeRules(d: { tipoCfe: number; dNro: number; hNro: number; fa: string; fvd: string }) {
      const [problem] = caeRuleProblems(d, uyToday());
      if (problem) throw caeErrors[problem.code](problem.message);
    },

    /** validar: reports what the file contains and every problem found, storing nothing. */
    async validate(actor: Actor, xml: string, companyId?: number) {
      if (companyId !== undefined) assertCompanyRole(actor, companyId, 'lectura');
      const found = await checkForCompany(xml, companyId);
      return {
        valido: found.problems.length === 0,
        problemas: found.problems.map((p) => ({ codigo: p.code, mensaje: p.message })),
        advertencias: found.warnings,
        datos: found.data ?? null,
        firmante: found.signer ?? null,
      };
    },

    async list(actor: Actor, f: { idEmpresa: number; tipoCfe?: number; serie?: string; vencidos?: boolean }, paging?: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const today = uyToday();
      const { rows, total } = await repo.listRanges(db, { companyId: f.idEmpresa, tipoCfe: f.tipoCfe, serie: f.serie, vencidos: f.vencidos, today }, paging);
      return { data: rows.map((r) => rangeView(r.range, r.voided, today)), total };
    },

    /** obtenerDisponibilidad: per type and serie, what is left and when it runs out at the last 30 days' pace. */
    async availability(actor: Actor, companyId: number) {
      assertCompanyRole(actor, companyId, 'lectura');
      const today = uyToday();
      const rows = await repo.usableRangesWithUsage(db, companyId, today);
      const groups = new Map<string, { tipoCfe: number; serie: string; disponibles: number; vencimiento: string; usados30: number; rangos: number }>();
      for (const { range: r, used30 } of rows) {
        const key = `${r.tipoCfe}|${r.serie}`;
        const g = groups.get(key) ?? { tipoCfe: r.tipoCfe, serie: r.serie, disponibles: 0, vencimiento: r.fvd, usados30: 0, rangos: 0 };
        g.disponibles += r.hNro - r.nextNumber + 1;
        g.vencimiento = g.vencimiento > r.fvd ? g.vencimiento : r.fvd;
        g.usados30 += used30;
        g.rangos += 1;
        groups.set(key, g);
      }
      return [...groups.values()].map((g) => {
        const perDay = g.usados30 / 30;
        const exhaustion = perDay > 0 ? addDays(today, Math.ceil(g.disponibles / perDay)) : null;
        return {
          tipoCfe: g.tipoCfe,
          serie: g.serie,
          rangosVigentes: g.rangos,
          numerosDisponibles: g.disponibles,
          fechaVencimiento: g.vencimiento,
          usoUltimos30Dias: g.usados30,
          // Whichever comes first: running out of numbers or the last range expiring.
          fechaEstimadaAgotamiento: exhaustion && exhaustion < g.vencimiento ? exhaustion : exhaustion ? g.vencimiento : null,
        };
      });
    },

    async setBranch(actor: Actor, id: number, branchId: number | null) {
      return db.transaction(async (tx) => {
        const row = await loadVisible(actor, id, 'administrador', tx);
        await assertBranch(tx, branchId, row.companyId);
        const updated = await repo.updateRange(tx, id, { branchId });
        return rangeView(updated, await voidedOf(tx, id), uyToday());
      });
    },

    /** ajustar-proximo-numero: forward only; the skipped numbers are voided today (daily report, BRIEF 10). */
    async adjustNext(actor: Actor, id: number, proximoNumero: number) {
      return db.transaction(async (tx) => {
        const row = await loadVisible(actor, id, 'administrador', tx);
        if (row.annulledAt || row.nextNumber > row.hNro) throw caeErrors.CAE_NO_MODIFICABLE();
        if (proximoNumero <= row.nextNumber || proximoNumero > row.hNro + 1) {
          throw caeErrors.CAE_NUMERO_INVALIDO(`El próximo número solo puede avanzar: debe estar entre ${row.nextNumber + 1} y ${row.hNro + 1}.`);
        }
        await repo.insertVoided(tx, { companyId: row.companyId, caeRangeId: id, tipoCfe: row.tipoCfe, serie: row.serie, desde: row.nextNumber, hasta: proximoNumero - 1, fecha: uyToday(), motivo: 'ajuste' });
        const updated = await repo.updateRange(tx, id, { nextNumber: proximoNumero });
        return rangeView(updated, await voidedOf(tx, id), uyToday());
      });
    },

    /** anular-completo: voids the unused remainder; the range never hands out a number again. */
    async annul(actor: Actor, id: number) {
      return db.transaction(async (tx) => {
        const row = await loadVisible(actor, id, 'administrador', tx);
        if (row.annulledAt) throw caeErrors.CAE_NO_MODIFICABLE('El CAE ya está anulado.');
        if (row.nextNumber <= row.hNro) {
          await repo.insertVoided(tx, { companyId: row.companyId, caeRangeId: id, tipoCfe: row.tipoCfe, serie: row.serie, desde: row.nextNumber, hasta: row.hNro, fecha: uyToday(), motivo: 'anulacion' });
        }
        const updated = await repo.updateRange(tx, id, { nextNumber: row.hNro + 1, annulledAt: new Date() });
        return rangeView(updated, await voidedOf(tx, id), uyToday());
      });
    },

    /**
     * For the emission flow: the next number, inside the caller's transaction. Never the same number
     * twice, never a gap unless the caller rolls back (then the number is not consumed).
     */
    async reserveNumber(tx: DbOrTx, input: ReserveInput): Promise<repo.ReservedNumber> {
      return (await reserveNumbers(tx, input, 1))[0];
    },

    reserveNumbers,

    /**
     * For the emission pipeline's single-statement batch (issue 5 point 11): the CTEs `reserved`
     * and `usage` that take exactly a forecast block of numbers when it is still what
     * reserveNumbers would give (same range choice), or nothing (cae.repository exactBlockCtes).
     */
    exactReservationCtes: (input: ReserveInput, block: { caeRangeId: number; first: number; count: number }) =>
      repo.exactBlockCtes({ companyId: input.companyId, branchId: input.branchId, tipoCfe: input.tipoCfe, serie: input.serie ?? null, fecha: input.fecha ?? uyToday() }, block),

    /**
     * For API processes signing ahead for the same range (issue 45): claims of disjoint numbers
     * (hints; the numbers are taken only by the emission statement), the range's committed cursor
     * (whose turn it is) and forgetting the claims (one was never stored). cae.repository claimBlock.
     */
    claims: {
      claim: (caeRangeId: number, count: number) => repo.claimBlock(db, caeRangeId, count),
      nextNumber: (caeRangeId: number) => repo.nextNumberOf(db, caeRangeId),
      reset: (caeRangeId: number) => repo.resetClaims(db, caeRangeId),
    },

    /** For the emission flow: a number DGI rejected (except E02/E09) is voided for the daily report. */
    async voidNumber(tx: DbOrTx, v: { companyId: number; caeRangeId: number; tipoCfe: number; serie: string; numero: number; fecha?: string }) {
      await repo.insertVoided(tx, { companyId: v.companyId, caeRangeId: v.caeRangeId, tipoCfe: v.tipoCfe, serie: v.serie, desde: v.numero, hasta: v.numero, fecha: v.fecha ?? uyToday(), motivo: 'rechazo' });
    },

    /** For the daily report: numbers voided on a date (ranges desde..hasta). */
    voidedNumbersOn: (tx: DbOrTx, companyId: number, fecha: string) => repo.voidedOn(tx, companyId, fecha),
  };

  async function voidedOf(tx: DbOrTx, id: number): Promise<number> {
    return repo.voidedCountOf(tx, id);
  }
}

export type CaeService = ReturnType<typeof createCaeService>;
