/**
 * Streams a ZIP of entries (e.g. the PDFs and XMLs of a period) into a Writable. Entries are pulled
 * from the iterable one at a time: the next is read only after archiver has taken the previous
 * one, so memory holds one entry, never the whole archive. archiver 8 is ESM-only (STACK 6).
 */
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ZipEntry {
  /** Path inside the archive, '/'-separated. */
  name: string;
  content: Buffer | Readable;
  date?: Date;
}

export interface ZipResult {
  entries: number;
  /** Compressed bytes written. */
  bytes: number;
}

/** Writes every entry of `entries` into a ZIP on `out`; resolves when `out` has finished. */
export async function streamZip(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>, out: Writable, options: { level?: number } = {}): Promise<ZipResult> {
  // Loaded on first use (see ARCHITECTURE, memory).
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: options.level ?? 6 } });
  const written = pipeline(zip, out);
  let count = 0;
  let failure: unknown;
  zip.on('error', (err) => {
    failure = err;
  });
  try {
    for await (const entry of entries) {
      if (failure) break;
      const taken = new Promise<void>((resolve, reject) => {
        const onEntry = () => {
          zip.off('error', onError);
          resolve();
        };
        const onError = (err: Error) => {
          zip.off('entry', onEntry);
          reject(err);
        };
        zip.once('entry', onEntry);
        zip.once('error', onError);
      });
      zip.append(entry.content, { name: entry.name, date: entry.date });
      await taken;
      count += 1;
    }
    if (failure) throw failure;
    await zip.finalize();
  } catch (err) {
    // Fails the pipeline, so `out` sees the error too instead of a truncated archive.
    zip.destroy(err instanceof Error ? err : new Error(String(err)));
    await written.catch(() => undefined);
    throw err;
  }
  await written;
  return { entries: count, bytes: zip.pointer() };
}
