/**
 * Every module's crontab line, together as the job runner joins them: graphile-worker refuses the
 * whole crontab at start when one task identifier is invalid (no dots allowed), which would stop
 * the worker, so all of them are parsed here and must name registered jobs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCrontab } from 'graphile-worker';
import { CFE_DOCUMENTS_CRON, purgePreviewsJob } from '../../src/modules/cfe-documents/index.js';
import { dailyReportCronJob, dailyReportCrontab } from '../../src/modules/daily-report/daily-report.jobs.js';
import { SUBMIT_PENDING_CRON, submitPendingJob } from '../../src/modules/dgi-submission/dgi-submission.jobs.js';
import { dispatchJob, receiverExchangeCrontab } from '../../src/modules/receiver-exchange/receiver-exchange.jobs.js';
import { compactJob, maintenanceJob, usageCrontab } from '../../src/modules/usage/usage.jobs.js';
import { recurringCrontab, tickJob } from '../../src/modules/recurring/recurring.jobs.js';
import { closeJob, contractBillingCrontab } from '../../src/modules/contract-billing/contract-billing.jobs.js';

test('all crontab lines parse and name their jobs', () => {
  const items = parseCrontab([...CFE_DOCUMENTS_CRON, dailyReportCrontab, receiverExchangeCrontab, SUBMIT_PENDING_CRON, ...usageCrontab, recurringCrontab, ...contractBillingCrontab].join('\n'));
  assert.deepEqual(items.map((i) => i.task), [purgePreviewsJob.name, dailyReportCronJob.name, dispatchJob.name, submitPendingJob.name, maintenanceJob.name, compactJob.name, tickJob.name, closeJob.name]);
  assert.equal(items.find((i) => i.task === dailyReportCronJob.name)?.options.maxAttempts, 1);
});
