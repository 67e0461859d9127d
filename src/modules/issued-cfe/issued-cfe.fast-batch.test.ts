import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getTableColumns } from 'drizzle-orm';
import { storedRow, type IssuedCfeInsert } from './issued-cfe.fast-batch.js';
import { issuedCfes } from './issued-cfe.tables.js';

const values = (over: Partial<IssuedCfeInsert>) => ({ companyId: 1, branchId: 1, tipoCfe: 101, serie: 'A', numero: 1, fechaEmision: '2026-11-21', xml: '<CFE/>', ...over }) as IssuedCfeInsert;

describe('storedRow: numerics as PostgreSQL prints them at the column scale', () => {
  it('keeps what is already canonical and rewrites the rest', () => {
    const row = storedRow(values({ mntTotal: '944.23', mntPagar: '1.5', mntNoGrv: '-0.00', mntIvaTasaBasica: '007.10', tipoCambio: '39.5', mntIvaTasaMin: '-12.30' }), { id: 7, createdAt: new Date(0) });
    assert.equal(row.mntTotal, '944.23');
    assert.equal(row.mntPagar, '1.50');
    assert.equal(row.mntNoGrv, '0.00', 'numeric has no negative zero');
    assert.equal(row.mntIvaTasaBasica, '7.10');
    assert.equal(row.tipoCambio, '39.500');
    assert.equal(row.mntIvaTasaMin, '-12.30');
    assert.equal(row.mntNetoIvaTasaMin, null, 'absent values are null');
    assert.equal(row.id, 7);
  });
  it('has every column of the table and nothing else', () => {
    const row = storedRow(values({}), { id: 1, createdAt: new Date(0) });
    assert.deepEqual(Object.keys(row).sort(), Object.keys(getTableColumns(issuedCfes)).sort());
    assert.equal(row.estado, 'firmado');
    assert.equal(row.caeRangeId, null);
  });
});
