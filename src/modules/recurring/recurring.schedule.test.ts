import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { catchUp, duePeriods, firstFutureIndex, firstIndexFrom, localDate, nextPeriods, occurrence, period, withinEnd, zonedInstant, type Schedule } from './recurring.schedule.js';
import { allowedActions, canTake, nextRetryAt, planActions, planStates } from './recurring.states.js';

const monthly = (over: Partial<Schedule> = {}): Schedule => ({
  unidad: 'mes', intervalo: 1, horaEmision: '06:00', zonaHoraria: 'America/Montevideo', fechaInicio: '2027-01-31', fin: { tipo: 'nunca' }, modo: 'adelantado', ...over,
});
const starts = (s: Schedule, n: number) => Array.from({ length: n }, (_, k) => occurrence(s, k));

describe('dates from the anchor', () => {
  test('31 Jan → 28 Feb → 31 Mar → 30 Apr: never the ratchet', () => {
    assert.deepEqual(starts(monthly(), 5), ['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31']);
  });
  test('leap year: 29 Feb 2028, and an anchor on 29 Feb yearly → 28 Feb, 28 Feb, 28 Feb, 29 Feb', () => {
    assert.deepEqual(starts(monthly({ fechaInicio: '2028-01-31' }), 3), ['2028-01-31', '2028-02-29', '2028-03-31']);
    assert.deepEqual(starts(monthly({ unidad: 'anio', fechaInicio: '2028-02-29' }), 5), ['2028-02-29', '2029-02-28', '2030-02-28', '2031-02-28', '2032-02-29']);
  });
  test('"ultimo" is every month end; a day anchor after fechaInicio starts that month, before it the next', () => {
    assert.deepEqual(starts(monthly({ fechaInicio: '2027-01-10', diaDelMes: 'ultimo' }), 3), ['2027-01-31', '2027-02-28', '2027-03-31']);
    assert.deepEqual(starts(monthly({ fechaInicio: '2027-01-10', diaDelMes: 5 }), 2), ['2027-02-05', '2027-03-05']);
    assert.deepEqual(starts(monthly({ fechaInicio: '2027-01-10', diaDelMes: 30 }), 3), ['2027-01-30', '2027-02-28', '2027-03-30']);
  });
  test('quarterly across the year end; daily and weekly steps', () => {
    assert.deepEqual(starts(monthly({ intervalo: 3, fechaInicio: '2027-11-30' }), 3), ['2027-11-30', '2028-02-29', '2028-05-30']);
    assert.deepEqual(starts(monthly({ unidad: 'dia', intervalo: 10, fechaInicio: '2027-02-25' }), 2), ['2027-02-25', '2027-03-07']);
    // 2027-01-06 is a Wednesday; diaSemana 1 = Monday.
    assert.deepEqual(starts(monthly({ unidad: 'semana', intervalo: 2, diaSemana: 1, fechaInicio: '2027-01-06' }), 2), ['2027-01-11', '2027-01-25']);
  });
  test('a period ends the day before the next starts; arrears bill on the next start', () => {
    const p = period(monthly(), 1);
    assert.deepEqual([p.desde, p.hasta, p.fechaEjecucion], ['2027-02-28', '2027-03-30', '2027-02-28']);
    const v = period(monthly({ modo: 'vencido' }), 0);
    assert.deepEqual([v.desde, v.hasta, v.fechaEjecucion], ['2027-01-31', '2027-02-27', '2027-02-28']);
  });
});

describe('time zones', () => {
  test('Montevideo is UTC−3: 06:00 local is 09:00Z, and the local date of an instant', () => {
    assert.equal(zonedInstant('2027-03-31', '06:00', 'America/Montevideo').toISOString(), '2027-03-31T09:00:00.000Z');
    assert.equal(localDate(new Date('2027-04-01T02:59:00Z'), 'America/Montevideo'), '2027-03-31');
    assert.equal(localDate(new Date('2027-04-01T03:00:00Z'), 'America/Montevideo'), '2027-04-01');
  });
  test('a DST zone: the same local time on both sides of the change', () => {
    assert.equal(zonedInstant('2027-01-15', '09:00', 'Europe/Madrid').toISOString(), '2027-01-15T08:00:00.000Z');
    assert.equal(zonedInstant('2027-07-15', '09:00', 'Europe/Madrid').toISOString(), '2027-07-15T07:00:00.000Z');
  });
});

describe('end and due periods', () => {
  test('cycles and end date', () => {
    const c = monthly({ fin: { tipo: 'ciclos', ciclos: 2 } });
    assert.deepEqual([withinEnd(c, 1), withinEnd(c, 2)], [true, false]);
    assert.equal(nextPeriods(c, 0, 10).length, 2);
    const f = monthly({ fin: { tipo: 'fecha', fecha: '2027-03-31' } });
    assert.deepEqual(nextPeriods(f, 0, 10).map((p) => p.desde), ['2027-01-31', '2027-02-28', '2027-03-31']);
  });
  test('due periods stop at now; the first future index', () => {
    const s = monthly();
    const now = new Date('2027-04-30T08:59:00Z'); // 05:59 local on 30 Apr: that run is not due yet
    assert.deepEqual(duePeriods(s, 0, now).map((p) => p.k), [0, 1, 2]);
    assert.equal(firstFutureIndex(s, 0, now), 3);
    assert.deepEqual(duePeriods(s, 0, new Date('2027-04-30T09:00:00Z')).map((p) => p.k), [0, 1, 2, 3]);
  });
  test('a pause ending at `at`: the runs before it fell inside it, one at exactly `at` did not (issue 41)', () => {
    const s = monthly();
    assert.equal(firstIndexFrom(s, 0, new Date('2027-04-30T09:00:00Z')), 3); // 06:00 local on 30 Apr: that run is the plan's again
    assert.equal(firstIndexFrom(s, 0, new Date('2027-04-30T09:00:00.001Z')), 4);
    assert.equal(firstIndexFrom(s, 2, new Date('2027-01-01T00:00:00Z')), 2, 'never before `from`');
    assert.equal(firstIndexFrom(monthly({ fin: { tipo: 'ciclos', ciclos: 2 } }), 0, new Date('2028-01-01T00:00:00Z')), 2, 'stops at the end');
  });
});

describe('missed-run policies (service down for three periods, the fourth is current)', () => {
  const due = duePeriods(monthly(), 0, new Date('2027-04-30T10:00:00Z'));
  test('emitir_todos: one CFE per period', () => {
    const r = catchUp('emitir_todos', due);
    assert.deepEqual(r.emit.map((g) => g.map((p) => p.k)), [[0], [1], [2], [3]]);
    assert.equal(r.skip.length, 0);
  });
  test('emitir_uno: one CFE for all four', () => {
    const r = catchUp('emitir_uno', due);
    assert.deepEqual(r.emit.map((g) => g.map((p) => p.k)), [[0, 1, 2, 3]]);
  });
  test('omitir: the three missed are skipped, the current one issued', () => {
    const r = catchUp('omitir', due);
    assert.deepEqual(r.emit.map((g) => g.map((p) => p.k)), [[3]]);
    assert.deepEqual(r.skip.map((p) => p.k), [0, 1, 2]);
  });
  test('nothing missed: every policy issues the one due period', () => {
    for (const p of ['emitir_todos', 'emitir_uno', 'omitir'] as const) assert.deepEqual(catchUp(p, due.slice(0, 1)).emit, [[due[0]]]);
    assert.deepEqual(catchUp('omitir', []), { emit: [], skip: [] });
  });
});

describe('states and retries', () => {
  test('allowed actions per state; terminal states allow little', () => {
    assert.deepEqual(allowedActions('borrador'), ['activar', 'cancelar']);
    assert.deepEqual(allowedActions('cancelado'), []);
    assert.deepEqual(allowedActions('finalizado'), ['reintentar']);
    assert.ok(canTake('pausado', 'reanudar') && !canTake('activo', 'reanudar') && !canTake('pausado', 'emitirAhora'));
    for (const s of planStates) for (const a of planActions) assert.equal(canTake(s, a), allowedActions(s).includes(a));
  });
  test('retry delays grow, then stop', () => {
    const t0 = new Date('2027-01-01T00:00:00Z');
    assert.equal(nextRetryAt(1, t0)!.toISOString(), '2027-01-01T00:15:00.000Z');
    assert.equal(nextRetryAt(4, t0)!.toISOString(), '2027-01-02T00:00:00.000Z');
    assert.equal(nextRetryAt(5, t0), null);
  });
});
