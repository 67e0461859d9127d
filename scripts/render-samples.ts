/**
 * `npm run render:samples [-- dir]`: renders the five sample receipts of the printed
 * representation (src/modules/documents/pdf/sample-receipts.ts: one line on credit, thirty lines,
 * export in USD, credit note with references, e-Ticket on 80 mm) to PDF, and to one PNG per page
 * when poppler's pdftoppm is installed, for looking at them by eye. Default dir: ./samples-out.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { renderCfePdf } from '../src/modules/documents/pdf/render.ts';
import { sampleReceipts } from '../src/modules/documents/pdf/sample-receipts.ts';

const dir = path.resolve(process.argv[2] ?? 'samples-out');
fs.mkdirSync(dir, { recursive: true });
const havePdftoppm = !spawnSync('pdftoppm', ['-v']).error;
for (const { name, formato, input } of sampleReceipts()) {
  const file = path.join(dir, `${name}.pdf`);
  fs.writeFileSync(file, await renderCfePdf(input, { formato }));
  if (havePdftoppm) execFileSync('pdftoppm', ['-r', '100', '-png', file, path.join(dir, name)]);
  console.log(`${file}${havePdftoppm ? ' (+ PNG pages)' : ''}`);
}
if (!havePdftoppm) console.log('pdftoppm not found (apt-get install poppler-utils): PDFs only');
