/**
 * The signed XML of the receipts this process stored and its DGI submission worker has not claimed
 * yet (issue 45). The worker builds each envelope from these strings instead of reading every
 * receipt's XML back out of the TOAST table (~0.03 ms of PostgreSQL per receipt under the lifecycle
 * bench's load, and its ~5 KB on the wire and through pg's parser). An issued CFE's XML never
 * changes, so an entry is either right or missing: the claim still reads each row's byte length
 * (from the TOAST pointer, no detoast) and takes a cached text only when its length agrees, and any
 * receipt without one is read from the database as before (another process stored it, the process
 * restarted, or the cache was full). Only a process that runs the worker keeps one (modules/index.ts).
 */
export interface SealedXmlCache {
  /** After the rows are stored (committed). */
  remember(rows: ReadonlyArray<{ id: number; xml: string }>): void;
  /** The cached XML of those ids, each removed from the cache (a claimed receipt's XML is read once). */
  take(ids: readonly number[]): Map<number, string>;
  /** Characters held (tests, metrics). */
  readonly size: number;
}

/** ~8 MB of XML: the backlog of ~1,700 e-Tickets; an envelope holds up to 250. */
export const SEALED_XML_CACHE_CHARS = 8 * 1024 * 1024;

export function createSealedXmlCache(maxChars = SEALED_XML_CACHE_CHARS): SealedXmlCache {
  // Insertion order is age: when full, the oldest entries go (a backlog the worker is not draining).
  const entries = new Map<number, string>();
  let chars = 0;
  return {
    remember(rows) {
      for (const { id, xml } of rows) {
        if (xml.length > maxChars || entries.has(id)) continue;
        entries.set(id, xml);
        chars += xml.length;
      }
      for (const [id, xml] of entries) {
        if (chars <= maxChars) break;
        entries.delete(id);
        chars -= xml.length;
      }
    },
    take(ids) {
      const out = new Map<number, string>();
      for (const id of ids) {
        const xml = entries.get(id);
        if (xml === undefined) continue;
        entries.delete(id);
        chars -= xml.length;
        out.set(id, xml);
      }
      return out;
    },
    get size() {
      return chars;
    },
  };
}
