/** Printed representation of CFEs (issue 7): pure PDF rendering, A4 and 80 mm ticket. */
export { endToBuffer, renderCfePdf, renderCfePdfToStream } from './render.ts';
export { buildCfeView, mentionsIva, PREVIEW_TEXT, type CfePdfInput, type CfePdfOptions, type CfeView, type PdfFormato } from './view.ts';
export { currencySymbol, formatCantidad, formatFecha, formatFechaHora, formatMonto, formatNumber, formatPrecio, formatTasa } from './format.ts';
