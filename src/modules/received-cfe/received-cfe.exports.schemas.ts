/** Bodies and answers of the received CFEs' exports (issue 31 point 3). */
import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { PDF_FORMATOS } from '../cfe-documents/cfe-documents.render.js';
import { RECEIVED_EXPORT_COLUMN_KEYS } from './received-cfe.export-columns.js';
import { receivedSearchFilters, receivedSort } from './received-cfe.search.js';

const idEmpresa = z.number().int().positive().max(PG_INT_MAX);
const columnKey = z.enum(RECEIVED_EXPORT_COLUMN_KEYS as [string, ...string[]]);

/** The search's filters and sort as a JSON body (importadoStock a boolean there, not the query's 'true'/'false'). */
const searchBody = z.strictObject({
  idEmpresa,
  ...receivedSearchFilters.shape,
  importadoStock: z.boolean().optional().describe('`true`: taken into stock; `false`: not yet.'),
  ...receivedSort.shape,
});

export const excelBody = searchBody.extend({
  columnas: z.array(columnKey).min(1).max(RECEIVED_EXPORT_COLUMN_KEYS.length).refine((a) => new Set(a).size === a.length, 'Columnas repetidas.').optional()
    .describe('Column keys in order; without it, the caller\'s saved configuration (getConfiguracionExportacionCfe), else the default set.'),
});

export const zipBody = searchBody.extend({
  formato: z.enum(PDF_FORMATOS).default('A4').describe('`A4` (default) or `ticket80`.'),
  incluirXml: z.boolean().default(true).describe('Add each signed XML as received under xml/ (default true).'),
});

export const exportConfigQuery = z.object({
  userId: z.coerce.number().int().positive().max(PG_INT_MAX).optional().describe('Default: the caller.'),
  idEmpresa: z.coerce.number().int().positive().max(PG_INT_MAX).optional().describe('Company scope; without it, the user\'s configuration for every company.'),
});

export const exportConfigBody = z.strictObject({
  userId: z.number().int().positive().max(PG_INT_MAX).optional().describe('Default: the caller.'),
  idEmpresa: idEmpresa.optional(),
  columnas: z.array(columnKey).min(1).max(RECEIVED_EXPORT_COLUMN_KEYS.length).refine((a) => new Set(a).size === a.length, 'Columnas repetidas.'),
});

/** The same shape as the issued side's configuration (one contract for both exports). */
export { exportConfigResponse } from '../issued-cfe/issued-cfe.reports.schemas.js';
