/**
 * Printed representation, preview and ZIP of issued CFEs (issue 7 points 2-4). No HTTP here:
 * routes pass the actor and an output stream. E-mail lives in cfe-documents.mail.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { renderCfePdf, type PdfFormato } from '../documents/pdf/index.js';
import { streamZip, type ZipEntry, type ZipResult } from '../documents/zip.js';
import { issuedCfeFileBase } from '../issued-cfe/issued-cfe.read.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import { filterProblems, type SearchFilters, type Sort } from '../issued-cfe/issued-cfe.search.js';
import { cfeDocumentsErrors as E } from './cfe-documents.errors.js';
import type { CfeDocumentsPorts } from './cfe-documents.ports.js';
import { renderIssuedCfe } from './cfe-documents.render.js';
import * as repo from './cfe-documents.repository.js';

/** Preview tokens live 15 minutes (long enough to open the link, short enough not to pile up). */
export const PREVIEW_TTL_MINUTES = 15;

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function createCfeDocumentsService(deps: { db: Db; ports: CfeDocumentsPorts }) {
  const { db, ports } = deps;

  return {
    /** GET /api/v1/cfeemitido/representacionImpresa: the PDF of a stored CFE (role lectura). */
    async printed(actor: Actor, idCfe: number, formato: PdfFormato) {
      const row = await ports.issued.visible(actor, idCfe, 'lectura');
      const profile = await ports.printingProfile(row.companyId, row.branchId);
      const pdf = await renderIssuedCfe(row, profile, formato);
      return { pdf, fileName: `${issuedCfeFileBase(row)}.pdf` };
    },

    /**
     * POST /api/v1/comprobante/previsualizar: the would-be CFE, prepared exactly as emitir does up to
     * numbering, rendered with the preview stamp and stored under a random token (only its hash is kept).
     */
    async createPreview(actor: Actor, body: IssueCfeBody, formato: PdfFormato) {
      const { cfe, branchId } = await ports.prepareDraft(body);
      const profile = await ports.printingProfile(body.idEmpresa, branchId);
      const pdf = await renderCfePdf(
        { cfe, preview: true, logo: profile?.logo, sitioWebVerificacion: profile?.urlVerificacion, resolucion: profile?.resolucion, adenda: body.cfe.adenda },
        { formato },
      );
      const token = randomBytes(24).toString('base64url');
      const expiresAt = new Date(Date.now() + PREVIEW_TTL_MINUTES * 60_000);
      await repo.insertPreview(db, { tokenHash: sha256(token), companyId: body.idEmpresa, userId: actor.userId, formato, pdf, expiresAt });
      return { token, url: `/api/v1/comprobante/previsualizar/${token}`, formato, expiraEn: expiresAt.toISOString(), bytes: pdf.length };
    },

    /** GET /api/v1/comprobante/previsualizar/{token}: any user of the preview's company (role lectura). */
    async previewPdf(actor: Actor, token: string) {
      const row = await repo.findPreview(db, sha256(token));
      if (!row) throw E.PREVISUALIZACION_NO_ENCONTRADA();
      assertCompanyRole(actor, row.companyId, 'lectura', () => E.PREVISUALIZACION_NO_ENCONTRADA());
      if (row.expiresAt.getTime() < Date.now()) throw E.PREVISUALIZACION_EXPIRADA();
      return { pdf: row.pdf, fileName: `vista-previa-${row.formato}.pdf` };
    },

    /** Cron: drops expired previews. */
    purgePreviews: () => repo.purgePreviews(db),

    /** Checks the filters before the response starts (afterwards an error can only cut the stream). */
    checkZipRequest(filters: SearchFilters) {
      const problems = filterProblems(filters);
      if (problems.length) throw E.FILTROS_INVALIDOS(problems.join(' '));
    },

    /**
     * POST /api/v1/cfeemitido/descargarPdfsFiltrados: a ZIP with one PDF (and the signed XML) per
     * matching CFE, streamed into `out`. Rows come keyset-paged; one PDF is rendered ahead of the
     * one being compressed, so memory holds a chunk of rows and two PDFs, never the archive.
     */
    async zip(companyId: number, request: { filters: SearchFilters; sort: Sort; formato: PdfFormato; incluirXml: boolean }, out: Writable): Promise<ZipResult> {
      const profile = await ports.printingProfile(companyId);
      const branchProfiles = new Map<number, Awaited<ReturnType<typeof ports.printingProfile>>>();
      const profileOf = async (branchId: number) => {
        if (!branchProfiles.has(branchId)) branchProfiles.set(branchId, await ports.printingProfile(companyId, branchId));
        return branchProfiles.get(branchId) ?? profile;
      };
      async function* entries(): AsyncGenerator<ZipEntry> {
        let pending: Promise<ZipEntry[]> | undefined;
        const build = async (row: { xml?: string; adenda: string | null; branchId: number; tipoCfe: number; serie: string; numero: number; firmadoEn: Date }) => {
          const base = issuedCfeFileBase(row);
          const pdf = await renderIssuedCfe({ xml: row.xml!, adenda: row.adenda }, await profileOf(row.branchId), request.formato);
          const list: ZipEntry[] = [{ name: `pdf/${base}.pdf`, content: pdf, date: row.firmadoEn }];
          if (request.incluirXml) list.push({ name: `xml/${base}.xml`, content: Buffer.from(row.xml!, 'utf8'), date: row.firmadoEn });
          return list;
        };
        for await (const row of ports.iterateWithXml(companyId, request.filters, request.sort)) {
          const next = build(row);
          if (pending) yield* await pending;
          pending = next;
          // An unawaited rejection must not crash the process before it is awaited.
          next.catch(() => undefined);
        }
        if (pending) yield* await pending;
      }
      // PDFs are already deflated inside: a light level saves CPU for little size.
      return streamZip(entries(), out, { level: 1 });
    },
  };
}

export type CfeDocumentsService = ReturnType<typeof createCfeDocumentsService>;
