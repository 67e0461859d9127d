import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { REPORT_STATES } from './daily-report.tables.js';

const fecha = calendarDate;

export const ESTADOS_REPORTE = REPORT_STATES;

export const listQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive(),
  fechaDesde: fecha.optional().describe('FechaResumen from (inclusive), YYYY-MM-DD'),
  fechaHasta: fecha.optional().describe('FechaResumen to (inclusive), YYYY-MM-DD'),
  estado: z.enum(ESTADOS_REPORTE).optional(),
});
export const idParams = z.object({ id: z.coerce.number().int().positive() });
export const regenerateBody = z.object({
  idEmpresa: z.number().int().positive(),
  fecha: fecha.describe('FechaResumen: the day whose signed CFEs are reported (before today, Uruguay time).'),
});

export const reportView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  fechaResumen: z.string(),
  secEnvio: z.number().int().describe('SecEnvio: 1, then the last accepted + 1 for each correction.'),
  estado: z.enum(ESTADOS_REPORTE),
  origen: z.enum(['cron', 'manual']),
  cantComprobantes: z.number().int().describe('CantComprobantes: Σ CantDocsUtil + Σ CantCFCEmi.'),
  resumen: z.array(z.record(z.string(), z.number())).describe('Per Rsmn block: tipoComp and cantDocsUtil/cantDocsAnulados/cantDocsEmi, or cantCfcEmi for contingency (2xx) blocks.'),
  tmstFirmaEnv: z.string(),
  nombreArchivo: z.string().describe('Rep_<RUC>_<AAAAMMDD>_<SecEnvio>.xml'),
  estadoDgi: z.string().nullable().describe('ACKRepDiario Estado: AR, BR or BA; null before DGI answered.'),
  motivos: z.array(z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullable() })).describe('R01-R06 when rejected.'),
  idReceptorDgi: z.string().nullable(),
  intentos: z.number().int(),
  ultimoError: z.string().nullable(),
  creadoEn: z.string(),
  enviadoEn: z.string().nullable().describe('When the last send attempt started; null before the first.'),
  xml: z.string().optional().describe('The signed Reporte (GET by id only).'),
  ackXml: z.string().nullable().optional().describe('DGI\'s signed ACKRepDiario (GET by id only).'),
});
export const reportsPage = pagedResponse(reportView);
