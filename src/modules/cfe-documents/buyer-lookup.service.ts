/**
 * The buyer's public receipt lookup (issue 47 point 3; BRIEF 13: issuers publish their e-Tickets for
 * buyers). Whoever holds the printed receipt (or the mail) has the issuer's RUT, type, serie, number,
 * date and security code (the first 6 characters of the signature's DigestValue, BRIEF 4): with all of
 * them the PDF and the signed XML are served. Any mismatch, malformed value, unknown company, other
 * company's receipt or receipt DGI rejected (voided, BRIEF 10) is the one same "not found": the answer
 * never tells which field was wrong, so it cannot be used to enumerate receipts or companies.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { issuedCfeFileBase } from '../issued-cfe/issued-cfe.read.js';
import type { PdfFormato } from '../documents/pdf/index.js';
import { cfeDocumentsErrors as E } from './cfe-documents.errors.js';
import type { CfeDocumentsPorts } from './cfe-documents.ports.js';
import { renderIssuedCfe } from './cfe-documents.render.js';

/** What the buyer types (or the link carries). Parsed leniently: a bad value is just "not found". */
export const buyerQuery = z.object({
  tipo: z.coerce.number().int().min(101).max(299),
  serie: z.string().trim().toUpperCase().regex(/^([A-Z]{1,2}|[1-9][A-Z])$/),
  numero: z.coerce.number().int().min(1).max(9_999_999),
  fecha: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  codigo: z.string().trim().length(6),
});
export type BuyerQuery = z.infer<typeof buyerQuery>;

const RUT = /^\d{12}$/;

function sameCode(stored: string, given: string): boolean {
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createBuyerLookup(deps: { ports: CfeDocumentsPorts }) {
  const { ports } = deps;

  async function find(rut: string, raw: unknown) {
    const q = buyerQuery.safeParse(raw);
    if (!RUT.test(rut) || !q.success) throw E.CONSULTA_NO_ENCONTRADA();
    const row = await ports.issued.forBuyer({ rut, tipoCfe: q.data.tipo, serie: q.data.serie, numero: q.data.numero, fechaEmision: q.data.fecha });
    // The code is compared even when nothing matched, so both paths cost about the same.
    const codeOk = sameCode(row?.codigoSeguridad ?? '\u0000\u0000\u0000\u0000\u0000\u0000', q.data.codigo);
    if (!row || !codeOk || row.estado === 'rechazado') throw E.CONSULTA_NO_ENCONTRADA();
    return row;
  }

  return {
    /** The receipt's identity for the result page (what the buyer already typed, nothing more). */
    async check(rut: string, raw: unknown) {
      const row = await find(rut, raw);
      return { tipoCfe: row.tipoCfe, serie: row.serie, numero: row.numero, fechaEmision: row.fechaEmision, moneda: row.moneda, fileBase: issuedCfeFileBase(row) };
    },
    async pdf(rut: string, raw: unknown, formato: PdfFormato = 'A4') {
      const row = await find(rut, raw);
      const profile = await ports.printingProfile(row.companyId, row.branchId);
      return { pdf: await renderIssuedCfe(row, profile, formato), fileName: `${issuedCfeFileBase(row)}.pdf` };
    },
    async xml(rut: string, raw: unknown) {
      const row = await find(rut, raw);
      return { xml: row.xml, fileName: `${issuedCfeFileBase(row)}.xml` };
    },
  };
}

export type BuyerLookup = ReturnType<typeof createBuyerLookup>;
