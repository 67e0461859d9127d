/** The wake-up's debounce: a notification is never left without a submit-pending run at or after it. */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { debounce } from './dgi-submission.waker.ts';

describe('debounce (leading and trailing edge)', () => {
  test('the first hit fires at once; hits within the window fire once more when it ends, never more', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let clock = 0;
      const fired: number[] = [];
      const d = debounce(500, () => fired.push(clock), () => clock);
      d.hit();
      assert.deepEqual(fired, [0]);
      // The end of a burst: receipts signed 100 and 200 ms later, then nothing.
      clock = 100;
      d.hit();
      clock = 200;
      d.hit();
      assert.deepEqual(fired, [0], 'inside the window: nothing yet');
      clock = 500;
      mock.timers.tick(500);
      assert.deepEqual(fired, [0, 500], 'one trailing call at the end of the window (leading only dropped them)');
      clock = 3000;
      mock.timers.tick(2500);
      assert.deepEqual(fired, [0, 500], 'no hit, no call');
      d.hit();
      assert.deepEqual(fired, [0, 500, 3000], 'after a quiet window a hit fires at once again');
    } finally {
      mock.timers.reset();
    }
  });

  test('cancel drops a pending trailing call (the waker stopping)', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let clock = 0;
      const fired: number[] = [];
      const d = debounce(500, () => fired.push(clock), () => clock);
      d.hit();
      clock = 100;
      d.hit();
      d.cancel();
      clock = 600;
      mock.timers.tick(600);
      assert.deepEqual(fired, [0]);
    } finally {
      mock.timers.reset();
    }
  });
});
