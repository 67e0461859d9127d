/** The cae → simulated DGI port: which answer an import gets in each mode (no I/O). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import type { DgiSimulatorControl } from '../dgi/dgi.simulator.js';
import { simulatedDgiRegistrar } from './dgi-sandbox.registrar.js';

const logger = pino({ level: 'silent' });
const range = { rucEmisor: '211234560019', tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31', NA: '90260000001' };
const control = (registerCae: DgiSimulatorControl['registerCae']) => async () => ({ registerCae }) as unknown as DgiSimulatorControl;

describe('simulatedDgiRegistrar', () => {
  test('real mode: no port at all', () => {
    assert.equal(simulatedDgiRegistrar({ mode: 'real', simulator: control(() => true), logger }), undefined);
  });

  test('in-process simulator: the range is registered (type as DGI writes it), no warning', async () => {
    const seen: unknown[] = [];
    const register = simulatedDgiRegistrar({ mode: 'simulator', simulator: control((r) => (seen.push(r), true)), logger })!;
    assert.equal(await register(range), undefined);
    assert.deepEqual(seen, [{ ...range, tipoCfe: '101' }]);
  });

  test('a simulator that cannot record it, or an external one: a warning that says E09 and how to get a CAE it accepts', async () => {
    const failing = simulatedDgiRegistrar({ mode: 'simulator', simulator: control(() => { throw new Error('EACCES state.jsonl'); }), logger })!;
    const external = simulatedDgiRegistrar({ mode: 'simulator', logger })!;
    for (const warning of [await failing(range), await external(range)]) {
      assert.match(warning ?? '', /rechazará sus comprobantes con E09/);
      assert.match(warning ?? '', /POST \/api\/v1\/sandbox\/dgi\/cae/);
    }
    assert.match((await failing(range))!, /EACCES state\.jsonl/);
    assert.match((await external(range))!, /DGI_SIMULATOR_URL/);
  });
});
