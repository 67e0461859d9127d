import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { pagingQuery } from '../../platform/http/paging.js';
import { PDF_FORMATOS } from '../cfe-documents/cfe-documents.render.js';
import { RECEIVED_STATES, receivedSearchFilters, receivedSort } from './received-cfe.search.js';
import { qrCheck } from './received-cfe.dgi-checks.schemas.js';

const id = z.number().int().positive().max(PG_INT_MAX);

const SIN_SOBRE = 'true: a lone CFE uploaded without its envelope; this record stands for the envelope (no Idemisor, no ACKSobre; decisions answered by ACKCFE with IDEmisor 0).';

export const importBody = z.strictObject({
  idEmpresa: id,
  xml: z.string().min(1).max(3_000_000).describe('The document as received: an EnvioCFE_entreEmpresas envelope (up to 2 MB, S07 beyond) or one signed CFE.'),
  emailRespuesta: z.string().email().max(254).nullish().describe('Where our signed answers (ACKSobre, ACKCFE) go. Without it they are stored and downloadable only.'),
  nombreArchivo: z.string().max(200).nullish().describe('The file name as received (Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml), used as NomArch of the answers.'),
});

const motive = z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullish() });
const stockRecord = z.object({
  referencia: z.string().describe('The external stock document that took the purchase in.'),
  lineas: z.array(z.object({ nroLinea: z.number().int(), cantidad: z.string() })).describe('Per-line quantities given, or empty.'),
  fecha: z.string(),
  idUsuario: z.number().int().nullable(),
}).nullable().describe('marcarComoImportadoStock: null until the purchase is taken into stock.');

const check = z.object({ control: z.string(), ok: z.boolean(), codigo: z.string().optional(), detalle: z.string().optional() });

export const receivedCfe = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  secuencia: z.number().int().describe('Increasing per company in commit order, without gaps: read "everything since N".'),
  canal: z.enum(['correo', 'importacion']),
  sobre: z.object({ id: z.number().int(), rutEmisor: z.string().nullable(), idEmisor: z.number().int().nullable(), fecha: z.string().nullable(), cantidadCfe: z.number().int().nullable(), estado: z.enum(['AS', 'BS']), sinSobre: z.boolean().describe(SIN_SOBRE), nroOrdinal: z.number().int().nullable(), verificaciones: z.array(check).describe('The envelope\'s checks (tamano, formato, xsd_sobre, rut_receptor, cantidad, certificado, confianza_certificado, rut_emisor_cfe, certificado_cfe).') }).nullable(),
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
  estado: z.enum(RECEIVED_STATES),
  motivos: z.array(motive),
  vencimientoRespuesta: z.string().nullable().describe('Date by which the company means to decide (company setting plazoRespuestaCfeRecibidoDias; DGI sets no deadline, BRIEF 8).'),
  decididoEn: z.string().nullable(),
  idRespuesta: z.number().int().nullable().describe('The ACKCFE that carried our answer for this CFE.'),
  recibidoEn: z.string(),
  importadoStock: stockRecord,
});

/** One of our signed answers to the issuer, with where to download it (issue 42 point 3). */
export const answerRef = z.object({
  id: z.number().int().describe('Answer id (= its IDRespuesta).'),
  tipo: z.enum(['ACKSobre', 'ACKCFE']),
  archivo: z.string(),
  estado: z.string().describe('pendiente (e-mail queued), enviado, error (attempts used up or refused by the server; see ultimoError), sin_destino (no address: download it), sin_certificado (unsigned: the company has no active certificate).'),
  email: z.string().nullable(),
  enviadoEn: z.string().nullable(),
  transporte: z.string().nullable().describe('How the e-mail left: empresa (its correoSaliente), servicio (SMTP_URL) or outbox (no SMTP: only written to DATA_DIR/outbox).'),
  ultimoError: z.string().nullable(),
  enlace: z.string().describe('GET path of the signed XML: /api/v1/cferecibido/respuesta/{id}.'),
});

export const receivedCfeDetail = receivedCfe.extend({
  historial: z.array(z.object({ estado: z.string(), motivos: z.array(motive).nullable(), mensaje: z.string().nullable(), idUsuario: z.number().int().nullable(), fecha: z.string() })),
  consultaQr: qrCheck,
  respuestas: z.array(answerRef),
});

export const importResult = z.object({
  sobre: z.object({ id: z.number().int(), estado: z.enum(['AS', 'BS']), motivos: z.array(motive), repetido: z.boolean().describe('true: these exact bytes were already received; nothing new was stored or answered.'), sinSobre: z.boolean().describe(SIN_SOBRE) }).nullable(),
  cfes: z.array(receivedCfe),
  respuestas: z.array(answerRef).describe('Our signed answers for this envelope so far (the ACKSobre, and an ACKCFE BE for CFEs refused at intake), refused envelopes included; each downloadable at `enlace`. A lone CFE (sinSobre) has none until it is decided.'),
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

/** GET /api/v1/cferecibido/buscar (issue 31 point 1). */
export const searchQuery = z.object({ idEmpresa: positiveInt4 }).merge(receivedSearchFilters).merge(receivedSort).merge(pagingQuery);

export const searchRow = z.object({
  id: z.number().int(), idEmpresa: z.number().int(), secuencia: z.number().int(), canal: z.enum(['correo', 'importacion']),
  rutEmisor: z.string().nullable(), razonSocialEmisor: z.string().nullable(), tipoCfe: z.number().int().nullable(),
  serie: z.string().nullable(), numero: z.number().int().nullable(), fechaEmision: z.string().nullable(),
  moneda: z.string().nullable(), tipoCambio: z.string().nullable(), mntTotal: z.string().nullable(), mntPagar: z.string().nullable(),
  estado: z.enum(RECEIVED_STATES), motivos: z.array(motive), vencimientoRespuesta: z.string().nullable(),
  decididoEn: z.string().nullable(), recibidoEn: z.string(), importadoStock: stockRecord,
});

/** GET /api/v1/cferecibido/representacionImpresa (issue 31 point 2). */
export const printedQuery = z.object({
  idCfe: z.coerce.number().int().positive().max(PG_INT_MAX).describe('Received CFE id.'),
  formato: z.enum(PDF_FORMATOS).default('A4').describe('`A4` (default) or `ticket80` (80 mm roll).'),
});

/** POST /api/v1/cferecibido/marcarComoImportadoStock/{id} (issue 31 point 4). */
export const stockBody = z.strictObject({
  idEmpresa: id.optional().describe('When given, the CFE must belong to it (else 404).'),
  referencia: z.string().trim().min(1).max(100).describe('The external stock document (receipt, entry number) that took the purchase in.'),
  lineas: z.array(z.strictObject({
    nroLinea: z.number().int().min(1).max(9999).describe('NroLinDet of the CFE line.'),
    cantidad: z.string().regex(/^\d{1,14}(\.\d{1,3})?$/, 'Cantidad como texto decimal positivo, hasta 3 decimales.').refine((v) => Number(v) > 0, 'debe ser mayor que 0').describe('Quantity taken in, decimal string (up to 3 decimals, like DGI\'s Cantidad).'),
  })).min(1).max(700).optional().describe('Per-line quantities; without it the whole CFE was taken in.'),
});

export const stockResult = z.object({
  id: z.number().int(),
  importadoStock: stockRecord.unwrap(),
  repetido: z.boolean().describe('true: the same referencia was already recorded; nothing changed.'),
});
