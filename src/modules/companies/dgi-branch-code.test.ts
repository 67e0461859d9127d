import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { historyCodeAt, pickDgiBranchCode, validateHistory } from './dgi-branch-code.js';

const history = [
  { codigoDgiSucursal: 1, validFrom: '2024-01-01', validTo: '2024-12-31' },
  { codigoDgiSucursal: 2, validFrom: '2025-03-01', validTo: null },
];

describe('DGI branch code at a date (spec 2.2 rule 5)', () => {
  it('uses the entry valid at the date, both ends inclusive', () => {
    assert.equal(historyCodeAt(history, '2023-12-31'), undefined);
    assert.equal(historyCodeAt(history, '2024-01-01'), 1);
    assert.equal(historyCodeAt(history, '2024-12-31'), 1);
    assert.equal(historyCodeAt(history, '2025-01-15'), undefined);
    assert.equal(historyCodeAt(history, '2025-03-01'), 2);
    assert.equal(historyCodeAt(history, '2030-01-01'), 2);
  });

  it('falls back to the branch, then the company default', () => {
    assert.deepEqual(pickDgiBranchCode(7, 3, 9), { codigoDgiSucursal: 7, origen: 'historial' });
    assert.deepEqual(pickDgiBranchCode(undefined, 3, 9), { codigoDgiSucursal: 3, origen: 'sucursal' });
    assert.deepEqual(pickDgiBranchCode(null, null, 9), { codigoDgiSucursal: 9, origen: 'empresa' });
    assert.deepEqual(pickDgiBranchCode(0, null, null), { codigoDgiSucursal: 0, origen: 'historial' });
    assert.equal(pickDgiBranchCode(null, null, null), undefined);
  });

  it('rejects overlapping or inverted windows', () => {
    assert.deepEqual(validateHistory([...history].reverse()).map((e) => e.codigoDgiSucursal), [1, 2]);
    assert.throws(() => validateHistory([{ codigoDgiSucursal: 1, validFrom: '2024-01-01', validTo: null }, { codigoDgiSucursal: 2, validFrom: '2025-01-01', validTo: null }]), { code: 'HISTORIAL_CODIGOS_INVALIDO' });
    assert.throws(() => validateHistory([{ codigoDgiSucursal: 1, validFrom: '2024-01-01', validTo: '2024-06-30' }, { codigoDgiSucursal: 2, validFrom: '2024-06-30', validTo: null }]), { code: 'HISTORIAL_CODIGOS_INVALIDO' });
    assert.throws(() => validateHistory([{ codigoDgiSucursal: 1, validFrom: '2024-02-01', validTo: '2024-01-01' }]), { code: 'HISTORIAL_CODIGOS_INVALIDO' });
  });
});
