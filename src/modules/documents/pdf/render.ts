/**
 * renderCfePdf: the CFE's printed representation (representación impresa, BRIEF 4) as a PDF,
 * A4 or 80 mm thermal ticket. Pure: no database, no I/O besides the output stream.
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { drawA4 } from './layout-a4.ts';
import { loadStandardFonts } from './fonts.ts';
import { drawTicket } from './layout-ticket.ts';
import { buildCfeView, type CfePdfInput, type CfePdfOptions } from './view.ts';

/** pdfkit, loaded on first use: see ARCHITECTURE, memory (with exceljs, archiver, mailparser and nodemailer ~40 MB of an idle `npm start`). */
export async function pdfkit(): Promise<typeof import('pdfkit')> {
  return (await import('pdfkit')).default;
}

async function createDocument(input: CfePdfInput, options: CfePdfOptions): Promise<PDFKit.PDFDocument> {
  const view = buildCfeView(input);
  const PDFDocument = await pdfkit();
  const doc = new PDFDocument({
    autoFirstPage: false,
    // No default font: loadStandardFonts installs Helvetica and Helvetica-Bold from a shared parse.
    font: null as unknown as string,
    margin: 0,
    compress: true,
    info: { Title: view.title, Author: view.emisor.nombre, Subject: view.preview ? 'Vista previa' : 'Representación impresa de CFE' },
  });
  loadStandardFonts(doc);
  // A logo that cannot be decoded is left out, never fatal; without a callback it is a process warning.
  const onLogoSkipped = options.onLogoSkipped ?? ((problem: string) => process.emitWarning(`CFE PDF ${view.title}: logo omitted: ${problem}`, { code: 'CFE_PDF_LOGO_OMITIDO' }));
  // Drawing happens before the caller ends the document (STACK 6: doc.end() last).
  if (options.formato === 'ticket80') drawTicket(doc, view, input.logo, onLogoSkipped);
  else drawA4(doc, view, input.logo, onLogoSkipped);
  return doc;
}

/** Renders into `out` (a file, an HTTP response, an upload stream); resolves when `out` has finished. */
export async function renderCfePdfToStream(input: CfePdfInput, options: CfePdfOptions, out: Writable): Promise<void> {
  const doc = await createDocument(input, options);
  const done = pipeline(doc, out);
  doc.end();
  await done;
}

/** Renders the whole PDF into memory. */
export async function renderCfePdf(input: CfePdfInput, options: CfePdfOptions): Promise<Buffer> {
  return endToBuffer(await createDocument(input, options));
}

/** Ends a drawn pdfkit document and resolves with its bytes (other printed documents use it too). */
export function endToBuffer(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.end();
  return done;
}
