import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { completeRut, isValidCi, isValidRut, rutCheckDigit, rutProblem } from './rut.js';

describe('RUT (DGI check digit)', () => {
  it('accepts the DGI sample issuer RUT and computed ones', () => {
    assert.equal(isValidRut('219999830019'), true); // RUC of the DGI sample envelope
    assert.equal(isValidRut(completeRut('21123456001')!), true);
  });

  it('maps 11 to 0 and rejects bases whose check is 10', () => {
    for (let n = 100000; n < 100200; n++) {
      const base = `21${n}001`;
      const check = rutCheckDigit(base);
      if (check === undefined) assert.equal(completeRut(base), undefined);
      else assert.ok(check >= 0 && check <= 9);
    }
  });

  it('rejects wrong length, prefix, zero block, positions 9-10 and check digit with a reason', () => {
    assert.match(rutProblem('21999983001')!, /12 dígitos/);
    assert.match(rutProblem('2199998300a9')!, /12 dígitos/);
    assert.match(rutProblem('239999830019')!, /01 y 22/);
    assert.match(rutProblem('000000000000')!, /01 y 22/);
    assert.match(rutProblem('210000000016')!, /cero/);
    assert.match(rutProblem('219999831019')!, /9 y 10/);
    assert.match(rutProblem('219999830018')!, /verificador/);
  });
});

describe('C.I. check digit', () => {
  it('validates known cédulas with and without punctuation', () => {
    assert.equal(isValidCi('1.234.567-2'), true);
    assert.equal(isValidCi('12345672'), true);
    assert.equal(isValidCi('12345673'), false);
    assert.equal(isValidCi('abc'), false);
  });
});
