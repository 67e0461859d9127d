import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeFreeText } from './free-text.ts';
import { issueCfeBody } from './issued-cfe.schemas.ts';

describe('free-text policy', () => {
  test('line breaks become LF; tab and non-ASCII text stay', () => {
    assert.deepEqual(normalizeFreeText('a\r\nb\rc\nd\te ñ €'), { ok: true, text: 'a\nb\nc\nd\te ñ €' });
    assert.deepEqual(normalizeFreeText('plain'), { ok: true, text: 'plain' });
  });

  test('controls and Unicode line separators are refused, naming the character', () => {
    for (const c of ['\u0001', '\u001f', '\u007f', '\u0085', '\u009f', '\u2028', '\u2029']) {
      assert.deepEqual(normalizeFreeText(`a${c}b`), { ok: false, char: c });
    }
  });

  test('applied to every string of the emitir body, with the path of the field', () => {
    const body = (nombreItem: string, adenda?: string) => ({
      idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1',
      cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2026-03-10' }, detalles: [{ indicadorFacturacion: 3, nombreItem, cantidad: 1, precioUnitario: 100 }], adenda },
    });
    const ok = issueCfeBody.parse(body('x\r\ny', 'z\r'));
    assert.equal(ok.cfe.detalles[0].nombreItem, 'x\ny');
    assert.equal(ok.cfe.adenda, 'z\n');
    const bad = issueCfeBody.safeParse(body('x\u2028y', 'ok\u0085'));
    assert.deepEqual(bad.error?.issues.map((i) => i.path.join('.')), ['cfe.detalles.0.nombreItem', 'cfe.adenda']);
  });
});
