import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeLimit, xsdLimit, xsdProblem } from './xsd-limits.ts';

describe('xsdLimit: read from the compiled DGI schemas', () => {
  it('TipCambioType is decimal(7,3) 0.001..9999.999 (BRIEF 2.4)', () => {
    const l = xsdLimit('TipCambioType');
    assert.deepEqual([l.builtin, l.totalDigits, l.fractionDigits, l.minInclusive, l.maxInclusive], ['decimal', 7, 3, '0.001', '9999.999']);
    assert.equal(describeLimit(l), 'DGI TipCambioType: 3 decimals, 7 digits, 0.001..9999.999');
  });
  it('string and enumeration types', () => {
    assert.equal(xsdLimit('NomItemType').maxLength, 80);
    assert.ok(xsdLimit('TipMonType').enumeration?.includes('USD'));
    assert.throws(() => xsdLimit('NoExisteType'), /not in the compiled XSD model/);
  });
});

describe('xsdProblem', () => {
  const rate = xsdLimit('TipCambioType');
  it('accepts values within every facet, minimal forms included', () => {
    for (const v of ['0.001', '9999.999', '39.5', '39.500', '1']) assert.equal(xsdProblem(rate, v), undefined, v);
  });
  it('names the facet a value breaks', () => {
    assert.equal(xsdProblem(rate, '39.5001'), 'admite como máximo 3 decimales');
    assert.equal(xsdProblem(rate, '12345.6789'), 'admite como máximo 3 decimales');
    assert.equal(xsdProblem(rate, '12345.678'), 'admite como máximo 7 dígitos');
    assert.equal(xsdProblem(rate, '10000'), 'debe estar entre 0.001 y 9999.999');
    assert.equal(xsdProblem(rate, '0'), 'debe estar entre 0.001 y 9999.999');
    assert.equal(xsdProblem(rate, 'abc'), 'no es un número decimal');
    assert.equal(xsdProblem(xsdLimit('PrecioUnitarioType'), '-1'), 'debe estar entre 0.000000 y 99999999999.999999');
    assert.equal(xsdProblem(xsdLimit('CodPostalType'), '11200.5'), 'no admite decimales');
    assert.equal(xsdProblem(xsdLimit('UniMedType'), 'kilos'), 'admite como máximo 4 caracteres');
    assert.equal(xsdProblem(xsdLimit('UniMedType'), '😀😀😀😀'), undefined); // characters, not UTF-16 units
    assert.equal(xsdProblem(xsdLimit('TipMonType'), 'XXX'), 'no es un valor de la tabla de DGI');
  });
});
