/** Request/response schemas of the issued-CFE search, exports, export configuration and charts (issue 7). */
import { z } from 'zod';
import { calendarDate, calendarMonth } from '../../platform/http/dates.js';
import { pagingQuery } from '../../platform/http/paging.js';
import { ACCOUNT_KEYS } from './issued-cfe.accounting.js';
import { EXPORT_COLUMN_KEYS } from './issued-cfe.export-columns.js';
import { companySearchSchema } from './issued-cfe.search.js';

const idEmpresa = z.coerce.number().int().positive();

export const buscarQuery = companySearchSchema.merge(pagingQuery);

export const searchRow = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  idSucursal: z.number().int(),
  idPuntoEmision: z.number().int(),
  tipoCfe: z.number().int(),
  nombreTipoCfe: z.string(),
  serie: z.string(),
  numero: z.number().int(),
  fechaEmision: z.string(),
  fechaFirma: z.string().describe('TmstFirma as signed.'),
  estado: z.string(),
  estadoReceptor: z.string().nullable(),
  receptor: z.object({ tipoDocumento: z.number().int().nullable(), documento: z.string().nullable(), nombre: z.string().nullable() }),
  moneda: z.string(),
  tipoCambio: z.string().nullable(),
  totales: z.object({
    mntNoGrv: z.string().nullable(), mntNetoIvaTasaMin: z.string().nullable(), mntNetoIvaTasaBasica: z.string().nullable(),
    mntIvaTasaMin: z.string().nullable(), mntIvaTasaBasica: z.string().nullable(), mntTotal: z.string().nullable(), mntPagar: z.string().nullable(),
  }),
  codigoSeguridad: z.string(),
});
export type SearchRowView = z.infer<typeof searchRow>;

const columnKey = z.enum(EXPORT_COLUMN_KEYS as [string, ...string[]]);

export const exportExcelBody = companySearchSchema.extend({
  columnas: z.array(columnKey).min(1).max(EXPORT_COLUMN_KEYS.length).optional()
    .describe('Columns for this export only; default: the caller\'s saved configuration for idEmpresa, else the default set.'),
});

export const exportConfigQuery = z.object({
  userId: z.coerce.number().int().positive().optional().describe('Default: the caller.'),
  idEmpresa: idEmpresa.optional().describe('Company scope; without it, the user\'s configuration for every company.'),
});

export const exportConfigBody = z.object({
  userId: z.number().int().positive().optional().describe('Default: the caller.'),
  idEmpresa: idEmpresa.optional(),
  columnas: z.array(columnKey).min(1).max(EXPORT_COLUMN_KEYS.length).refine((a) => new Set(a).size === a.length, 'Columnas repetidas.'),
});

export const exportConfigResponse = z.object({
  userId: z.number().int(),
  idEmpresa: z.number().int().nullable(),
  columnas: z.array(z.string()),
  predeterminada: z.boolean().describe('true = nothing saved for this scope: the default columns.'),
  catalogo: z.array(z.object({ clave: z.string(), titulo: z.string(), tipo: z.string() })),
});

export const accountingBody = companySearchSchema;

export const accountsQuery = z.object({ idEmpresa });
export const accountsBody = z.object({
  idEmpresa,
  cuentas: z.object(Object.fromEntries(ACCOUNT_KEYS.map((k) => [k, z.string().trim().min(1).max(40).optional()])) as Record<string, z.ZodOptional<z.ZodString>>).strict(),
});
export const accountsResponse = z.object({
  idEmpresa: z.number().int(),
  cuentas: z.array(z.object({ clave: z.string(), codigo: z.string(), nombre: z.string(), codigoPredeterminado: z.string() })),
});

export const dailyChartQuery = z.object({ idEmpresa, desde: calendarDate.optional(), hasta: calendarDate.optional() });
export const monthlyChartQuery = z.object({ idEmpresa, desde: calendarMonth.optional(), hasta: calendarMonth.optional() });

export const chartResponse = z.object({
  idEmpresa: z.number().int(),
  agrupacion: z.enum(['dia', 'mes']),
  desde: z.string(),
  hasta: z.string(),
  zonaHoraria: z.string(),
  etiquetas: z.array(z.string()),
  cantidad: z.array(z.number().int()),
  montoUYU: z.array(z.string()),
  porMoneda: z.array(z.object({ moneda: z.string(), cantidad: z.array(z.number().int()), monto: z.array(z.string()) })),
  porTipo: z.array(z.object({ tipoCfe: z.number().int(), nombreTipoCfe: z.string(), cantidad: z.array(z.number().int()), montoUYU: z.array(z.string()) })),
});
