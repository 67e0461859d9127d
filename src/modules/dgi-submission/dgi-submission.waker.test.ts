/** The wake-up's debounce: a notification is never left without a submit-pending run at or after it. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { debounce } from './dgi-submission.waker.ts';

describe('debounce (leading and trailing edge)', () => {
  let clock = 0;
  let fired: number[] = [];
  /** Moves the clock and node's timers together. */
  const at = (ms: number) => {
    const step = ms - clock;
    clock = ms;
    mock.timers.tick(step);
  };
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout'] });
    clock = 0;
    fired = [];
  });
  afterEach(() => mock.timers.reset());
  const debounced = () => debounce(500, () => fired.push(clock), () => clock);

  test('the first hit fires at once; hits within the window fire once more when it ends, never more', () => {
    const d = debounced();
    d.hit();
    assert.deepEqual(fired, [0]);
    // The end of a burst: receipts signed 100 and 200 ms later, then nothing.
    at(100);
    d.hit();
    at(200);
    d.hit();
    assert.deepEqual(fired, [0], 'inside the window: nothing yet');
    at(500);
    assert.deepEqual(fired, [0, 500], 'one trailing call at the end of the window (leading only dropped them)');
    at(3000);
    assert.deepEqual(fired, [0, 500], 'no hit, no call');
    d.hit();
    assert.deepEqual(fired, [0, 500, 3000], 'after a quiet window a hit fires at once again');
  });

  test('cancel drops a pending trailing call (the waker stopping)', () => {
    const d = debounced();
    d.hit();
    at(100);
    d.hit();
    d.cancel();
    at(700);
    assert.deepEqual(fired, [0]);
  });
});
