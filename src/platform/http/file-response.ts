import { z } from 'zod';

/**
 * A download's success answer (a spreadsheet, ZIP, CSV, image): declared with its real media
 * type(s) and a binary body, so the OpenAPI document (and the clients generated from it) do not
 * present it as JSON. The handler sets the Content-Type and sends a stream or buffer, which Fastify
 * sends as is: this schema never serialises anything.
 */
export function fileResponse(description: string, ...mediaTypes: string[]) {
  const binary = z.any().meta({ type: 'string', format: 'binary' });
  return { description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: binary }])) };
}
