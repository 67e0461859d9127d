/**
 * The operations of the served OpenAPI document that take a JSON body, and a sender that posts a
 * body to one of them as the administrator: shared by the checks that walk every body
 * (unknown-fields, strict-types).
 */
import type { TestApp } from './app.js';

export type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; allOf?: JsonSchema[]; enum?: unknown[]; const?: unknown; properties?: Record<string, JsonSchema>; additionalProperties?: unknown; required?: string[]; items?: JsonSchema; minimum?: number; format?: string };

export interface BodyOperation {
  method: string;
  path: string;
  schema: JsonSchema;
  /** The path with every parameter set to 1. */
  url: string;
}

export async function jsonBodyOperations(t: TestApp): Promise<BodyOperation[]> {
  const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>> };
  const out: BodyOperation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema && ['post', 'put', 'patch'].includes(method)) out.push({ method, path, schema, url: path.replace(/\{(\w+)\}/g, '1') });
    }
  }
  return out;
}

/** Posts `body` as the administrator, logging in again when an operation (revoke-all-tokens) revoked the token. */
export function bodySender(t: TestApp, token: string) {
  return async (op: BodyOperation, body: unknown) => {
    const send = () => t.app.inject({ method: op.method.toUpperCase() as 'POST', url: op.url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    let res = await send();
    if (res.statusCode === 401 && !op.path.startsWith('/api/auth/')) {
      token = await t.adminToken();
      res = await send();
    }
    return res;
  };
}
