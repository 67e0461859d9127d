import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { receiverDocumentProblem } from './receiver-document.js';

describe('receiverDocumentProblem (BRIEF 1, A-C60..A-C62)', () => {
  it('accepts valid Uruguayan documents and foreign ones with their country', () => {
    assert.equal(receiverDocumentProblem(2, 'UY', '214844360018'), undefined);
    assert.equal(receiverDocumentProblem(3, 'UY', '1.234.567-2'), undefined);
    for (const pais of ['AR', 'BR', 'CL', 'PY']) assert.equal(receiverDocumentProblem(6, pais, '30123456'), undefined);
    assert.equal(receiverDocumentProblem(5, '99', 'X1234567'), undefined);
    assert.equal(receiverDocumentProblem(4, 'US', 'ABC-1'), undefined);
  });

  it('names the problem: check digits, Uruguayan types abroad, DNI outside AR/BR/CL/PY', () => {
    assert.match(receiverDocumentProblem(2, 'UY', '211000040010')!, /dígito verificador/);
    assert.match(receiverDocumentProblem(3, 'UY', '12345670')!, /cédula/);
    assert.match(receiverDocumentProblem(2, 'AR', '214844360018')!, /codPais debe ser UY/);
    assert.match(receiverDocumentProblem(3, 'BR', '12345672')!, /codPais debe ser UY/);
    assert.match(receiverDocumentProblem(6, 'US', '30123456')!, /AR, BR, CL o PY/);
  });
});
