/**
 * The issued-CFE answer (emitir, transcribirContingencia, GET by id) as an OpenAPI schema, so
 * client generators type it. Documentation only: those handlers send the view already serialized
 * (a string payload skips Fastify's response serializer, STACK 4d), and
 * issued-cfe.response.int.test.ts checks real answers against this schema, strictly at the top.
 */
import { z } from 'zod';

const xmlBlock = z.record(z.string(), z.unknown()).describe('Read back from the signed XML, DGI element names (e.g. TipoCFE, RUCEmisor).');
const xmlList = z.array(xmlBlock);

export const issuedCfeResponse = z.object({
  id: z.number().int().describe('Id of the issued CFE (idCfe / idCfeEmitido elsewhere).'),
  idEmpresa: z.number().int(),
  idSucursal: z.number().int().nullable(),
  idPuntoEmision: z.number().int().nullable(),
  tipoCfe: z.number().int().describe('DGI type code (101 e-Ticket, 111 e-Factura, …).'),
  nombreTipoCfe: z.string(),
  serie: z.string(),
  numero: z.number().int(),
  fechaEmision: z.string().describe('FchEmis, YYYY-MM-DD.'),
  fechaFirma: z.string().describe('TmstFirma, the signing instant (ISO 8601 with offset).'),
  estado: z.string().describe('DGI state: firmado, enviado, recibido, aceptado, rechazado, …'),
  cae: z.object({ numero: z.string().nullable(), desde: z.number().int(), hasta: z.number().int(), fechaVencimiento: z.string().nullable() }),
  codigoSeguridad: z.string().describe('First 6 characters of the signature DigestValue, printed on the receipt.'),
  hash: z.string().describe('The signature DigestValue (base64).'),
  urlQr: z.string().describe('DGI consultaQR address printed as the QR code.'),
  qrPng: z.string().describe('The QR code as a base64 PNG.'),
  moneda: z.string(),
  tipoCambio: z.string().nullable(),
  totales: z.record(z.string(), z.unknown()).describe('The Totales block in XSD order (mntTotal, mntPagar, IVA amounts…), decimals as strings.'),
  idDoc: xmlBlock.nullable(),
  emisor: xmlBlock.nullable(),
  receptor: xmlBlock.nullable(),
  detalles: xmlList,
  descuentosRecargos: xmlList,
  mediosPago: xmlList,
  referencias: xmlList,
  complementoFiscal: xmlBlock.nullable(),
  adenda: z.string().nullable(),
  idempotencyKey: z.string().nullable().describe('The Idempotency-Key the CFE was issued under, if any.'),
});

export const issuedCfeDetailResponse = issuedCfeResponse.extend({
  estadoReceptor: z.string().nullable().describe('The receiver\'s answer state (receptor_pendiente, receptor_aceptado, …).'),
  historial: z.array(z.object({
    lado: z.string(), estadoAnterior: z.string().nullable(), estado: z.string(), codigo: z.string().nullable(),
    motivos: z.array(z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullable() })).nullable(),
    mensaje: z.string().nullable(), referencia: z.string().nullable(), idUsuario: z.number().int().nullable(), motivo: z.string().nullable(), fecha: z.string(),
  })).describe('Every state change, oldest first.'),
});
