/**
 * Rule evaluation in both directions (issue 34 point 5): crossings up to warning and suspension with
 * their cause, lifts by period reset and by hand, latching, notify-only rules, final states.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allowedActions } from './contract-states.js';
import { evaluateRules, type Observation, type RulesState, type UsageRule } from './usage-rules.js';

// An allowance of 1000 API calls: warn at 80 %, suspend at 100 %; notify when the period's amount reaches 5000.
const rules: UsageRule[] = [
  { id: 'aviso80', objetivo: 'unidades', metrica: 'api', umbral: '800', accion: 'advertir', levantamiento: 'reinicioPeriodo' },
  { id: 'corte100', objetivo: 'unidades', metrica: 'api', umbral: '1000', accion: 'suspender', levantamiento: 'reinicioPeriodo' },
  { id: 'monto', objetivo: 'monto', umbral: '5000', accion: 'notificar', levantamiento: 'reinicioPeriodo' },
];
const fresh: RulesState = { estado: 'activo', periodo: '2026-03-01', reglas: {} };
const obs = (api: string, extra: Partial<Observation> = {}): Observation => ({ periodo: '2026-03-01', unidades: { api }, monto: '0', en: '2026-03-10T12:00:00.000Z', ...extra });

describe('crossings upwards', () => {
  test('below every threshold: nothing happens', () => {
    const r = evaluateRules(rules, fresh, obs('799.999'));
    assert.equal(r.state.estado, 'activo');
    assert.deepEqual([r.transiciones, r.alcanzadas, r.state.reglas], [[], [], {}]);
  });
  test('exactly at 80 %: activo → en_advertencia, caused by the rule with the observed value', () => {
    const r = evaluateRules(rules, fresh, obs('800'));
    assert.equal(r.state.estado, 'en_advertencia');
    assert.deepEqual(r.transiciones, [{ desde: 'activo', hacia: 'en_advertencia', en: '2026-03-10T12:00:00.000Z', causa: { tipo: 'regla', regla: 'aviso80', accion: 'advertir', objetivo: 'unidades', metrica: 'api', umbral: '800', valorObservado: '800' } }]);
    assert.deepEqual(r.alcanzadas.map((a) => a.regla), ['aviso80']);
  });
  test('then 100 %: en_advertencia → suspendido; the warning is not reported again', () => {
    const warned = evaluateRules(rules, fresh, obs('850')).state;
    const r = evaluateRules(rules, warned, obs('1000'));
    assert.deepEqual(r.transiciones.map((t) => [t.desde, t.hacia, t.causa.tipo === 'regla' && t.causa.regla]), [['en_advertencia', 'suspendido', 'corte100']]);
    assert.deepEqual(r.alcanzadas.map((a) => a.regla), ['corte100']);
  });
  test('jumping over both at once goes straight to suspendido, caused by the suspension rule; both are reported reached', () => {
    const r = evaluateRules(rules, fresh, obs('1500'));
    assert.equal(r.transiciones.length, 1);
    assert.equal(r.transiciones[0]!.hacia, 'suspendido');
    assert.equal(r.transiciones[0]!.causa.tipo === 'regla' && r.transiciones[0]!.causa.regla, 'corte100');
    assert.deepEqual(r.alcanzadas.map((a) => a.regla), ['aviso80', 'corte100']);
  });
  test('a notify rule reports its crossing once and never changes the state', () => {
    const first = evaluateRules(rules, fresh, obs('0', { monto: '5000.00' }));
    assert.deepEqual([first.state.estado, first.transiciones.length, first.alcanzadas.map((a) => [a.regla, a.valorObservado])], ['activo', 0, [['monto', '5000.00']]]);
    assert.equal(evaluateRules(rules, first.state, obs('0', { monto: '6000' })).alcanzadas.length, 0);
  });
  test('a missing metric counts 0', () => {
    assert.equal(evaluateRules(rules, fresh, { ...obs('0'), unidades: {} }).state.estado, 'activo');
  });
});

describe('lifting (downwards)', () => {
  const suspended = evaluateRules(rules, fresh, obs('1200')).state;
  test('a reached rule stays reached in its period even if the value drops (a correction)', () => {
    const r = evaluateRules(rules, suspended, obs('10'));
    assert.deepEqual([r.state.estado, r.transiciones.length], ['suspendido', 0]);
  });
  test('a new period lifts period-reset rules: suspendido → activo, caused by the period change', () => {
    const r = evaluateRules(rules, suspended, obs('5', { periodo: '2026-04-01' }));
    assert.deepEqual(r.transiciones.map((t) => [t.desde, t.hacia, t.causa]), [['suspendido', 'activo', { tipo: 'periodo', periodoAnterior: '2026-03-01', periodoNuevo: '2026-04-01' }]]);
    assert.deepEqual(r.levantadas.sort(), ['aviso80', 'corte100']);
    assert.deepEqual(r.state.reglas, {});
  });
  test('a new period whose first observation is already over the limit: lifted, then reached again (two transitions)', () => {
    const r = evaluateRules(rules, suspended, obs('900', { periodo: '2026-04-01' }));
    assert.deepEqual(r.transiciones.map((t) => [t.desde, t.hacia, t.causa.tipo]), [['suspendido', 'activo', 'periodo'], ['activo', 'en_advertencia', 'regla']]);
  });
  test('a manual lift of the suspension leaves the warning: suspendido → en_advertencia with the user; it does not fire again this period', () => {
    const r = evaluateRules(rules, suspended, obs('1300'), { usuario: 'ana@empresa.uy', reglas: ['corte100'] });
    assert.deepEqual(r.transiciones.map((t) => [t.desde, t.hacia, t.causa]), [['suspendido', 'en_advertencia', { tipo: 'manual', usuario: 'ana@empresa.uy', reglas: ['corte100'] }]]);
    assert.equal(r.state.reglas.corte100!.estado, 'levantada');
    assert.equal(evaluateRules(rules, r.state, obs('2000')).transiciones.length, 0);
    // Next period the lift is forgotten and the rule can fire again.
    assert.equal(evaluateRules(rules, r.state, obs('1000', { periodo: '2026-04-01' })).state.estado, 'suspendido');
  });
  test('a manual lift without rules lifts every reached rule: suspendido → activo', () => {
    const r = evaluateRules(rules, suspended, obs('1300'), { usuario: 'ana' });
    assert.deepEqual(r.transiciones.map((t) => t.hacia), ['activo']);
  });
  test('a rule lifted only by hand survives the period change', () => {
    const manual: UsageRule[] = [{ id: 'tope', objetivo: 'monto', umbral: '100', accion: 'suspender', levantamiento: 'manual' }];
    const s = evaluateRules(manual, fresh, obs('0', { monto: '100' })).state;
    const next = evaluateRules(manual, s, obs('0', { periodo: '2026-04-01', monto: '0' }));
    assert.deepEqual([next.state.estado, next.transiciones.length], ['suspendido', 0]);
    assert.equal(evaluateRules(manual, next.state, obs('0', { periodo: '2026-04-01' }), { usuario: 'ana' }).state.estado, 'activo');
  });
});

describe('states outside the rules', () => {
  test('borrador, cancelado and finalizado are not moved by rules', () => {
    for (const estado of ['borrador', 'cancelado', 'finalizado'] as const) {
      const r = evaluateRules(rules, { ...fresh, estado }, obs('5000'));
      assert.deepEqual([r.state.estado, r.transiciones.length], [estado, 0]);
    }
  });
  test('allowed manual actions per state', () => {
    assert.deepEqual(allowedActions('borrador'), ['activar', 'cancelar']);
    assert.deepEqual(allowedActions('suspendido'), ['cancelar', 'finalizar', 'levantar']);
    assert.deepEqual(allowedActions('finalizado'), []);
  });
});
