import type { FastifyRequest } from 'fastify';

/** Reads a multipart form (one file plus text fields) into memory; files are small (CAE, .p12). */
export async function readMultipart(request: FastifyRequest): Promise<{ fields: Record<string, string>; file?: Buffer }> {
  const fields: Record<string, string> = {};
  let file: Buffer | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file') file = await part.toBuffer();
    else fields[part.fieldname] = String(part.value);
  }
  return { fields, file };
}
