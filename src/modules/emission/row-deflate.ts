/**
 * A zlib stream (RFC 1950) with one dynamic-Huffman deflate block (RFC 1951 §3.2.7) for images made
 * of rows that repeat: each distinct scanline is written as literals, its repetitions as one
 * back-reference to the row above, coded with a table fitted once (rowDeflateTable). For the QR's
 * 1-bit PNG (every module row is `scale` identical pixel rows) the result is within ~5 % of zlib
 * level 1's size, and the whole PNG costs ~45 instead of ~67 µs: zlib's per-call setup (a fresh
 * deflate state, its hash tables) was most of its cost on an 8 KB image.
 */

const ADLER_MOD = 65521;

function reverse(code: number, bits: number): number {
  let r = 0;
  for (let i = 0; i < bits; i++) r = (r << 1) | ((code >> i) & 1);
  return r;
}
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

function lastIndexAtMost(table: readonly number[], value: number): number {
  let i = table.length - 1;
  while (table[i] > value) i--;
  return i;
}

/**
 * Rows of an image, each made of tiles: `tiles[id]` is a byte string, and distinct row i is the
 * tiles `ids[first[i]] .. ids[first[i + 1] - 1]` (filter byte included), shown `repeat(i)` times,
 * `stride` bytes long. The ids come precomputed: the encoder's inner loop then reads two typed
 * arrays instead of calling back per row.
 */
export interface RepeatedRows {
  count: number;
  stride: number;
  tiles: readonly Uint8Array[];
  ids: Uint16Array;
  first: Uint32Array;
  repeat(i: number): number;
}

/** The bytes of distinct row `i` (tests and the table fitting). */
export function rowBytes(rows: RepeatedRows, i: number): Uint8Array {
  const line = new Uint8Array(rows.stride);
  let k = 0;
  for (let t = rows.first[i]; t < rows.first[i + 1]; t++) {
    const tile = rows.tiles[rows.ids[t]];
    if (k + tile.length > rows.stride) throw new Error(`row-deflate: row ${i} is longer than ${rows.stride} bytes`);
    line.set(tile, k);
    k += tile.length;
  }
  if (k !== rows.stride) throw new Error(`row-deflate: row ${i} has ${k} bytes, not ${rows.stride}`);
  return line;
}

/** Upper bound of the stream's size: header, literals and length codes of ≤ 15 bits, matches (≤ 43 bits) of ≥ 255 bytes, Adler-32. */
export function rowDeflateBound(rows: RepeatedRows, totalRows: number): number {
  return 400 + 2 * rows.count * rows.stride + 6 * (Math.ceil((totalRows * rows.stride) / 255) + rows.count) + 4 * rows.stride;
}

/** Huffman code lengths (at most `limit` bits) for `freq`; unused symbols get 0. Two-queue merge. */
export function huffmanLengths(freq: ArrayLike<number>, limit: number): Uint8Array {
  const n = freq.length;
  const lengths = new Uint8Array(n);
  let f = Array.from(freq);
  for (;;) {
    const leaves = [];
    for (let i = 0; i < n; i++) if (f[i] > 0) leaves.push(i);
    if (leaves.length === 1) {
      lengths[leaves[0]] = 1;
      return lengths;
    }
    leaves.sort((x, y) => f[x] - f[y] || x - y);
    // Nodes 0..L-1 are the leaves (in order), L.. the merged ones, created in non-decreasing weight.
    const weight = leaves.map((i) => f[i]);
    const parent = new Int32Array(2 * leaves.length - 1).fill(-1);
    let nextLeaf = 0;
    let nextNode = leaves.length;
    const pick = (): number => {
      if (nextLeaf < leaves.length && (nextNode >= weight.length || weight[nextLeaf] <= weight[nextNode])) return nextLeaf++;
      return nextNode++;
    };
    for (let k = leaves.length; k < 2 * leaves.length - 1; k++) {
      const x = pick();
      const y = pick();
      weight.push(weight[x] + weight[y]);
      parent[x] = k;
      parent[y] = k;
    }
    const depth = new Uint8Array(2 * leaves.length - 1);
    let max = 0;
    for (let k = 2 * leaves.length - 3; k >= 0; k--) {
      depth[k] = depth[parent[k]] + 1;
      if (k < leaves.length) max = Math.max(max, depth[k]);
    }
    if (max <= limit) {
      for (let k = 0; k < leaves.length; k++) lengths[leaves[k]] = depth[k];
      return lengths;
    }
    // Too deep: flatten the distribution and build again (rare; zlib rebalances instead).
    f = f.map((v) => (v > 0 ? (v >> 1) | 1 : 0));
  }
}

/** Canonical codes (RFC 1951 §3.2.2) for `lengths`, bit-reversed for the LSB-first stream. */
function canonicalCodes(lengths: Uint8Array): Uint16Array {
  const count = new Uint16Array(16);
  for (const l of lengths) if (l) count[l]++;
  const next = new Uint16Array(16);
  let code = 0;
  for (let bits = 1; bits < 16; bits++) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  const codes = new Uint16Array(lengths.length);
  for (let i = 0; i < lengths.length; i++) if (lengths[i]) codes[i] = reverse(next[lengths[i]]++, lengths[i]);
  return codes;
}

// Order in which the code-length code lengths are sent (RFC 1951 §3.2.7).
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * A dynamic-Huffman code table and its block header (the code lengths), packed LSB first: the
 * whole bytes, then the last `count` (< 8) bits.
 */
export interface DeflateTable {
  litCode: Uint16Array;
  litLen: Uint8Array;
  distCode: Uint16Array;
  distLen: Uint8Array;
  header: { bytes: Uint8Array; bits: number; count: number };
}

/**
 * The matches for `left` repeated bytes (copies of the row above): at most 258 each, never leaving a
 * remainder of 1 or 2, which no match can take; fewer than 3 bytes in all are written as literals.
 */
function repeatMatches(left: number): number[] {
  const lengths: number[] = [];
  while (left >= 3) {
    let len = Math.min(left, 258);
    if (left - len > 0 && left - len < 3) len -= 3;
    lengths.push(len);
    left -= len;
  }
  return lengths;
}

/**
 * A code table fitted to a sample image, with every literal, length and distance code defined so
 * it can encode any image: the PNG of one QR differs from another's only in which bytes appear
 * how often, so one table drawn once gives ~1.3 KB PNGs without building trees per image.
 */
export function rowDeflateTable(sample: RepeatedRows): DeflateTable {
  const litFreq = new Uint32Array(286).fill(1);
  const distFreq = new Uint32Array(30).fill(1);
  const distCode = lastIndexAtMost(DIST_BASE, sample.stride);
  for (let i = 0; i < sample.count; i++) {
    for (const byte of rowBytes(sample, i)) litFreq[byte] += 16;
    for (const len of repeatMatches((sample.repeat(i) - 1) * sample.stride)) {
      litFreq[257 + lastIndexAtMost(LENGTH_BASE, len)] += 16;
      distFreq[distCode] += 16;
    }
  }
  const litLen = huffmanLengths(litFreq, 15);
  const distLen = huffmanLengths(distFreq, 15);
  const bytes: number[] = [];
  let bits = 0;
  let count = 0;
  const put = (value: number, n: number) => {
    bits |= value << count;
    count += n;
    for (; count >= 8; count -= 8, bits >>>= 8) bytes.push(bits & 0xff);
  };
  // The code lengths, run-length coded with 16 (repeat previous 3-6), 17 (3-10 zeros), 18 (11-138
  // zeros); every code is defined here, so only 16 occurs.
  const all = [...litLen, ...distLen];
  const cl: Array<[number, number]> = [];
  for (let i = 0; i < all.length; ) {
    let run = 1;
    while (i + run < all.length && all[i + run] === all[i]) run++;
    cl.push([all[i], 0]);
    i++;
    for (let rest = run - 1; rest >= 3; ) {
      const n = Math.min(rest, 6);
      cl.push([16, n - 3]);
      i += n;
      rest -= n;
    }
  }
  const clFreq = new Uint32Array(19);
  for (const [sym] of cl) clFreq[sym]++;
  const clLen = huffmanLengths(clFreq, 7);
  const clCode = canonicalCodes(clLen);
  let hclen = 19;
  while (hclen > 4 && clLen[CL_ORDER[hclen - 1]] === 0) hclen--;
  put(0b101, 3); // BFINAL, BTYPE 10 (dynamic Huffman)
  put(286 - 257, 5);
  put(30 - 1, 5);
  put(hclen - 4, 4);
  for (let i = 0; i < hclen; i++) put(clLen[CL_ORDER[i]], 3);
  for (const [sym, extra] of cl) {
    put(clCode[sym], clLen[sym]);
    if (sym === 16) put(extra, 2);
  }
  return { litCode: canonicalCodes(litLen), litLen, distCode: canonicalCodes(distLen), distLen, header: { bytes: Uint8Array.from(bytes), bits, count } };
}

/**
 * Each tile's literal codes, concatenated: `chunks[first[id] .. first[id + 1]]` hold its whole 16-bit
 * pieces (LSB first), then `tail[id]` its last `tailBits[id]` bits; `sum`/`moment` are Σ byte and
 * Σ j·byte_j over its bytes, for the Adler-32.
 */
interface TileCodes {
  chunks: Uint16Array;
  first: Uint32Array;
  tail: Uint16Array;
  tailBits: Uint8Array;
  sum: Uint32Array;
  moment: Uint32Array;
  length: Uint16Array;
}

const tileCodeCache = new WeakMap<readonly Uint8Array[], { table: DeflateTable; codes: TileCodes }>();

function tileCodes(tiles: readonly Uint8Array[], table: DeflateTable): TileCodes {
  const hit = tileCodeCache.get(tiles);
  if (hit && hit.table === table) return hit.codes;
  const n = tiles.length;
  const chunks: number[] = [];
  const codes: TileCodes = { chunks: new Uint16Array(0), first: new Uint32Array(n + 1), tail: new Uint16Array(n), tailBits: new Uint8Array(n), sum: new Uint32Array(n), moment: new Uint32Array(n), length: new Uint16Array(n) };
  for (let id = 0; id < n; id++) {
    codes.first[id] = chunks.length;
    let bits = 0;
    let count = 0;
    tiles[id].forEach((byte, j) => {
      bits |= table.litCode[byte] << count;
      count += table.litLen[byte];
      if (count >= 16) {
        chunks.push(bits & 0xffff);
        bits >>>= 16;
        count -= 16;
      }
      codes.sum[id] += byte;
      codes.moment[id] += j * byte;
    });
    codes.tail[id] = bits;
    codes.tailBits[id] = count;
    codes.length[id] = tiles[id].length;
  }
  codes.first[n] = chunks.length;
  codes.chunks = Uint16Array.from(chunks);
  tileCodeCache.set(tiles, { table, codes });
  return codes;
}

/**
 * Writes the zlib stream (one block coded with `table`) into `out` at `start`; returns the end offset.
 * The bit writer lives in this function's locals and is written out inline: a helper closure over
 * them would keep them in a heap context, loaded and stored on every bit written (measured with the
 * tile ids precomputed by the caller: a QR PNG ~40 -> ~33 µs, encoding included, same bytes).
 */
export function rowDeflate(rows: RepeatedRows, out: Uint8Array, start: number, table: DeflateTable): number {
  const { stride, ids, first: rowFirst } = rows;
  if (stride > 32768) throw new Error('row-deflate: rows longer than the deflate window');
  const { litCode, litLen, header } = table;
  const { chunks, first, tail, tailBits, sum, moment, length } = tileCodes(rows.tiles, table);
  out[start] = 0x78; // CM 8, 32 KB window
  out[start + 1] = 0x01; // fastest; (0x78 * 256 + 0x01) % 31 === 0
  // LSB first; fewer than 8 bits pending between writes, so a 16-bit piece always fits a small integer.
  out.set(header.bytes, start + 2);
  let pos = start + 2 + header.bytes.length;
  let bits = header.bits;
  let count = header.count;
  const dc = lastIndexAtMost(DIST_BASE, stride);
  // Every match goes back one row: the same distance code and extra bits each time.
  const distBits = table.distLen[dc];
  const distCode = table.distCode[dc];
  const distExtraBits = DIST_EXTRA[dc];
  const distExtra = stride - DIST_BASE[dc];
  let a = 1;
  let b = 0;
  for (let i = 0; i < rows.count; i++) {
    // Adler-32 of the row: S1 = Σ bytes, W = Σ (stride - k)·byte_k; applied once per repetition.
    let s1 = 0;
    let weighted = 0;
    let k = 0;
    for (let t = rowFirst[i], rowEnd = rowFirst[i + 1]; t < rowEnd; t++) {
      const id = ids[t];
      for (let c = first[id], end = first[id + 1]; c < end; c++) {
        bits |= chunks[c] << count;
        out[pos++] = bits;
        out[pos++] = bits >>> 8;
        bits >>>= 16;
      }
      bits |= tail[id] << count;
      count += tailBits[id];
      if (count >= 8) {
        out[pos++] = bits;
        bits >>>= 8;
        count -= 8;
        if (count >= 8) {
          out[pos++] = bits;
          bits >>>= 8;
          count -= 8;
        }
      }
      s1 += sum[id];
      weighted += (stride - k) * sum[id] - moment[id];
      k += length[id];
    }
    if (k !== stride) throw new Error(`row-deflate: row ${i} has ${k} bytes, not ${stride}`);
    const times = rows.repeat(i);
    for (let t = 0; t < times; t++) {
      b = (b + stride * a + weighted) % ADLER_MOD;
      a = (a + s1) % ADLER_MOD;
    }
    // The repetitions: copies of the row above (any distance that is a multiple of the stride
    // copies the same bytes; the row above is always the nearest). Fewer than 3 repeated bytes
    // (a one- or two-byte row shown twice) are literals: the row's first bytes again.
    const left = (times - 1) * stride;
    const pieces: number[] = [];
    if (left > 0 && left < 3) {
      const line = rowBytes(rows, i);
      for (let j = 0; j < left; j++) pieces.push(litCode[line[j % stride]], litLen[line[j % stride]]);
    }
    for (const len of repeatMatches(left)) {
      const lc = lastIndexAtMost(LENGTH_BASE, len);
      pieces.push(litCode[257 + lc], litLen[257 + lc]);
      if (LENGTH_EXTRA[lc]) pieces.push(len - LENGTH_BASE[lc], LENGTH_EXTRA[lc]);
      pieces.push(distCode, distBits);
      if (distExtraBits) pieces.push(distExtra, distExtraBits);
    }
    for (let j = 0; j < pieces.length; j += 2) {
      bits |= pieces[j] << count;
      count += pieces[j + 1];
      while (count >= 8) {
        out[pos++] = bits;
        bits >>>= 8;
        count -= 8;
      }
    }
  }
  bits |= litCode[256] << count; // end of block
  count += litLen[256];
  while (count > 0) {
    out[pos++] = bits;
    bits >>>= 8;
    count -= 8;
  }
  out[pos++] = (b >>> 8) & 0xff;
  out[pos++] = b & 0xff;
  out[pos++] = (a >>> 8) & 0xff;
  out[pos++] = a & 0xff;
  return pos;
}
