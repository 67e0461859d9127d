/**
 * How the OpenAPI document reads (what /docs opens on): a short overview, the operations grouped by
 * the spec's sections in the order an integrator meets them (section 4 of the interface spec,
 * getting started first), a stable operationId on every operation (client generators name their
 * methods after it), no body on a 204, and every error response linked to the error catalogue page (error-page.ts)
 * instead of a 300-row table at the top. Applied once, when the document is generated.
 */
export const ERROR_PAGE = '/docs/errores';

/** The overview at the top of /docs: only what every call needs; the rest is collapsed. */
export const OVERVIEW = [
  'Multi-company electronic invoicing API for Uruguay (DGI CFE). The operations below follow the order of a first integration:',
  'log in, create the company and its branch, get a certificate and CAE ranges, then issue.',
  '',
  '- **Auth.** `POST /api/auth/login` answers a Bearer access token (JWT, 15 min) and a refresh token; `POST /api/auth/refresh`',
  '  exchanges the refresh token (once) for a new pair. Send `Authorization: Bearer <accessToken>` on every other call (the **Authorize** button).',
  '- **Company selection.** There is no "current company": each call names it with `idEmpresa` (query, path or body);',
  '  `GET /api/v1/usuario/empresas` lists the caller\'s companies and role (`lectura` < `emisor` < `administrador`).',
  '- **Paging.** Lists take `start` (offset, default 0) and `length` (1..500, default 50) and answer `{ data, total, start, length }`.',
  `- **Errors.** JSON \`{ error, code, requestId }\` (+ \`campos\` naming each bad field on 400); \`code\` is stable: see the [error catalogue](${ERROR_PAGE}).`,
  '- **Idempotency.** `POST /api/v1/comprobante/emitir` takes an `Idempotency-Key` header: a repeated key returns the first receipt',
  '  (`Idempotent-Replayed: true`), the same key with another body is 409 `IDEMPOTENCIA_CONFLICTO`. Retry emission with the same key.',
  '- **Webhooks.** `POST /api/v1/webhooks` registers a URL for events (`Cfe.Emitido`, …); deliveries carry the Standard Webhooks',
  '  headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (HMAC-SHA256 with the endpoint\'s `secret`). Changes: CHANGELOG.md.',
  '',
  '<details><summary>More conventions (tenancy, roles, text, strict bodies, DGI limits)</summary>',
  '',
  'A company the caller cannot see answers exactly like one that does not exist (404 `EMPRESA_NO_ENCONTRADA`); every other id of a',
  'request (schema key `x-empresa-ref`) must belong to the request\'s company, else it answers like an id that does not exist.',
  'Each operation states its minimum role (`x-rol`, last line of its description); a lower role is 403 `SIN_PERMISO`.',
  'Text must be representable in DGI\'s XML (no control characters but tab, LF, CR; no U+FFFE/U+FFFF, no unpaired surrogates): else 400',
  '`VALIDACION` naming the field; a number beyond its field (ids are 32-bit) is a 400 too. A body field the operation does not define',
  'is 400 `CAMPO_DESCONOCIDO` with its JSON path in `campos[]`. A value that will reach a CFE is checked when saved against the facets of',
  'the DGI XSD type that carries it (400 naming the field, never a later `XML_INVALIDO`). Endpoints not built answer 501 `NO_IMPLEMENTADO`.',
  '',
  '</details>',
].join('\n');

interface TagGroup { name: string; tags: Array<[tag: string, description: string]> }

/** The spec's sections (interface spec 4.x), grouped and ordered as an integrator meets them. */
export const TAG_GROUPS: TagGroup[] = [
  { name: 'Primeros pasos', tags: [
    ['Auth', 'Getting started 1: log in, refresh and revoke tokens, recover a password.'],
    ['Empresa', 'Getting started 2: the company (RUT, fiscal data, certificates, logo, mail, parameters).'],
    ['Sucursal', 'Getting started 3: branches (CodigoCasaDgi) of a company.'],
    ['Punto Emision', 'Getting started 4: emission points (terminals, cash registers) of a branch.'],
    ['Sandbox DGI (solo simulador)', 'Getting started 5: a test certificate and signed CAE files from the simulated DGI (simulator mode only).'],
    ['CAE', 'Getting started 6: number ranges authorised by DGI (import, availability, contingency).'],
    ['Prueba de Testing DGI', 'Getting started 7: DGI\'s testing set (homologation), run against DGI\'s Testing or the simulator, with its report.'],
  ] },
  { name: 'Emisión', tags: [
    ['Comprobante', 'Issue a CFE (emitir), preview it, sign XML, transcribe contingency receipts.'],
  ] },
  { name: 'CFE emitidos', tags: [
    ['CFE emitido', 'Issued receipts: search, state, PDF, XML, e-mail, envelopes.'],
    ['Sobres DGI', 'Envelopes (EnvioCFE) sent to DGI and their answers.'],
    ['Reporte diario', 'The daily summary report (RPTD) to DGI.'],
    ['Exportación contable', 'Accounting export of issued receipts.'],
    ['Consulta pública', 'The buyers\' public receipt lookup (HTML form, PDF and XML; no token).'],
  ] },
  { name: 'CFE recibidos', tags: [
    ['CFE recibido', 'Receipts other companies sent: intake, accept or reject, QR check, reconciliation.'],
  ] },
  { name: 'Maestros', tags: [
    ['Cliente', 'Customers (receptores).'],
    ['Producto', 'Products, variants, lots and series.'],
    ['Monedas y cotizaciones', 'Currencies and exchange rates.'],
    ['beneficio fiscal', 'Tax-benefit declarations of the company.'],
  ] },
  { name: 'Facturación', tags: [
    ['Orden de venta', 'Sales orders that end in a CFE.'],
    ['Facturación recurrente', 'Recurring invoicing plans.'],
    ['suscripciones y contratos', 'Usage events, contracts, price books and the usage that bills them.'],
  ] },
  { name: 'Webhooks', tags: [
    ['webhooks y eventos', 'Webhook endpoints, deliveries and the event log.'],
  ] },
  { name: 'Administración', tags: [
    ['Usuario', 'Users and their companies and roles.'],
    ['Salud', 'Liveness and readiness.'],
  ] },
];

interface Operation {
  operationId?: string;
  tags?: string[];
  responses?: Record<string, { description?: string; content?: unknown }>;
}
export interface OpenApiDocument {
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  [key: string]: unknown;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/**
 * `post /api/v1/empresa/crear` → `postEmpresaCrear`, `get /api/v1/cfeemitido/{id}` → `getCfeemitidoById`:
 * method, then the path after `/api/` and `v1/`, path parameters as `By<Name>`.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path.replace(/^\/api\/(v1\/)?/, '').split(/[/\-_.]+/).filter(Boolean)
    .map((w) => (w.startsWith('{') ? `By${cap(w.slice(1, -1))}` : cap(w)));
  return method.toLowerCase() + words.join('');
}

function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Every operation of the document, with its method and path. */
export function* operations(doc: OpenApiDocument): Generator<{ method: string; path: string; op: Operation }> {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (METHODS.has(method)) yield { method, path, op };
  }
}

/** Orders the tags, names the operations, drops 204 bodies and links error responses to the catalogue (mutates `doc`). */
export function arrangeDocument(doc: OpenApiDocument): OpenApiDocument {
  const used = new Set<string>();
  for (const { method, path, op } of operations(doc)) {
    op.operationId ??= operationIdOf(method, path);
    for (const t of op.tags ?? []) used.add(t);
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      // A 204 has no body (RFC 9110 15.3.5): the route's `z.null()` is not a JSON answer to document.
      if (status === '204') delete response.content;
      if (Number(status) >= 400 && !response.description?.includes(ERROR_PAGE)) {
        response.description = `${response.description ?? 'Error'}. Codes: [error catalogue](${ERROR_PAGE}).`;
      }
    }
  }
  const known = TAG_GROUPS.flatMap((g) => g.tags.map(([name]) => name));
  // A tag no group names yet (a new module) still shows, after the grouped ones.
  const others = [...used].filter((t) => !known.includes(t));
  doc.tags = [
    ...TAG_GROUPS.flatMap((g) => g.tags.filter(([name]) => used.has(name)).map(([name, description]) => ({ name, description: `**${g.name}.** ${description}` }))),
    ...others.map((name) => ({ name })),
  ];
  doc['x-tagGroups'] = [
    ...TAG_GROUPS.map((g) => ({ name: g.name, tags: g.tags.map(([name]) => name).filter((n) => used.has(n)) })),
    ...(others.length ? [{ name: 'Otros', tags: others }] : []),
  ];
  return doc;
}
