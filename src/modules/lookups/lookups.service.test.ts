/**
 * The in-process simulated DGI behind the lookups (lookups.service.ts): a thread that ends without the service
 * asking is logged with its cause and started again at the next call, on the same state file; the service's own
 * close is not logged.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../../platform/logger.js';
import { createLookups } from './lookups.service.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lookups-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('in-process simulator thread', () => {
  test('an end the service did not ask for is logged, and the next call starts it again on the same state', async () => {
    const logged: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    const logger = { error: (fields: Record<string, unknown>, msg: string) => void logged.push({ fields, msg }) } as unknown as Logger;
    const lookups = createLookups(
      { mode: 'simulator', simulatorStatePath: path.join(dir, 'state.jsonl'), rutUrl: '', bcuUrl: '', consultasUrl: '', cacheTtlSeconds: 60 },
      logger,
    );
    const first = (await lookups.simulator())!;
    first.control.issueCae({ rucEmisor: '211234560019', tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31' });
    await first.close(); // not through lookups.close(): to the lookups, the thread just ended
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(logged.map((l) => [l.msg, l.fields.code]), [['the in-process DGI simulator thread ended; it starts again at the next DGI call', 0]]);

    const again = (await lookups.simulator())!;
    assert.notEqual(again, first);
    assert.equal(again.control.caCertificatePem, first.control.caCertificatePem);
    assert.deepEqual(again.control.caes().map((c) => c.serie), ['A']);
    await lookups.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(logged.length, 1, 'the service closing its simulator is no incident');
  });
});
