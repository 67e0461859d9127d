/**
 * The examples of every operation, kept apart from the route schemas (one file per group of the
 * spec's sections) and keyed by operationId; applyExamples puts them into the OpenAPI document
 * when it is generated: the request body's `example` and the success answers' (written here,
 * else, for the first success status, the answer recorded from a fresh service in responses.ts by `npm run openapi:examples`).
 * test/openapi-examples.int.test.ts posts every request example, in the order of a first
 * integration, against a fresh service and fails on an operation with a body and no example.
 */
import type { OpenApiDocument } from '../openapi-layout.js';
import { operations } from '../openapi-layout.js';
import { adminExamples } from './admin.js';
import { billingExamples } from './billing.js';
import { emissionExamples } from './emission.js';
import { gettingStartedExamples } from './getting-started.js';
import { mastersExamples } from './masters.js';
import { receivedExamples } from './received.js';
import { recordedResponses } from './responses.js';
import type { ExampleCatalogue } from './types.js';

export const OPERATION_EXAMPLES: ExampleCatalogue = {
  ...gettingStartedExamples, ...emissionExamples, ...receivedExamples, ...mastersExamples, ...billingExamples, ...adminExamples,
};

interface Media { example?: unknown }
interface WithBodies { requestBody?: { content?: Record<string, Media> }; responses?: Record<string, { content?: Record<string, Media> }> }

export function applyExamples(doc: OpenApiDocument, catalogue: ExampleCatalogue = OPERATION_EXAMPLES): void {
  for (const { op } of operations(doc)) {
    const example = op.operationId ? catalogue[op.operationId] ?? {} : undefined;
    if (!example) continue;
    const o = op as WithBodies;
    const json = o.requestBody?.content?.['application/json'];
    if (json && example.request !== undefined) json.example = example.request;
    const successes = Object.keys(o.responses ?? {}).filter((s) => s.startsWith('2')).sort();
    for (const status of successes) {
      const answer = o.responses![status].content?.['application/json'];
      const response = status === successes[0] ? example.response ?? recordedResponses[op.operationId!] : example.responses?.[status];
      if (answer && response !== undefined) answer.example = response;
    }
  }
}
