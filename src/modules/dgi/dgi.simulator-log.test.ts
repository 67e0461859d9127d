/**
 * The simulator's request log is bounded (issue 29 point 5): `npm start` runs the simulator in
 * process, and a log of every envelope it ever received (each up to ~1 MB of XML) grew without end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDgiSimulator } from './dgi.simulator.ts';

test('control.submissions() keeps the newest requests and drops the oldest', async () => {
  const sim = await startDgiSimulator({ port: 0, keepSubmissions: 3 });
  try {
    for (let i = 1; i <= 8; i++) await (await fetch(sim.urls.bcu, { method: 'POST', body: `<request n="${i}"/>` })).text();
    const kept = sim.control.submissions().map((s) => s.xmlData);
    assert.ok(kept.length >= 3 && kept.length < 6, `kept ${kept.length}`);
    assert.deepEqual(kept.slice(-3), [6, 7, 8].map((i) => `<request n="${i}"/>`), 'the newest, in order');
    assert.ok(!kept.includes('<request n="1"/>'), 'the oldest were dropped');
  } finally {
    await sim.close();
  }
});
