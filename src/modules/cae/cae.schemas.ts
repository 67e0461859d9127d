import { z } from 'zod';
import { flag01, pagedResponse, pagingQuery } from '../../platform/http/paging.js';

const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'formato AAAA-MM-DD');
const idEmpresa = z.coerce.number().int().positive().describe('Company id');

export const caeRangeView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  idSucursal: z.number().int().nullable().describe('Branch the range is reserved for; null = whole company'),
  tipoCfe: z.number().int().describe('TCFE, e.g. 101 e-Ticket, 111 e-Factura'),
  serie: z.string(),
  desde: z.number().int().describe('DNro'),
  hasta: z.number().int().describe('HNro'),
  numeroCae: z.string().describe('NA, 11 digits'),
  fechaAutorizacion: z.string().describe('FA'),
  fechaVencimiento: z.string().describe('FVD'),
  caeEspecial: z.number().int().nullable(),
  causalCaeEspecial: z.number().int().nullable(),
  origen: z.enum(['xml', 'manual']),
  proximoNumero: z.number().int().nullable().describe('Next number to hand out; null when exhausted or voided'),
  utilizados: z.number().int().describe('Numbers handed out and not voided'),
  anulados: z.number().int().describe('Numbers voided (adjustments, voiding, DGI rejections)'),
  disponibles: z.number().int().describe('Numbers still usable (0 when expired or voided)'),
  vencido: z.boolean(),
  anulado: z.boolean(),
  estado: z.enum(['vigente', 'agotado', 'vencido', 'anulado']),
});
export const caeRangesPage = pagedResponse(caeRangeView);

export const listQuery = pagingQuery.extend({
  idEmpresa,
  tipoCfe: z.coerce.number().int().optional(),
  serie: z.string().max(2).optional(),
  vencidos: flag01.optional().describe('1: only expired ranges; 0: only ranges not expired; omitted: all'),
});
export const companyQuery = z.object({ idEmpresa });

export const importXmlBody = z.object({
  idEmpresa: z.number().int().positive(),
  xml: z.string().min(1).describe('The CAE file exactly as downloaded from DGI'),
  idSucursal: z.number().int().positive().nullable().optional(),
});
export const validateBody = z.object({
  idEmpresa: z.number().int().positive().optional().describe('When given, RucE is also compared with the company RUT'),
  xml: z.string().min(1),
});
export const validateResult = z.object({
  valido: z.boolean(),
  problemas: z.array(z.object({ codigo: z.string(), mensaje: z.string() })),
  advertencias: z.array(z.string()),
  datos: z
    .object({
      rucE: z.string(), tipoCfe: z.number(), serie: z.string(), dNro: z.number(), hNro: z.number(), ta: z.string().optional(), na: z.string(),
      fa: z.string(), fvd: z.string(), caeEspecial: z.number().optional(), causalCaeEsp: z.number().optional(), tmstFrma: z.string().optional(),
    })
    .nullable(),
  firmante: z.object({ subject: z.string(), issuer: z.string(), serialNumber: z.string(), notBefore: z.string(), notAfter: z.string() }).nullable(),
});

export const manualBody = z.object({
  idEmpresa: z.number().int().positive(),
  tipoCfe: z.number().int().min(100).max(999),
  serie: z.string().regex(/^[A-Z]{1,2}$/, 'una o dos letras mayúsculas'),
  desde: z.number().int().positive(),
  hasta: z.number().int().positive(),
  numeroCae: z.string().regex(/^\d{11}$/, '11 dígitos'),
  fechaAutorizacion: ymd,
  fechaVencimiento: ymd,
  caeEspecial: z.number().int().min(1).max(4).optional(),
  causalCaeEspecial: z.number().int().min(0).max(999).optional(),
  idSucursal: z.number().int().positive().nullable().optional(),
});

export const setBranchBody = z.object({ idCae: z.number().int().positive(), idSucursal: z.number().int().positive().nullable().describe('null: the range serves the whole company') });
export const adjustBody = z.object({ idCae: z.number().int().positive(), proximoNumero: z.number().int().positive() });
export const annulBody = z.object({ idCae: z.number().int().positive() });

export const availabilityItem = z.object({
  tipoCfe: z.number().int(),
  serie: z.string(),
  rangosVigentes: z.number().int(),
  numerosDisponibles: z.number().int(),
  fechaVencimiento: z.string().describe('Latest expiry among the usable ranges'),
  usoUltimos30Dias: z.number().int(),
  fechaEstimadaAgotamiento: z.string().nullable().describe('At the last 30 days pace (capped at expiry); null without usage'),
});
export const availabilityResult = z.array(availabilityItem);
