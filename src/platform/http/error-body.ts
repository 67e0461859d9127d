import { z } from 'zod';

/** Every error body (issue 2 point 3): `error` human-readable, `code` stable, `requestId`. */
export const errorBody = z
  .object({
    error: z.string().describe('Human-readable message (Spanish).'),
    code: z.string().describe('Stable machine code from the error catalogue.'),
    requestId: z.string(),
    campos: z.array(z.object({ campo: z.string(), mensaje: z.string() })).optional().describe('Failing fields of a validation error.'),
  })
  .passthrough();

export const errorResponses = {
  400: errorBody.describe('Invalid input'),
  401: errorBody.describe('Missing or invalid access token'),
  403: errorBody.describe('Role does not allow the operation'),
  404: errorBody.describe('Not found (or not visible to the caller)'),
} as const;
