/** Bodies and answers of consultarQr, conciliar and exportarConciliacion (issue 31 points 5, 6). */
import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { calendarDate } from '../../platform/http/dates.js';

const id = z.number().int().positive().max(PG_INT_MAX);

export const consultarQrBody = z.strictObject({
  idEmpresa: id,
  ids: z.array(id).min(1).max(250).describe('Received CFE ids of idEmpresa, 1..250.'),
});

export const consultarQrResult = z.object({
  solicitados: z.array(z.number().int()).describe('Marked `pendiente`; each gets a background check.'),
  noConsultables: z.array(z.number().int()).describe('Stored as rechazado_formato: not a readable CFE, no QR to check.'),
  noEncontrados: z.array(z.number().int()).describe('Missing, or another company\'s.'),
});

export const qrCheck = z.object({
  resultado: z.enum(['pendiente', 'coincide', 'difiere', 'no_encontrado', 'error_consulta']),
  diferencias: z.array(z.object({ campo: z.enum(['monto', 'fecha', 'hash']).or(z.string()), cfe: z.string().nullable(), dgi: z.string().nullable() })),
  dgi: z.record(z.string(), z.string()).nullable().describe('The fields DGI\'s page showed (ruc, tipoCFE, serie, nroCFE, monto, fecha, hash, estado).'),
  detalle: z.string().nullable(),
  intentos: z.number().int(),
  solicitadoEn: z.string(),
  consultadoEn: z.string().nullable(),
}).nullable().describe('DGI\'s QR check (POST consultarQr): null until asked.');

export const conciliarBody = z.strictObject({
  idEmpresa: id,
  desde: calendarDate.describe('First day (YYYY-MM-DD) of the CFE dates (FchEmis) to reconcile.'),
  hasta: calendarDate.describe('Last day, inclusive; at most 366 days after desde.'),
  rutEmisor: z.string().trim().regex(/^\d{12}$/, 'RUT de 12 dígitos.').optional().describe('Only this issuer (DGI\'s RUCEmisor filter).'),
});

const item = z.object({
  categoria: z.enum(['faltante_en_buzon', 'no_registrado_en_dgi', 'diferencia_estado', 'diferencia_monto']),
  rutEmisor: z.string(), tipoCfe: z.number().int(), serie: z.string(), numero: z.number().int(),
  idCfeRecibido: z.number().int().nullable(), estadoLocal: z.string().nullable(), estadoDgi: z.string().nullable(),
  fechaEmision: z.string().nullable().describe('FchEmis of the CFE as received here; null when it never reached the company (faltante_en_buzon: see fechaDgi).'),
  fechaDgi: z.string().nullable().describe('DGI\'s FechaHora for the CFE (when DGI received it), as DGI reports it; null for CFEs DGI does not have (no_registrado_en_dgi).'),
  moneda: z.string().nullable(), montoLocal: z.string().nullable(), montoDgi: z.string().nullable(),
  diferencias: z.array(z.object({ campo: z.string(), local: z.string().nullable(), dgi: z.string().nullable() })),
});

export const reconciliation = z.object({
  id: z.number().int(), idEmpresa: z.number().int(), desde: z.string(), hasta: z.string(), rutEmisor: z.string().nullable(),
  consultasDgi: z.number().int().describe('EFACCONSULTARCFERECIBIDOS calls made (one per window of ≤ 31 days).'),
  cantidadDgi: z.number().int().describe('CFE DGI listed for the company in the period.'),
  cantidadLocal: z.number().int().describe('Received CFE here in the period (not duplicado / rechazado_formato).'),
  conteos: z.object({ faltante_en_buzon: z.number().int(), no_registrado_en_dgi: z.number().int(), diferencia_estado: z.number().int(), diferencia_monto: z.number().int() }),
  items: z.array(item),
  idUsuario: z.number().int().nullable(),
  creadoEn: z.string(),
});

export const reconciliationParams = z.object({ id: z.coerce.number().int().positive().max(PG_INT_MAX) });

export const exportarConciliacionBody = z.strictObject({
  idConciliacion: id.describe('The reconciliation (POST conciliar answers its id).'),
  idEmpresa: id.optional().describe('When given, the reconciliation must belong to it (else 404).'),
});
