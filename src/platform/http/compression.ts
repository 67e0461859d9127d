/**
 * Response compression (@fastify/compress) for the answers that benefit: the OpenAPI document
 * (~3 MB of JSON, ~25x smaller), lists, exports, XML. Measured by `npx tsx bench/compression.ts`
 * (figures in bench/RESULTS.md):
 * - `threshold` 1 KiB: smaller answers (health, ids, most single resources, errors) are sent as they
 *   are: on those gzip saves a few hundred bytes at most and costs a zlib call per answer.
 * - emitir's answer (~6 KB, most of it the QR PNG in base64, which barely compresses) is sent as it
 *   is too: the emission path stays exactly as fast as without the plugin (the route opts out below).
 * - brotli at quality 4 (the plugin's default) and gzip level 6; zstd is not offered.
 * Clients that send no Accept-Encoding get identity answers, as before. Request bodies are not
 * decompressed (the plugin's other half is off): the request path is unchanged.
 */
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Hot paths whose answers are not compressed (the emission path: per-receipt CPU is the service's budget). */
const UNCOMPRESSED_ROUTES = new Set(['/api/v1/comprobante/emitir']);

export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Before the plugin: its own onRoute hook reads the route's `compress` option.
  app.addHook('onRoute', (route) => {
    if (UNCOMPRESSED_ROUTES.has(route.url)) route.compress = false;
  });
  await app.register(compress, { threshold: COMPRESSION_THRESHOLD_BYTES, encodings: ['br', 'gzip'], globalDecompression: false });
}
