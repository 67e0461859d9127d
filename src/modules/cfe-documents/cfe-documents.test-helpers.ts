/**
 * Test helpers: PDF → text (pdftotext), PDF → PNG (pdftoppm) → QR (jsqr), a loopback SMTP server
 * (smtp-server) that records parsed messages and can refuse recipients with chosen reply codes.
 * poppler-utils is required; a missing tool fails with the Debian package name (never skipped).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { inflateRawSync } from 'node:zlib';

const require = createRequire(import.meta.url);
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const { PNG } = require('pngjs') as { PNG: { sync: { read(buf: Buffer): { data: Buffer; width: number; height: number } } } };

export function requirePoppler(): void {
  for (const tool of ['pdftotext', 'pdftoppm', 'pdfinfo']) {
    if (spawnSync(tool, ['-v']).error) throw new Error(`${tool} not found: apt-get install poppler-utils`);
  }
}

export function writeTemp(buf: Buffer, name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-docs-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, buf);
  return file;
}

export function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', writeTemp(pdf, 'doc.pdf'), '-'], { encoding: 'utf8' });
}

/** Raster images in the PDF (pdfimages -list): the logo; the QR is vector. */
export function pdfImageCount(pdf: Buffer): number {
  const out = execFileSync('pdfimages', ['-list', writeTemp(pdf, 'img.pdf')], { encoding: 'utf8' });
  return out.trim().split('\n').slice(2).filter((l) => l.trim().split(/\s+/)[2] === 'image').length;
}

export function pdfPageSize(pdf: Buffer): { w: number; h: number; pages: number } {
  const out = execFileSync('pdfinfo', [writeTemp(pdf, 'doc.pdf')], { encoding: 'utf8' });
  const m = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(out);
  return { w: Number(m?.[1]), h: Number(m?.[2]), pages: Number(/Pages:\s+(\d+)/.exec(out)?.[1]) };
}

/** Rasterises the bottom-left area of the last page at 150 dpi and decodes the QR found there (BRIEF 4). */
export function decodeQr(pdf: Buffer): string | undefined {
  const file = writeTemp(pdf, 'qr.pdf');
  const { w, h, pages } = pdfPageSize(pdf);
  const px = (pt: number) => String(Math.round((pt / 72) * 150));
  const boxH = Math.min(h, 230);
  const prefix = path.join(path.dirname(file), 'page');
  execFileSync('pdftoppm', ['-r', '150', '-png', '-f', String(pages), '-l', String(pages), '-x', '0', '-y', px(h - boxH), '-W', px(w > 300 ? w / 2 : w), '-H', px(boxH), '-singlefile', file, prefix]);
  const png = PNG.sync.read(fs.readFileSync(`${prefix}.png`));
  return jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data;
}

export interface TestSmtp {
  port: number;
  /** Parsed messages with their SMTP envelope recipients (Bcc shows only there). */
  received: Array<ParsedMail & { rcptTo: string[] }>;
  /** Reply code to give a recipient: a number = always, an array = one per attempt, then accept. */
  refuse: Map<string, number | number[]>;
  close(): Promise<void>;
}

/** With `auth`, AUTH (PLAIN/LOGIN, allowed without TLS on loopback) is required and checked against it. */
export async function startTestSmtp(opts: { auth?: { user: string; pass: string } } = {}): Promise<TestSmtp> {
  const received: TestSmtp['received'] = [];
  const refuse = new Map<string, number | number[]>();
  const server = new SMTPServer({
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) return cb(null, { user: auth.username });
      cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      const rule = refuse.get(address.address);
      const code = Array.isArray(rule) ? rule.shift() : rule;
      if (code) return cb(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
      cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream).then((mail) => {
        received.push(Object.assign(mail, { rcptTo: session.envelope.rcptTo.map((a) => a.address) }));
        cb();
      }, cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, refuse, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Names and contents of a ZIP, read through its central directory (independent of archiver). */
export function readZip(buf: Buffer): Map<string, Buffer> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('no end-of-central-directory record');
  const total = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < total; i += 1) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const [nameLen, extraLen, commentLen] = [buf.readUInt16LE(p + 28), buf.readUInt16LE(p + 30), buf.readUInt16LE(p + 32)];
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(dataStart, dataStart + size);
    out.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** The text of each page of a PDF (pdfinfo for the count, pdftotext page by page). */
export function pdfPageTexts(pdf: Buffer): string[] {
  const file = writeTemp(pdf, 'pages.pdf');
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))?.[1] ?? 0);
  return Array.from({ length: pages }, (_, i) => execFileSync('pdftotext', ['-layout', '-f', String(i + 1), '-l', String(i + 1), file, '-'], { encoding: 'utf8' }));
}

/**
 * The one check every PDF the service serves must pass: at least one page, none of them blank (no
 * text), and `firstPage` on page 1 (a blank first page, as pdfkit's automatic page before an
 * addPage() gives, fails it).
 */
export function assertPdfPages(pdf: Buffer, firstPage: RegExp): void {
  const pages = pdfPageTexts(pdf);
  if (pages.length === 0) throw new Error('the PDF has no page');
  const blank = pages.map((p, i) => (p.trim() === '' ? i + 1 : 0)).filter(Boolean);
  if (blank.length) throw new Error(`blank page(s) ${blank.join(', ')} of ${pages.length}`);
  if (!firstPage.test(pages[0]!)) throw new Error(`page 1 does not show ${firstPage}: ${pages[0]!.slice(0, 300)}`);
}
