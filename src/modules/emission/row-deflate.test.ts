import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { huffmanLengths, rowDeflate, rowDeflateBound, rowDeflateTable, type RepeatedRows } from './row-deflate.ts';

function image(count: number, stride: number, repeat: (i: number) => number): { rows: RepeatedRows; raw: Buffer; total: number } {
  const distinct = Array.from({ length: count }, (_, i) => (i % 3 === 0 ? Buffer.alloc(stride, i % 2 ? 0xff : 0) : randomBytes(stride)));
  const raw = Buffer.concat(distinct.flatMap((row, i) => Array.from({ length: repeat(i) }, () => row)));
  // Tiles: the 256 single bytes, and each row's first two bytes as one tile (tiles of unequal length).
  const tiles = [...Array.from({ length: 256 }, (_, b) => Uint8Array.of(b)), ...distinct.map((row) => row.subarray(0, Math.min(2, stride)))];
  const ids: number[] = [];
  const first = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) {
    first[i] = ids.length;
    ids.push(256 + i);
    for (let k = Math.min(2, stride); k < stride; k++) ids.push(distinct[i][k]);
  }
  first[count] = ids.length;
  const rows: RepeatedRows = { count, stride, repeat, tiles, ids: Uint16Array.from(ids), first };
  return { rows, raw, total: raw.length / stride };
}

describe('row-deflate', () => {
  const table = rowDeflateTable(image(40, 33, () => 5).rows);

  for (const [count, stride, repeat] of [
    [51, 33, () => 5],
    [1, 2, () => 1],
    [3, 2, () => 2], // repeated bytes too few for a match
    [7, 1000, (i: number) => 1 + (i % 4)],
    [5, 3, () => 200], // long runs split into matches of at most 258
    [4, 260, () => 2], // a row longer than one match
    [2, 12, () => 22], // 252 repeated bytes: the split must not leave 1 or 2
  ] as Array<[number, number, (i: number) => number]>) {
    it(`inflates back to the rows (${count} rows of ${stride} bytes), Adler-32 included`, () => {
      const { rows, raw, total } = image(count, stride, repeat);
      const out = new Uint8Array(rowDeflateBound(rows, total));
      const end = rowDeflate(rows, out, 0, table);
      assert.deepEqual(zlib.inflateSync(out.subarray(0, end)), raw);
    });
  }

  it('Huffman lengths respect the limit and the Kraft equality', () => {
    const fib = [1, 1];
    while (fib.length < 30) fib.push(fib[fib.length - 1] + fib[fib.length - 2]);
    for (const [freq, limit] of [[fib, 15], [[5, 0, 0, 9, 1], 7], [[3], 15]] as Array<[number[], number]>) {
      const lengths = huffmanLengths(freq, limit);
      assert.ok(Math.max(...lengths) <= limit);
      const used = [...lengths].filter((l) => l > 0);
      if (used.length > 1) assert.equal(used.reduce((s, l) => s + 2 ** -l, 0), 1);
    }
  });
});
