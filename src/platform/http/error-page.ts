/**
 * The error catalogue as its own page (/docs/errores, HTML, one anchor per code) and as JSON
 * (/docs/errores.json), linked from the overview and every error response of the OpenAPI document
 * instead of filling the top of /docs. Both come from the one catalogue (lib/errors.ts).
 */
import type { FastifyInstance } from 'fastify';
import { listErrorCodes } from '../../lib/errors.js';
import { ERROR_PAGE } from './openapi-layout.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(): string {
  const rows = listErrorCodes().map((c) =>
    `<tr id="${escape(c.code)}"><td><a href="#${escape(c.code)}"><code>${escape(c.code)}</code></a></td><td>${c.status}</td><td>${c.retryable ? 'yes' : ''}</td><td>${escape(c.message)}</td></tr>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error catalogue</title>
<style>body{font:14px/1.4 sans-serif;margin:2em;max-width:70em}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}code{white-space:nowrap}tr:target{background:#ffd}</style>
</head><body>
<p><a href="/docs">← API documentation</a> · <a href="${ERROR_PAGE}.json">JSON</a></p>
<h1>Error catalogue</h1>
<p>Every error answer is JSON <code>{ error, code, requestId }</code> (plus <code>campos</code> on validation errors). <code>code</code> is stable;
<code>error</code> is a Spanish sentence that may be more specific than the default below. "Retryable": a job or client may retry later unchanged.</p>
<table><thead><tr><th>code</th><th>HTTP</th><th>retryable</th><th>default message</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></body></html>
`;
}

export function registerErrorPage(app: FastifyInstance): void {
  const config = { public: true };
  app.get(ERROR_PAGE, { schema: { hide: true }, config }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(page()));
  app.get(`${ERROR_PAGE}.json`, { schema: { hide: true }, config }, async () =>
    listErrorCodes().map((c) => ({ code: c.code, status: c.status, retryable: c.retryable ?? false, message: c.message })));
}
