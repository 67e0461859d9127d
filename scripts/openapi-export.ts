/**
 * `npm run openapi:export [-- file]`: writes the OpenAPI document that the service serves at
 * /openapi.json to a file (default `openapi.json`), for client generators and API gateways that
 * want it without a running service (scripts/openapi-document.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from './openapi-document.js';

const out = path.resolve(process.argv[2] ?? 'openapi.json');
const doc = await openApiDocument();
fs.writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
console.log(`openapi: ${Object.keys(doc.paths).length} paths written to ${out}`);
