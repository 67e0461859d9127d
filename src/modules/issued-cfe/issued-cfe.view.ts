/**
 * The issued-CFE response (spec 4.1 "issued CFE data… plus data for printing and lookup"; field
 * names designed here, documented in the OpenAPI description of emitir). Built from the stored row;
 * the printing block (document data, issuer, receiver, lines, discounts, payments, references) is
 * read back from the signed XML itself, or for emitir taken from what that XML was built from, so
 * what is printed is exactly what was signed.
 */
import { getCfeType, qrPngBase64, totalesInXsdOrder } from '../emission/index.js';
import { printingBlock } from './issued-cfe.printing.js';
import type { Printed } from './issued-cfe.sealed-row.js';
import type { IssuedCfeRow } from './issued-cfe.tables.js';

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/**
 * `sealed`: what emitir has from sealing, the QR image and the CAE and printing blocks of what the
 * XML was built from (equal to reading them back, issued-cfe.printing.test.ts); otherwise all are
 * taken from the stored row and its XML.
 */
export async function issuedCfeView(row: IssuedCfeRow, sealed?: { qrPng: string; printed?: Printed }) {
  const printed = sealed?.printed;
  const block = printed?.block ?? printingBlock(row.xml);
  return {
    id: row.id,
    idEmpresa: row.companyId,
    idSucursal: row.branchId,
    idPuntoEmision: row.emissionPointId,
    tipoCfe: row.tipoCfe,
    nombreTipoCfe: getCfeType(row.tipoCfe).name,
    serie: row.serie,
    numero: row.numero,
    fechaEmision: row.fechaEmision,
    fechaFirma: row.tmstFirma,
    estado: row.estado,
    cae: printed?.cae ?? {
      numero: tag(row.xml, 'CAE_ID') ?? null,
      desde: Number(tag(row.xml, 'DNro')),
      hasta: Number(tag(row.xml, 'HNro')),
      fechaVencimiento: tag(row.xml, 'FecVenc') ?? null,
    },
    codigoSeguridad: row.codigoSeguridad,
    hash: row.digestValue,
    urlQr: row.urlQr,
    qrPng: sealed?.qrPng ?? qrPngBase64(row.urlQr),
    moneda: row.moneda,
    tipoCambio: row.tipoCambio,
    totales: totalesInXsdOrder(row.tipoCfe, row.totales as object),
    // Field by field, not spread into this literal: on Node 20's V8 every property after a spread
    // misses its inline cache on every call, and this is built for every emitted receipt.
    idDoc: block.idDoc,
    emisor: block.emisor,
    receptor: block.receptor,
    detalles: block.detalles,
    descuentosRecargos: block.descuentosRecargos,
    mediosPago: block.mediosPago,
    referencias: block.referencias,
    complementoFiscal: block.complementoFiscal,
    adenda: row.adenda,
    idempotencyKey: row.idempotencyKey,
  };
}

export type IssuedCfeView = Awaited<ReturnType<typeof issuedCfeView>>;
