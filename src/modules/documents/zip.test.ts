import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import { streamZip, type ZipEntry } from './zip.ts';

/** Reads names and contents through the central directory (independent of archiver and unzip). */
function readZip(buf: Buffer): Map<string, Buffer> {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'no end-of-central-directory record');
  const total = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < total; i += 1) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50);
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

describe('streamZip', () => {
  it('zips Buffers and Readables pulled lazily from an async iterable', async () => {
    let produced = 0;
    async function* entries(): AsyncGenerator<ZipEntry> {
      for (let i = 1; i <= 40; i += 1) {
        produced += 1;
        const body = `CFE ${i} ñandú `.repeat(200 + i);
        yield i % 2 ? { name: `pdf/A-${i}.pdf`, content: Buffer.from(body) } : { name: `xml/A-${i}.xml`, content: Readable.from([Buffer.from(body)]) };
      }
    }
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk);
        cb();
      },
    });
    const result = await streamZip(entries(), sink);
    assert.equal(result.entries, 40);
    assert.equal(produced, 40);
    const zip = Buffer.concat(chunks);
    assert.equal(result.bytes, zip.length);
    const files = readZip(zip);
    assert.equal(files.size, 40);
    assert.equal(files.get('xml/A-2.xml')?.toString(), 'CFE 2 ñandú '.repeat(202));
    assert.equal(files.get('pdf/A-39.pdf')?.toString(), 'CFE 39 ñandú '.repeat(239));

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zip-test-')), 'out.zip');
    fs.writeFileSync(file, zip);
    const unzip = spawnSync('unzip', ['-l', file], { encoding: 'utf8' });
    if (!unzip.error) {
      assert.equal(unzip.status, 0, unzip.stderr);
      assert.match(unzip.stdout, /pdf\/A-1\.pdf/);
      assert.match(unzip.stdout, /40 files/);
    }
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('an error in the source rejects and stops', async () => {
    async function* failing(): AsyncGenerator<ZipEntry> {
      yield { name: 'a.txt', content: Buffer.from('a') };
      throw new Error('source broke');
    }
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    await assert.rejects(streamZip(failing(), sink), /source broke/);
  });
});
