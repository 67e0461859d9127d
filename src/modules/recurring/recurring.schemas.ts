/**
 * Requests and answers of /api/v1/facturacionrecurrente (issue 32). The spec names only the paths
 * (4, "Recurring invoicing"); the plan's shape is designed here (design B.7) and documented in the
 * OpenAPI descriptions. The CFE template is emitir's `cfe` without `idDoc.fechaEmision` (the run's).
 */
import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { companyRef } from '../../platform/http/company-refs.js';
import { pagingQuery } from '../../platform/http/paging.js';
import { cfeBody, idDocBody } from '../issued-cfe/issued-cfe.schemas.js';
import { withFreeTextPolicy } from '../issued-cfe/free-text.js';
import { planActions, planStates, runResults } from './recurring.states.js';
import { isValidZone } from './recurring.schedule.js';

const int = z.number().int();
const planId = () => companyRef(int.positive().max(2_147_483_647), 'planRecurrente', { anchor: true });

export const plantillaBody = cfeBody.extend({ idDoc: idDocBody.omit({ fechaEmision: true }) })
  .describe('The CFE each run issues, in the shape of emitir\'s `cfe` (spec 2.1) without `idDoc.fechaEmision`: the run sets it to its own local date. Saved only if emission\'s own rules accept it (emitir\'s `prepare`: same 4xx codes).');

export const frecuenciaBody = z.object({
  unidad: z.enum(['dia', 'semana', 'mes', 'anio']),
  intervalo: int.min(1).max(366).default(1).describe('Every `intervalo` units (e.g. mes + 3 = quarterly).'),
});

export const anclajeBody = z.object({
  diaDelMes: z.union([int.min(1).max(31), z.literal('ultimo')]).optional()
    .describe('mes/anio: day 1..31 or "ultimo". A day the month lacks is that month\'s last day, computed from the anchor every time (31 Jan → 28/29 Feb → 31 Mar). Default: the day of fechaInicio.'),
  diaSemana: int.min(1).max(7).optional().describe('semana: ISO weekday 1 = Monday .. 7 = Sunday. Default: the weekday of fechaInicio.'),
}).default({});

export const finBody = z.discriminatedUnion('tipo', [
  z.object({ tipo: z.literal('nunca') }),
  z.object({ tipo: z.literal('fecha'), fecha: calendarDate.describe('Last day a period may start on.') }),
  z.object({ tipo: z.literal('ciclos'), ciclos: int.min(1).max(100_000).describe('Number of periods billed (issued or omitted), then `finalizado`.') }),
]).default({ tipo: 'nunca' });

const definitionFields = {
  nombre: z.string().trim().min(1).max(120).optional().describe('A label for the plan (e.g. "Alquiler local 3").'),
  codComercio: z.string().min(1).max(40).describe('Emission point: branch code (as emitir).'),
  codTerminal: z.string().min(1).max(40).describe('Emission point: terminal code (as emitir).'),
  plantilla: plantillaBody,
  frecuencia: frecuenciaBody,
  anclaje: anclajeBody,
  horaEmision: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM').default('06:00').describe('Local time of the run, HH:MM. Default 06:00.'),
  zonaHoraria: z.string().max(60).refine(isValidZone, 'zona horaria IANA desconocida').default('America/Montevideo').describe('IANA zone of the dates and horaEmision. Default America/Montevideo.'),
  fechaInicio: calendarDate.describe('The first period starts on the first anchor date on or after this day.'),
  fin: finBody,
  periodo: z.object({ modo: z.enum(['adelantado', 'vencido']).default('adelantado') }).default({ modo: 'adelantado' })
    .describe('adelantado: a period is billed on its first day; vencido: on the day after it ends. Either way the CFE\'s adenda states the billed period.'),
  politicaAtrasos: z.enum(['emitir_todos', 'emitir_uno', 'omitir']).default('emitir_todos')
    .describe('Missed runs (the service was down, or the plan was activated late): emitir_todos (default) issues one CFE per missed period; emitir_uno folds the missed periods into the current one (quantities × periods; the adenda states the whole span); omitir records them as omitido and issues only the current period.'),
  envioEmail: z.object({
    activo: z.boolean().default(false),
    destinatarios: z.array(z.string().email().max(254)).max(10).optional().describe('Default: the customer\'s e-mail.'),
  }).default({ activo: false }).describe('E-mail the PDF and XML of each issued CFE (the cfe-documents mail queue).'),
};

const definitionObject = z.object(definitionFields);
export type PlanDefinition = z.infer<typeof definitionObject>;

export const createPlanBody = withFreeTextPolicy(z.object({ idEmpresa: int.positive(), ...definitionFields }));
export type CreatePlanBody = z.infer<typeof createPlanBody>;

export const editPlanBody = withFreeTextPolicy(z.object({
  id: planId().describe('The plan.'),
  ...Object.fromEntries(Object.entries(definitionFields).map(([k, v]) => [k, (v as z.ZodTypeAny).optional()])) as { [K in keyof typeof definitionFields]: z.ZodOptional<(typeof definitionFields)[K]> },
}));
export type EditPlanBody = z.infer<typeof editPlanBody>;

export const actionParams = z.object({ accion: z.string().max(40), id: z.coerce.number().int().positive().max(2_147_483_647) });
export const idParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });

export const actionBodies = {
  pausar: z.object({
    hasta: z.iso.datetime({ offset: true }).optional().describe('Resume automatically at this instant (ISO 8601): the plan is active again from `hasta` on, whenever the scheduler notices it; a run planned at exactly `hasta` is issued.'),
    politicaReanudacion: z.enum(['omitir', 'recuperar']).default('omitir').describe('With `hasta`: what the automatic resume does with the runs planned inside the pause (before `hasta`). omitir (default): recorded as omitido; recuperar: handled by the plan\'s politicaAtrasos. Runs planned at or after `hasta` always follow politicaAtrasos.'),
  }),
  reanudar: z.object({ politicaReanudacion: z.enum(['omitir', 'recuperar']).default('omitir').describe('omitir (default): runs that fell inside the pause are recorded as omitido; recuperar: they are handled by the plan\'s politicaAtrasos.') }),
  cancelar: z.object({ motivo: z.string().trim().min(1).max(500).optional() }),
  reintentar: z.object({ periodoDesde: calendarDate.describe('The run key: the start of the failed period.') }),
} as const;
export const emptyActionBody = z.object({});

export const searchQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive(),
  estado: z.enum(planStates).optional(),
  idCliente: z.coerce.number().int().positive().optional().describe('Plans whose template receiver is this customer.'),
  documento: z.string().max(40).optional().describe('Plans whose template receiver has this document.'),
  proximaEjecucionDesde: z.iso.datetime({ offset: true }).optional(),
  proximaEjecucionHasta: z.iso.datetime({ offset: true }).optional(),
});

export const historyQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive().optional().describe('The company; may be left out by a user of exactly one company (the spec lists only start and length).'),
  idPlan: z.coerce.number().int().positive().optional(),
  resultado: z.enum(runResults).optional(),
  desde: calendarDate.optional().describe('Runs planned on or after this local day.'),
  hasta: calendarDate.optional().describe('Runs planned on or before this local day.'),
});

export const previewQuery = z.object({ cantidad: z.coerce.number().int().min(1).max(120).default(12).describe('How many next run dates (1..120, default 12).') });

const runView = z.object({
  idEjecucion: int, idPlan: int, version: int, claveEjecucion: z.string(), periodoDesde: z.string(), periodoHasta: z.string(), periodos: int,
  programadaPara: z.string(), ejecutadaEn: z.string().nullable(), resultado: z.enum(runResults), origen: z.string(),
  idCfeEmitido: int.nullable(), tipoCfe: int.nullable(), serie: z.string().nullable(), numero: int.nullable(), estadoDgi: z.string().nullable(),
  codigo: z.string().nullable(), motivo: z.string().nullable(), intento: int, proximoIntento: z.string().nullable(), acumuladaEn: int.nullable(),
});
export type RunView = z.infer<typeof runView>;

export const planView = z.object({
  id: int, idEmpresa: int, estado: z.enum(planStates), version: int, accionesPermitidas: z.array(z.enum(planActions)),
  proximaEjecucion: z.string().nullable(), proximoPeriodo: z.object({ desde: z.string(), hasta: z.string() }).nullable(),
  ciclosRestantes: int.nullable(), pausadoHasta: z.string().nullable(), motivoCancelacion: z.string().nullable(),
  ultimaEjecucion: runView.nullable(), createdAt: z.string(), updatedAt: z.string(),
}).extend(Object.fromEntries(Object.keys(definitionFields).map((k) => [k, z.unknown().optional()])) as Record<keyof typeof definitionFields, z.ZodOptional<z.ZodUnknown>>)
  .describe('The plan: the fields of crear as saved (current version), plus its state and schedule.');

export const planDetailView = planView.extend({
  versiones: z.array(z.object({ version: int, idUsuario: int.nullable(), fecha: z.string() })),
});

export const plansPage = z.object({ data: z.array(planView), total: int, start: int, length: int });
export const historyPage = z.object({ data: z.array(runView), total: int, start: int, length: int });

export const previewView = z.object({
  idPlan: int,
  ejecuciones: z.array(z.object({ periodoDesde: z.string(), periodoHasta: z.string(), programadaPara: z.string(), fechaEmision: z.string() })),
  proximoCfe: z.unknown().describe('The whole CFE the next run would issue, through emission\'s prepare (nothing numbered or signed), in DGI names: IdDoc (TipoCFE, FchEmis, …), Emisor, Receptor, Detalle, Totales (and the other parts the CFE carries), plus Adenda: the text printed and sent with it, starting with the billed period; null when no run is left.'),
  errorProximoCfe: z.object({ code: z.string(), error: z.string() }).nullable().describe('Why the next CFE could not be prepared today (e.g. a missing exchange rate), if so.'),
});

export const catalogosView = z.object({
  frecuencias: z.array(z.object({ unidad: z.string(), descripcion: z.string() })),
  anclajes: z.array(z.object({ valor: z.string(), descripcion: z.string() })),
  estados: z.array(z.object({ estado: z.string(), accionesPermitidas: z.array(z.string()) })),
  acciones: z.array(z.object({ accion: z.string(), desde: z.array(z.string()), hacia: z.string().nullable(), descripcion: z.string() })),
  politicasAtrasos: z.array(z.object({ valor: z.string(), descripcion: z.string(), predeterminada: z.boolean() })),
  modosPeriodo: z.array(z.string()),
  resultadosEjecucion: z.array(z.string()),
  tiposCfe: z.array(z.object({ tipoCfe: int, nombre: z.string() })),
  zonaHorariaPredeterminada: z.string(),
});
