import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import { streamXlsx, type XlsxColumn } from './xlsx.ts';

interface Row {
  fecha: string;
  tipo: number;
  serieNro: string;
  receptor: string;
  total: string;
}

const columns: XlsxColumn<Row>[] = [
  { header: 'Fecha', type: 'date', value: (r) => r.fecha },
  { header: 'Tipo CFE', type: 'integer', value: (r) => r.tipo },
  { header: 'Serie-Número', value: (r) => r.serieNro },
  { header: 'Receptor', value: (r) => r.receptor },
  { header: 'Total', type: 'money', value: (r) => r.total },
];

describe('streamXlsx', () => {
  it('streams rows from an async iterable; money as numbers with a 2-decimal format', async () => {
    async function* rows(): AsyncGenerator<Row> {
      for (let i = 1; i <= 2500; i += 1) yield { fecha: '2026-07-08', tipo: 101, serieNro: `A-${i}`, receptor: i % 2 ? 'Consumo final' : 'Cliente Ñandú S.A.', total: `${i}.5` };
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xlsx-test-'));
    const file = path.join(dir, 'cfe.xlsx');
    const result = await streamXlsx(rows(), columns, fs.createWriteStream(file), { sheetName: 'CFE emitidos' });
    assert.equal(result.rows, 2500);

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.getWorksheet('CFE emitidos');
    assert.ok(ws);
    assert.equal(ws.rowCount, 2501);
    assert.deepEqual((ws.getRow(1).values as unknown[]).slice(1), ['Fecha', 'Tipo CFE', 'Serie-Número', 'Receptor', 'Total']);
    const r2 = ws.getRow(3);
    assert.equal(r2.getCell(2).value, 101);
    assert.equal(r2.getCell(3).value, 'A-2');
    assert.equal(r2.getCell(4).value, 'Cliente Ñandú S.A.');
    assert.equal(r2.getCell(5).value, 2.5);
    assert.equal(r2.getCell(5).numFmt, '#,##0.00');
    assert.ok(r2.getCell(1).value instanceof Date);
    assert.equal(ws.getRow(2501).getCell(5).value, 2500.5);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rejects a money value that is not a number', async () => {
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    await assert.rejects(streamXlsx([{ fecha: '2026-07-08', tipo: 101, serieNro: 'A-1', receptor: '', total: 'abc' }], columns, sink), /not a number/);
    assert.ok(sink.destroyed);
  });
});
