import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCrontab } from 'graphile-worker';
import { CFE_DOCUMENTS_CRON, purgePreviewsJob } from './index.ts';

describe('cfe-documents crontab', () => {
  it('parses with graphile-worker and names the purge job', () => {
    const items = parseCrontab(CFE_DOCUMENTS_CRON.join('\n'));
    assert.deepEqual(items.map((i) => i.task), [purgePreviewsJob.name]);
  });
});
