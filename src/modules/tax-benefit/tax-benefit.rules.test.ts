/** BRIEF 12 rules over declared facts: each rule alone, and the computed amounts. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addMonths, declarationProblems, exemptionTerms, incomeInUi, monthlyCreditPesos, type DeclarationFacts } from './tax-benefit.rules.ts';

const base206: DeclarationFacts = {
  regimen: 'decreto_206_019', anioFiscal: 2026, fundamento: 'ingresos_hasta_750000_ui', ingresosAnioAnterior: '4000000', valorUiCierre: '6.2500',
  fechaInicioEmisor: '2020-03-01', regimenTributario: 'general', today: '2026-11-25', decree206LastYear: 2026,
};
const base324: DeclarationFacts = {
  regimen: 'decreto_324_011', anioFiscal: 2026, fechaInicioEmisor: '2026-03-01', regimenTributario: 'general', today: '2026-11-25', decree206LastYear: 2026,
  inversiones: [{ descripcion: 'Servidor', tipo: 'hardware', fecha: '2025-06-01', moneda: 'UYU', montoSinIva: '50000' }],
};
const codes = (f: DeclarationFacts) => declarationProblems(f).map((p) => p.code);

describe('Decreto 206/019', () => {
  test('a valid declaration by income has no problem', () => assert.deepEqual(codes(base206), []));
  test('income above 750,000 UI at the year-end UI value', () => {
    assert.deepEqual(codes({ ...base206, ingresosAnioAnterior: '4687500.07' }), ['BENEFICIO_206_INGRESOS_SUPERAN_TOPE']);
    assert.deepEqual(codes({ ...base206, ingresosAnioAnterior: '4687500.00' }), []);
  });
  test('years outside the regime', () => {
    assert.deepEqual(codes({ ...base206, anioFiscal: 2027, today: '2027-02-01' }), ['BENEFICIO_206_FUERA_DE_VIGENCIA']);
    assert.deepEqual(codes({ ...base206, anioFiscal: 2018 }), ['BENEFICIO_206_FUERA_DE_VIGENCIA']);
  });
  test('literal E needs the IVA mínimo regime', () => {
    assert.deepEqual(codes({ ...base206, fundamento: 'literal_e', ingresosAnioAnterior: undefined }), ['BENEFICIO_206_NO_LITERAL_E']);
    assert.deepEqual(codes({ ...base206, fundamento: 'literal_e', ingresosAnioAnterior: undefined, regimenTributario: 'iva_minimo' }), []);
  });
  test('income of a year not closed yet; UI unknown', () => {
    assert.deepEqual(codes({ ...base206, anioFiscal: 2027 }), ['BENEFICIO_206_FUERA_DE_VIGENCIA', 'BENEFICIO_206_EJERCICIO_NO_CERRADO']);
    assert.deepEqual(codes({ ...base206, valorUiCierre: null }), ['BENEFICIO_VALOR_UI_NO_DISPONIBLE']);
  });
  test('start of activity in the year or the previous one', () => {
    const f = { ...base206, fundamento: 'inicio_actividad' as const, ingresosAnioAnterior: undefined };
    assert.deepEqual(codes({ ...f, fechaInicioActividad: '2025-05-01' }), []);
    assert.deepEqual(codes({ ...f, fechaInicioActividad: '2024-12-31' }), ['BENEFICIO_206_INICIO_FUERA_DE_PLAZO']);
    assert.deepEqual(codes({ ...f, fechaInicioActividad: '2026-12-01' }), ['BENEFICIO_206_INICIO_FUERA_DE_PLAZO']);
    assert.deepEqual(codes(f), ['BENEFICIO_206_INICIO_FUERA_DE_PLAZO'], 'the registry start (2020) is used when none is declared');
  });
  test('missing ground, fields of the other regime', () => {
    assert.deepEqual(codes({ ...base206, fundamento: undefined }), ['BENEFICIO_DATO_REQUERIDO']);
    assert.deepEqual(codes({ ...base206, inversiones: base324.inversiones }), ['BENEFICIO_DATO_NO_CORRESPONDE']);
  });
});

describe('Decreto 324/011', () => {
  test('a valid declaration has no problem', () => assert.deepEqual(codes(base324), []));
  test('investment 12 months before to 4 months after the start', () => {
    const at = (fecha: string) => codes({ ...base324, inversiones: [{ ...base324.inversiones![0], fecha }] });
    assert.deepEqual(at('2025-03-01'), []);
    assert.deepEqual(at('2025-02-28'), ['BENEFICIO_324_INVERSION_FUERA_DE_PLAZO']);
    assert.deepEqual(at('2026-07-01'), []);
    assert.deepEqual(at('2026-07-02'), ['BENEFICIO_324_INVERSION_FUERA_DE_PLAZO']);
  });
  test('SaaS: since 17/10/2015 and capped at USD 3,000 / 8,000 without VAT', () => {
    const saas = (montoSinIva: string, moneda: 'USD' | 'UYU' = 'USD') => [{ descripcion: 'Servicio CFE', tipo: 'saas' as const, fecha: '2026-01-10', moneda, montoSinIva }];
    assert.deepEqual(codes({ ...base324, inversiones: saas('3000') }), []);
    assert.deepEqual(codes({ ...base324, inversiones: saas('3000.01') }), ['BENEFICIO_324_SAAS_SUPERA_TOPE']);
    assert.deepEqual(codes({ ...base324, inversiones: saas('8000'), grandeContribuyente: true }), []);
    const rates = new Map([['2026-01-10', '40']]);
    assert.deepEqual(codes({ ...base324, inversiones: saas('120040', 'UYU'), usdRates: rates }), ['BENEFICIO_324_SAAS_SUPERA_TOPE']);
    assert.deepEqual(codes({ ...base324, inversiones: saas('100', 'UYU'), usdRates: new Map() }), ['BENEFICIO_COTIZACION_NO_DISPONIBLE']);
    const old = { ...base324, fechaInicioEmisor: '2015-09-01', anioFiscal: 2016, inversiones: [{ ...saas('100')[0], fecha: '2015-10-16' }] };
    assert.deepEqual(codes(old), ['BENEFICIO_324_SAAS_ANTES_DE_2015']);
  });
  test('fiscal years of the exemption; start date unknown or different', () => {
    assert.deepEqual(codes({ ...base324, anioFiscal: 2031, today: '2031-01-01' }), ['BENEFICIO_324_FUERA_DE_PLAZO']);
    assert.deepEqual(codes({ ...base324, fechaInicioEmisor: null }), ['BENEFICIO_FECHA_INICIO_DESCONOCIDA']);
    assert.deepEqual(codes({ ...base324, fechaInicioEmisor: null, fechaInicioEmisorDeclarada: '2026-03-01' }), []);
    assert.deepEqual(codes({ ...base324, fechaInicioEmisorDeclarada: '2026-04-01' }), ['BENEFICIO_FECHA_INICIO_DISTINTA']);
    assert.deepEqual(codes({ ...base324, inversiones: [] }), ['BENEFICIO_DATO_REQUERIDO']);
  });
  test('a fiscal year more than one ahead is refused', () => assert.deepEqual(codes({ ...base324, anioFiscal: 2028 }), ['BENEFICIO_ANIO_FISCAL_FUTURO']));
});

describe('amounts', () => {
  test('80 UI in pesos, income in UI, exemption terms, month arithmetic', () => {
    assert.equal(monthlyCreditPesos('6.3456'), '507.65');
    assert.equal(incomeInUi('4687500', '6.25'), '750000.00');
    assert.deepEqual(exemptionTerms('2016-01-01'), { porcentaje: 50, ejercicios: 5, topeImpuestoPorcentaje: 60 });
    assert.deepEqual(exemptionTerms('2015-12-31'), { porcentaje: 70, ejercicios: 10, topeImpuestoPorcentaje: null });
    assert.equal(addMonths('2026-03-31', -1), '2026-02-28');
    assert.equal(addMonths('2026-03-01', -12), '2025-03-01');
  });
});
