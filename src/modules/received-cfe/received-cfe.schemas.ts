import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';

const id = z.number().int().positive().max(PG_INT_MAX);

export const importBody = z.strictObject({
  idEmpresa: id,
  xml: z.string().min(1).max(3_000_000).describe('The document as received: an EnvioCFE_entreEmpresas envelope (up to 2 MB, S07 beyond) or one signed CFE.'),
  emailRespuesta: z.string().email().max(254).nullish().describe('Where our signed answers (ACKSobre, ACKCFE) go. Without it they are stored and downloadable only.'),
  nombreArchivo: z.string().max(200).nullish().describe('The file name as received (Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml), used as NomArch of the answers.'),
});

const motive = z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullish() });
const check = z.object({ control: z.string(), ok: z.boolean(), codigo: z.string().optional(), detalle: z.string().optional() });

export const receivedCfe = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  secuencia: z.number().int().describe('Increasing per company in commit order, without gaps: read "everything since N".'),
  canal: z.enum(['correo', 'importacion']),
  sobre: z.object({ id: z.number().int(), rutEmisor: z.string().nullable(), idEmisor: z.number().int().nullable(), fecha: z.string().nullable(), cantidadCfe: z.number().int().nullable(), estado: z.enum(['AS', 'BS']), nroOrdinal: z.number().int().nullable(), verificaciones: z.array(check).describe('The envelope\'s checks (tamano, formato, xsd_sobre, rut_receptor, cantidad, certificado, confianza_certificado, rut_emisor_cfe, certificado_cfe).') }).nullable(),
  rutEmisor: z.string().nullable(),
  razonSocialEmisor: z.string().nullable(),
  tipoCfe: z.number().int().nullable(),
  serie: z.string().nullable(),
  numero: z.number().int().nullable(),
  fechaEmision: z.string().nullable(),
  tmstFirma: z.string().nullable(),
  moneda: z.string().nullable(),
  tipoCambio: z.string().nullable(),
  mntTotal: z.string().nullable(),
  mntPagar: z.string().nullable(),
  datos: z.record(z.string(), z.unknown()).nullable().describe('Zones read from the signed XML: idDoc, emisor, receptor, totales, detalle, referencias, caeData (DGI element names).'),
  adenda: z.string().nullable(),
  verificaciones: z.array(check).describe('Each check of BRIEF 8 and its result: tamano, formato, xsd_sobre, rut_receptor, cantidad, certificado, rut_emisor_cfe, certificado_cfe, xsd_cfe, firma, receptor, duplicado.'),
  estado: z.enum(['pendiente', 'aceptado', 'rechazado', 'rechazado_formato', 'duplicado', 'anulado_emisor']),
  motivos: z.array(motive),
  vencimientoRespuesta: z.string().nullable().describe('Date by which the company means to decide (company setting plazoRespuestaCfeRecibidoDias; DGI sets no deadline, BRIEF 8).'),
  decididoEn: z.string().nullable(),
  idRespuesta: z.number().int().nullable().describe('The ACKCFE that carried our answer for this CFE.'),
  recibidoEn: z.string(),
});

export const receivedCfeDetail = receivedCfe.extend({
  historial: z.array(z.object({ estado: z.string(), motivos: z.array(motive).nullable(), mensaje: z.string().nullable(), idUsuario: z.number().int().nullable(), fecha: z.string() })),
  respuestas: z.array(z.object({ id: z.number().int(), tipo: z.enum(['ACKSobre', 'ACKCFE']), archivo: z.string(), estado: z.string(), email: z.string().nullable(), enviadoEn: z.string().nullable() })),
});

export const importResult = z.object({
  sobre: z.object({ id: z.number().int(), estado: z.enum(['AS', 'BS']), motivos: z.array(motive), repetido: z.boolean().describe('true: these exact bytes were already received; nothing new was stored or answered.') }).nullable(),
  cfes: z.array(receivedCfe),
});

export const idParams = z.object({ id: z.coerce.number().int().positive().max(PG_INT_MAX) });

export const acceptBody = z.strictObject({
  idEmpresa: id,
  ids: z.array(id).min(1).max(250).describe('Received CFE ids, 1..250.'),
});

export const rejectBody = acceptBody.extend({
  motivo: z.strictObject({
    codigo: z.string().regex(/^E\d{2}$/).describe('E20-E26 (commercial: E20 Orden de compra vencida, E21 Mercadería en mal estado, E22 Proveedor inhabilitado, E23 Contraprestación no recibida, E24 Diferencia precios y/o descuentos, E25 Factura con error cálculos, E26 Diferencia con plazos), E27-E60 (agreed between the parties: glosa required), or E02-E07 / E10-E12.'),
    glosa: z.string().trim().min(1).max(50).optional().describe('Required for E27-E60 (Glosa50Type); ignored for the others, whose name is DGI\'s.'),
    detalle: z.string().max(500).optional(),
  }),
});

export const decisionResult = z.object({
  resultados: z.array(z.object({ id: z.number().int(), resultado: z.enum(['hecho', 'ya_decidido', 'no_permitido', 'no_encontrado']), estado: z.string().optional(), mensaje: z.string().optional() })),
  hechos: z.number().int(),
  fallidos: z.number().int().describe('no_permitido + no_encontrado.'),
  repetida: z.boolean().describe('true: replay of an earlier call with the same Idempotency-Key.'),
});
