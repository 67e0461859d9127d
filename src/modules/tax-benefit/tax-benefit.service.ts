/**
 * Tax-benefit declarations (BRIEF 12; issue 35): a company's sworn declaration that it qualifies
 * for Decreto 206/019 (monthly credit of up to 80 UI on e-invoicing services) or Decreto 324/011
 * (exemption of the initial investment), checked against the rules that its facts allow
 * (tax-benefit.rules.ts); superseded by a newer one for the same year and regime; its status for a
 * period with the month's credit limit in pesos; its start date as an electronic issuer from DGI's
 * registry (issuer-registry module) or the company.
 */
import { Decimal } from 'decimal.js';
import { addDays, uyToday } from '../../lib/dates.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { taxBenefitErrors as e } from './tax-benefit.errors.js';
import * as repo from './tax-benefit.repository.js';
import { declarationProblems, exemptionTerms, incomeInUi, monthlyCreditPesos, MONTHLY_CREDIT_UI, type Regime } from './tax-benefit.rules.js';
import type { DeclarationBody } from './tax-benefit.schemas.js';
import type { DeclaredFacts } from './tax-benefit.tables.js';
import type { EventsService } from '../events/events.service.js';

interface CompanyFacts {
  rut: string; razonSocial: string; domicilioFiscal: string | null; ciudad: string | null; departamento: string | null;
  regimenTributario: string; fechaResolucion: string | null;
}
interface RegistryEntry { fechaInicio: string | null; fechaFinTransicion: string | null; fechaFin: string | null; mail: string | null; denominacion: string; readAt: Date }

export interface TaxBenefitDeps {
  db: Db;
  companyFacts(companyId: number): Promise<CompanyFacts>;
  /** DGI's registry entry of a RUC; `askAs` lets it ask DGI with that company's certificate when not synced yet. */
  registryEntry(ruc: string, askAs: number): Promise<RegistryEntry | undefined>;
  /** BCU quote (UYI = Unidad Indexada, code 9800; USD) on `date` or the latest day before; null when none. Throws on transport failures. */
  /** When DGI's registry was last synced (null: never) and the last sync error (issue 42 point 7). */
  registryStatus(): Promise<{ sincronizado: Date | null; ultimoError: string | null }>;
  rate(currency: 'UYI' | 'USD', date: string): Promise<{ rate: string; date: string } | null>;
  settings: { decree206LastYear: number };
  /** The outbox (events module): `BeneficioFiscal.Declarada` in the declaration's transaction. */
  events: Pick<EventsService, 'record'>;
  now?: () => number;
}

type Row = repo.DeclarationRow;
export const declarationView = (r: Row) => ({
  id: r.id, idEmpresa: r.companyId, anioFiscal: r.anioFiscal, regimen: r.regimen, fundamento: r.fundamento ?? null,
  estado: r.reemplazadaPor === null ? ('vigente' as const) : ('reemplazada' as const),
  reemplazadaPor: r.reemplazadaPor, reemplazadaEn: r.reemplazadaEn?.toISOString() ?? null, fechaDeclaracion: r.createdAt.toISOString(),
  fechaInicioEmisor: r.fechaInicioEmisor, fuenteFechaInicio: r.fuenteFechaInicio ?? null, hechos: r.hechos as DeclaredFacts & Record<string, unknown>,
  declarante: { nombre: r.declaranteNombre, documento: r.declaranteDocumento, cargo: r.declaranteCargo },
});
export type DeclarationView = ReturnType<typeof declarationView>;

/** Sums of `montoSinIva` per currency, and the exempted share of each. */
function exemption(start: string, inversiones: NonNullable<DeclarationBody['inversiones']>): NonNullable<DeclaredFacts['exoneracion']> {
  const terms = exemptionTerms(start);
  const invertido: Record<string, string> = {};
  const exonerable: Record<string, string> = {};
  for (const inv of inversiones) invertido[inv.moneda] = new Decimal(invertido[inv.moneda] ?? 0).plus(inv.montoSinIva).toFixed(2);
  for (const [m, v] of Object.entries(invertido)) exonerable[m] = new Decimal(v).times(terms.porcentaje).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
  return { ...terms, invertido, exonerable };
}

export function createTaxBenefitService(deps: TaxBenefitDeps) {
  const { db } = deps;
  const now = deps.now ?? Date.now;

  /** BCU failures (down, timeout) count as "no value": the rules answer with their own code, status shows a notice. */
  const rateOrNull = async (currency: 'UYI' | 'USD', date: string) => {
    try {
      return await deps.rate(currency, date);
    } catch {
      return null;
    }
  };

  async function knownStart(companyId: number, company: CompanyFacts) {
    const entry = await deps.registryEntry(company.rut, companyId);
    if (entry?.fechaInicio) return { fecha: entry.fechaInicio, fuente: 'registro_dgi' as const, leidoEn: entry.readAt, entry };
    if (company.fechaResolucion) return { fecha: company.fechaResolucion, fuente: 'empresa' as const, leidoEn: null, entry: null };
    return null;
  }

  async function visibleDeclaration(actor: Actor, id: number) {
    const row = await repo.findDeclaration(db, id);
    if (!row) throw e.DECLARACION_NO_ENCONTRADA();
    assertCompanyRole(actor, row.companyId, 'lectura', () => e.DECLARACION_NO_ENCONTRADA());
    return row;
  }

  return {
    async startDate(actor: Actor, companyId: number) {
      assertCompanyRole(actor, companyId, 'lectura');
      const company = await deps.companyFacts(companyId);
      const start = await knownStart(companyId, company);
      if (!start) {
        // "Not synced yet" is not "not in the registry" (issue 42 point 7).
        const registry = await deps.registryStatus();
        if (!registry.sincronizado) {
          throw e.REGISTRO_EMISORES_NO_SINCRONIZADO(
            `El registro de emisores electrónicos de DGI todavía no se sincronizó (se sincroniza al iniciar el servicio y cada día${registry.ultimoError ? `; último intento: ${registry.ultimoError}` : ''}): no se sabe si el RUT ${company.rut} figura en él. Vuelva a intentar en unos minutos, o cargue la fecha de resolución de habilitación de la empresa.`,
            { rut: company.rut, ultimoError: registry.ultimoError },
          );
        }
        throw e.FECHA_INICIO_NO_DISPONIBLE(
          `No se conoce la fecha de inicio como emisor electrónico: el RUT ${company.rut} no figura en el registro de emisores de DGI (sincronizado el ${registry.sincronizado.toISOString()}) y la empresa no tiene fecha de resolución de habilitación cargada.`,
          { rut: company.rut, registroSincronizado: registry.sincronizado.toISOString() },
        );
      }
      const { entry } = start;
      return {
        idEmpresa: companyId, rut: company.rut, fechaInicio: start.fecha, fuente: start.fuente, leidoEn: start.leidoEn?.toISOString() ?? null,
        registro: entry ? { denominacion: entry.denominacion, fechaFinTransicion: entry.fechaFinTransicion, fechaFin: entry.fechaFin, mail: entry.mail } : null,
      };
    },

    async declare(actor: Actor, body: DeclarationBody): Promise<DeclarationView> {
      assertCompanyRole(actor, body.idEmpresa, 'administrador');
      const company = await deps.companyFacts(body.idEmpresa);
      const start = await knownStart(body.idEmpresa, company);
      const today = uyToday(now());
      const byIncome = body.regimen === 'decreto_206_019' && body.fundamento === 'ingresos_hasta_750000_ui' && body.ingresosAnioAnterior !== undefined;
      // BRIEF 11: the UI value at 31 December of the year whose income is declared.
      const ui = byIncome ? await rateOrNull('UYI', `${body.anioFiscal - 1}-12-31`) : null;
      const usdRates = new Map<string, string | null>();
      for (const inv of body.inversiones ?? []) {
        if (body.regimen === 'decreto_324_011' && inv.tipo === 'saas' && inv.moneda === 'UYU' && !usdRates.has(inv.fecha)) usdRates.set(inv.fecha, (await rateOrNull('USD', inv.fecha))?.rate ?? null);
      }
      const problems = declarationProblems({
        regimen: body.regimen, anioFiscal: body.anioFiscal, fundamento: body.fundamento, ingresosAnioAnterior: body.ingresosAnioAnterior,
        valorUiCierre: ui?.rate ?? null, fechaInicioActividad: body.fechaInicioActividad, grandeContribuyente: body.grandeContribuyente,
        inversiones: body.inversiones, usdRates, fechaInicioEmisor: start?.fecha ?? null, fechaInicioEmisorDeclarada: body.fechaInicioEmisor,
        regimenTributario: company.regimenTributario, today, decree206LastYear: deps.settings.decree206LastYear,
      });
      const first = problems[0];
      if (first) throw e[first.code](`${first.mensaje} (regla ${first.code})`, { regla: first.code, campo: first.campo, problemas: problems });

      const fechaInicioEmisor = start?.fecha ?? body.fechaInicioEmisor ?? null;
      const hechos: DeclaredFacts = {
        empresa: { rut: company.rut, razonSocial: company.razonSocial, domicilioFiscal: company.domicilioFiscal, ciudad: company.ciudad, departamento: company.departamento, regimenTributario: company.regimenTributario },
      };
      if (body.regimen === 'decreto_206_019') {
        if (byIncome && ui) Object.assign(hechos, { ingresosAnioAnterior: body.ingresosAnioAnterior, ingresosAnioAnteriorUi: incomeInUi(body.ingresosAnioAnterior!, ui.rate), valorUiCierre: ui.rate });
        if (body.fundamento === 'inicio_actividad') hechos.fechaInicioActividad = body.fechaInicioActividad ?? fechaInicioEmisor ?? undefined;
      } else {
        Object.assign(hechos, { grandeContribuyente: body.grandeContribuyente ?? false, inversiones: body.inversiones, exoneracion: exemption(fechaInicioEmisor!, body.inversiones!) });
      }
      try {
        const row = await db.transaction(async (tx) => {
          const { row, superseded } = await repo.insertSuperseding(tx, {
          companyId: body.idEmpresa, anioFiscal: body.anioFiscal, regimen: body.regimen, fundamento: body.regimen === 'decreto_206_019' ? body.fundamento : null,
          fechaInicioEmisor, fuenteFechaInicio: start?.fuente ?? (body.fechaInicioEmisor ? 'declarada' : null), hechos,
          declaranteNombre: body.declarante.nombre, declaranteDocumento: body.declarante.documento, declaranteCargo: body.declarante.cargo, createdByUserId: actor.userId || null,
          });
          await deps.events.record(tx, { type: 'BeneficioFiscal.Declarada', companyId: body.idEmpresa, resource: { ...declarationView(row), idReemplazada: superseded } });
          return row;
        });
        return declarationView(row);
      } catch (err) {
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw e.BENEFICIO_DECLARACION_CONCURRENTE();
        throw err;
      }
    },

    async list(actor: Actor, f: { idEmpresa: number; anioFiscal?: number; regimen?: Regime }, paging: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const { rows, total } = await repo.listDeclarations(db, { companyId: f.idEmpresa, anioFiscal: f.anioFiscal, regimen: f.regimen }, paging);
      return { data: rows.map(declarationView), total };
    },

    /** For `fecha`'s fiscal year and month: the current declaration of each regime and Decreto 206/019's credit limit. */
    async status(actor: Actor, companyId: number, fecha?: string) {
      assertCompanyRole(actor, companyId, 'lectura');
      const day = fecha ?? uyToday(now());
      const year = Number(day.slice(0, 4));
      const periodo = day.slice(0, 7);
      const current = await repo.currentDeclarations(db, companyId, year);
      const of = (r: Regime) => current.find((d) => d.regimen === r);
      const avisos: string[] = [];
      const d206 = of('decreto_206_019');
      const in206 = !!d206 && year <= deps.settings.decree206LastYear;
      if (d206 && !in206) avisos.push(`El Decreto 206/019 rige hasta el ejercicio ${deps.settings.decree206LastYear}.`);
      let creditoMensual = null;
      if (in206) {
        // The month's credit is settled on the month as a whole: the UI of its last day (or BCU's latest before it).
        const lastDay = addDays(new Date(Date.UTC(year, Number(periodo.slice(5, 7)), 1)).toISOString().slice(0, 10), -1);
        const ui = await rateOrNull('UYI', lastDay);
        if (ui) creditoMensual = { topeUi: String(MONTHLY_CREDIT_UI), valorUi: ui.rate, fechaValorUi: ui.date, topePesos: monthlyCreditPesos(ui.rate) };
        else avisos.push('No se obtuvo del BCU el valor de la UI del mes: el tope en pesos no se puede calcular ahora.');
      }
      const d324 = of('decreto_324_011');
      return {
        idEmpresa: companyId, fecha: day, periodo,
        decreto_206_019: { vigente: in206, declaracion: d206 ? declarationView(d206) : null, vigenteHasta: in206 ? `${year}-12-31` : null, creditoMensual },
        decreto_324_011: { vigente: !!d324, declaracion: d324 ? declarationView(d324) : null, vigenteHasta: d324 ? `${year}-12-31` : null },
        avisos,
      };
    },

    /** The declaration to print, and whether the caller may see it. */
    async forPdf(actor: Actor, id: number): Promise<DeclarationView> {
      return declarationView(await visibleDeclaration(actor, id));
    },
  };
}

export type TaxBenefitService = ReturnType<typeof createTaxBenefitService>;
