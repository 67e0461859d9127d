import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issuedCfeErrors } from './issued-cfe.errors.js';
import { EMITIR_DESCRIPTION } from './issued-cfe.routes.js';

describe('emitir OpenAPI description', () => {
  // Issue 5 point 3: every rejection code of emitir is documented; a new rule cannot land undocumented.
  it('names every rejection code of the issued-CFE catalogue that emitir can answer', () => {
    const notEmitir = new Set(['CFE_NO_ENCONTRADO', 'FIRMA_XML_INVALIDA']); // GET by id; firmarXml
    const missing = Object.keys(issuedCfeErrors).filter((c) => !notEmitir.has(c) && !new RegExp(`\\b${c}\\b`).test(EMITIR_DESCRIPTION));
    assert.deepEqual(missing, []);
  });
});
