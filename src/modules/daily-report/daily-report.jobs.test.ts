import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCrontab } from 'graphile-worker';
import { dailyReportCronJob, dailyReportCrontab } from './daily-report.jobs.js';
import { dispatchJob, receiverExchangeCrontab } from '../receiver-exchange/receiver-exchange.jobs.js';

test('the crontab lines parse (graphile task identifiers allow no dots) and name the registered jobs', () => {
  const items = parseCrontab([dailyReportCrontab, receiverExchangeCrontab].join('\n'));
  assert.deepEqual(items.map((i) => i.task), [dailyReportCronJob.name, dispatchJob.name]);
  assert.ok(items.every((i) => i.options.maxAttempts === 1));
});
