/**
 * `npm run bench`: runs every scenario file present in bench/ and prints all figures.
 * Each scenario exports `run…Bench()`; a missing or failing file is reported, not fatal.
 */
import { existsSync } from 'node:fs';

const scenarios: Array<[file: string, exportName: string]> = [
  ['./signing.ts', 'runSigningBench'],
  ['./emission.ts', 'runEmissionBench'],
  ['./webhooks.ts', 'runWebhookBench'],
  ['./pdf.ts', 'runPdfBench'],
  ['./cfe-documents.ts', 'runCfeDocumentsBench'],
  ['./signature-micro.ts', 'runSignatureMicroBench'],
  ['./wss-sign.ts', 'runWssSignBench'],
  ['./intake.ts', 'runIntakeBench'],
  ['./lifecycle.ts', 'runLifecycleBench'],
  ['./startup.ts', 'runStartupBench'],
  ['./usage-pricing.ts', 'runUsagePricingBench'],
  ['./compression.ts', 'runCompressionBench'],
];
// Usage metering (issue 33): ingestion over HTTP and the query over 10M events: only with `--usage`.
if (process.argv.includes('--usage')) scenarios.push(['./usage.ts', 'runUsageBench']);
// 10,000 recurring plans due at once (issue 32): only with `npm run bench -- --recurring`.
if (process.argv.includes('--recurring')) scenarios.push(['./recurring.ts', 'runRecurringBench']);
// Contract billing (issue 34): ingestion with/without usage rules and closing 10,000 periods into CFEs: only with `--contracts`.
if (process.argv.includes('--contracts')) scenarios.push(['./contract-billing.ts', 'runContractBillingBench']);
// Slow (inserts ~1.1M rows): only with `npm run bench -- --search`.
if (process.argv.includes('--search')) scenarios.push(['./search.ts', 'runSearchBench'], ['./received-search.ts', 'runReceivedSearchBench']);
// Inserts 200,000 received CFE: only with `npm run bench -- --received-exports`.
if (process.argv.includes('--received-exports')) scenarios.push(['./received-exports.ts', 'runReceivedExportsBench']);

const results: Record<string, unknown> = {};
for (const [file, name] of scenarios) {
  if (!existsSync(new URL(file, import.meta.url))) continue;
  try {
    const mod = (await import(file)) as Record<string, () => Promise<unknown>>;
    if (typeof mod[name] !== 'function') continue;
    console.log(`\n== ${file} ==`);
    results[file] = await mod[name]();
  } catch (err) {
    console.error(`${file} failed:`, err instanceof Error ? err.message : err);
    results[file] = { error: String(err) };
  }
}
console.log('\n== all figures ==');
console.log(JSON.stringify(results, null, 2));
process.exit(0);
