import { z } from 'zod';
import { companyRef } from '../../platform/http/company-refs.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { windows } from './usage-query.repository.js';
import { MAX_BATCH, rejectionReasons } from './usage.rules.js';
import { aggregations, contractStates } from './usage.tables.js';

const code = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.:-]+$/, 'letras, dígitos, _ . : -');
const key = z.string().min(1).max(100);
const instant = z.iso.datetime({ offset: true });

export const companyQuery = z.object({ idEmpresa: positiveInt4.optional().describe('Company; needed when the caller has access to more than one company.') });
export const idParams = z.object({ id: positiveInt4 });

export const metricBody = z.object({
  codigo: code.describe('Code events and price books use to name the metric (unique per company).').meta({ example: 'api_calls' }),
  nombre: z.string().min(1).max(200),
  unidad: z.string().min(1).max(50).describe('Unit shown with quantities, e.g. llamadas, kWh, mensajes.'),
  agregacion: z.enum(aggregations).describe('count: number of events; sum / max: of the numeric `propiedad`; latest: its value in the newest event; unique_count: distinct values of `propiedad` (string or number).'),
  propiedad: key.nullable().optional().describe('Event property aggregated; required except for count.'),
  clavesAgrupacion: z.array(key).max(10).optional().describe('Property keys usage may be grouped by (`group_by`). Default none.'),
});
export const metricPatch = metricBody.partial();
export const metricView = z.object({
  id: z.number().int(), idEmpresa: z.number().int(), codigo: z.string(), nombre: z.string(), unidad: z.string(), agregacion: z.enum(aggregations),
  propiedad: z.string().nullable(), clavesAgrupacion: z.array(z.string()), creadoEn: z.string(), actualizadoEn: z.string(),
});
export const metricsPage = pagedResponse(metricView);
export const metricListQuery = pagingQuery.extend(companyQuery.shape);

export const contractBody = z.object({
  idCliente: companyRef(positiveInt4, 'cliente').describe('Customer (of the company) the contract meters.'),
  idExterno: z.string().min(1).max(200).describe('The integrator\'s id of the contract (unique per company); events may name the contract by it.'),
  metricas: z.array(code).max(50).describe('Codes of the metrics the contract meters (may be empty while in borrador).'),
  inicio: instant.describe('First instant usage counts (RFC 3339). May be in the past: once billing terms are set, every period since this day is billed (the first one from this day to the next anchor day), the periods already over at the next close run.'),
  fin: instant.nullable().optional().describe('End (exclusive); null: open-ended.'),
  estado: z.enum(['borrador', 'activo']).optional().describe('Default activo. A borrador meters nothing until activated.'),
});
export const contractPatch = z.object({
  idExterno: contractBody.shape.idExterno.optional(),
  metricas: contractBody.shape.metricas.optional().describe('Replaces the list; a metric with counted usage cannot be removed (409).'),
  inicio: instant.optional(),
  fin: instant.nullable().optional(),
  estado: z.enum(contractStates).optional().describe('Manual transitions: borrador → activo | cancelado; activo → cancelado | finalizado. Usage-rule states come with part 2.'),
});
export const contractView = z.object({
  id: z.number().int(), idEmpresa: z.number().int(), idCliente: z.number().int(), idExterno: z.string(), estado: z.enum(contractStates), estadoDesde: z.string(),
  metricas: z.array(z.string()), inicio: z.string(), fin: z.string().nullable(), creadoEn: z.string(), actualizadoEn: z.string(),
});
export const contractsPage = pagedResponse(contractView);
export const contractListQuery = pagingQuery.extend(companyQuery.shape).extend({
  estado: z.enum(contractStates).optional(),
  idCliente: positiveInt4.optional(),
  idExterno: z.string().max(200).optional(),
});

const lateUsage = z.enum(['marcar', 'automatica']).describe('Usage accepted for a period already closed (its event answer says `periodoCerrado`): `marcar` (default) only marks the period (`usoTardio` in GET /contracts/{id}/periods) and leaves the correction to you (POST .../correct); `automatica` also corrects it (debit/credit note referencing its CFE) when the contract\'s next period closes.');
export const settingsBody = z.object({
  graciaHoras: z.number().int().min(0).max(24 * 31).optional().describe('Hours after a contract\'s period ends during which its late events are still accepted (the period is the contract\'s own, anchored on its diaAncla). Left out: unchanged (default USAGE_GRACE_HOURS).'),
  usoTardio: lateUsage.optional().describe('Left out: unchanged (default marcar).'),
});
export const settingsView = z.object({ idEmpresa: z.number().int(), graciaHoras: z.number().int(), usoTardio: lateUsage });

export const eventsDescription = `A batch of up to ${MAX_BATCH} usage events. Each element: \`idTransaccion\` (string ≤ 200, the dedup key per company, kept ≥ 35 days), \`idContrato\` (number) **or** \`idExternoContrato\` (string), \`metrica\` (code), \`fechaHora\` (RFC 3339 with offset), \`propiedades\` (object of string, number or boolean values; decimals as strings, e.g. \`"12.5"\`; a JSON number with more than 15 significant digits is refused).

Each event is judged on its own and reported in \`resultados\` by index: \`aceptado\`, \`duplicado\` (same idTransaccion and content: a harmless retry), \`conflicto\` (same idTransaccion, other content: not counted) or \`rechazado\` with \`codigo\` (${rejectionReasons.join(', ')}). A rejected event does not reserve its idTransaccion. HTTP 200 when every event was accepted or a duplicate, 207 when at least one was refused; never all-or-nothing. More than ${MAX_BATCH} events: 400 USO_LOTE_EXCEDIDO and nothing is stored. Events are accepted from the start of the contract's period (anchored on its terms' diaAncla, calendar months without terms, America/Montevideo) that was open \`graciaHoras\` ago (see /api/v1/usage-settings) up to 5 minutes in the future, and inside the contract's inicio/fin while it meters: \`activo\`, \`en_advertencia\` or \`suspendido\` (a suspension still meters: its events are counted and billed at the period's close, see POST /api/v1/contracts/{id}/suspender); \`borrador\`, \`cancelado\` and \`finalizado\` refuse them with \`contrato_no_vigente\`. An accepted event that falls in a period already closed says so (\`periodoCerrado\`).`;

export const eventsBody = z.object({
  idEmpresa: positiveInt4.optional().describe('Company; needed when the caller has access to more than one company.'),
  eventos: z.array(z.unknown()).min(1).describe('Events, validated one by one (see the operation description).').meta({
    example: [{ idTransaccion: 'evt-0001', idExternoContrato: 'CTR-77', metrica: 'api_calls', fechaHora: '2026-03-01T12:00:00-03:00', propiedades: { region: 'norte', bytes: '2048' } }],
  }),
});
export const eventResult = z.object({
  indice: z.number().int(), idTransaccion: z.string().nullable(), estado: z.enum(['aceptado', 'duplicado', 'conflicto', 'rechazado']),
  codigo: z.enum([...rejectionReasons, 'conflicto']).optional(), error: z.string().optional(),
  periodoCerrado: z.literal(true).optional().describe('aceptado only: the event falls in a period of the contract already closed (its CFE issued or being issued). It counts as late usage of that period, which GET /contracts/{id}/periods marks (`usoTardio`); it is billed by a correction note (POST /contracts/{id}/periods/{desde}/correct, or at the next close when /usage-settings usoTardio is automatica).'),
  aviso: z.string().optional().describe('With periodoCerrado: the same in words.'),
});
export const eventsAnswer = z.object({
  resultados: z.array(eventResult), aceptados: z.number().int(), duplicados: z.number().int(), conflictos: z.number().int(), rechazados: z.number().int(),
});

export const usageQuery = z.object({
  start: instant.optional().describe('Range start (ISO 8601 UTC, whole hour, inclusive). Default: start of the current month in America/Montevideo.'),
  end: instant.optional().describe('Range end (exclusive, whole hour). Default: the next whole hour.'),
  group_by: z.string().max(500).optional().describe('Comma-separated property keys, each declared by the metrics queried (≤ 5).'),
  ventana: z.enum(windows).optional().describe('Cut the range in windows of the company zone (America/Montevideo): hora, dia, mes. Default: one window for the whole range.'),
  window: z.enum(['hour', 'day', 'month']).optional().describe('English alias of ventana.'),
  metrica: code.optional().describe('Only this metric of the contract.'),
  formato: z.enum(['json', 'csv']).optional().describe('csv answers text/csv (also with Accept: text/csv). Default json.'),
});
export const usageRow = z.object({
  metrica: z.string(), unidad: z.string(), agregacion: z.enum(aggregations), inicio: z.string(), fin: z.string(),
  grupo: z.record(z.string(), z.string().nullable()).describe('Values of the group_by keys (null: the event did not carry the key).'),
  cantidad: z.string().describe('Decimal string.'),
});
export const usageAnswer = z.object({
  idContrato: z.number().int(), desde: z.string(), hasta: z.string(), ventana: z.enum(windows).nullable(), zona: z.string(), group_by: z.array(z.string()),
  final: z.boolean().describe('true when no event inside the range can still be accepted (the grace after its period ended has run out); false: quantities can still grow.'),
  admiteEventosDesde: z.string().describe('Earliest event time accepted right now.'),
  datos: z.array(usageRow).describe('Windows and groups without usage are omitted.'),
});
