import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { listErrorCodes } from '../../lib/errors.js';

/** OpenAPI 3 generated from the route schemas, served at /openapi.json with Swagger UI at /docs. */
export async function registerOpenApi(app: FastifyInstance, opts: { version: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Facturación electrónica Uruguay (CFE DGI)',
        version: opts.version,
        description: [
          'Multi-company electronic invoicing API for Uruguay (DGI CFE).',
          '',
          '**Authentication.** `POST /api/auth/login` returns a short-lived Bearer access token (JWT) and an opaque refresh token;',
          '`POST /api/auth/refresh` rotates it. Every other endpoint requires `Authorization: Bearer <accessToken>`.',
          '',
          '**Tenancy.** Any `idEmpresa` (query, path or body) is checked against the caller before any work; a company the',
          'caller cannot see answers exactly like one that does not exist (404 `EMPRESA_NO_ENCONTRADA`).',
          'Every other id of a request that names a company\'s resource (schema key `x-empresa-ref`: its kind) must belong to the',
          'request\'s company (its `idEmpresa`, else the resource the operation acts on): another company\'s id answers exactly like',
          'an id that does not exist (same status and code).',
          '',
          '**Roles.** Each operation states its minimum role on the company it acts on (`x-rol`, and the last line of its',
          'description): `lectura` < `emisor` < `administrador`. A lower role is refused with 403 `SIN_PERMISO`.',
          '',
          '**Paging.** Lists take `start` (offset, default 0) and `length` (1..500, default 50) and answer `{ data, total, start, length }`.',
          '',
          '**Text.** Every text (JSON body, query, path) must be representable in DGI\'s XML: control characters other than tab,',
          'line feed and carriage return, NUL, U+FFFE/U+FFFF and unpaired surrogates are refused with 400 `VALIDACION` naming the field.',
          'A number beyond what its field stores (ids are 32-bit) is a 400 too.',
          '',
          '**Strict bodies.** A JSON body field the operation does not define is refused with 400 `CAMPO_DESCONOCIDO`, `campos[]` naming each',
          'one by its JSON path (e.g. `cfe.totales.mntNetoIvaTasaBasica`); nothing is dropped in silence. Alternate names an operation documents are accepted.',
          '',
          '**DGI limits at the door.** A value that will reach a CFE (rates, customers, products, branches, order lines, emitir) is checked when it is',
          'saved against the facets of the DGI XSD type that will carry it (digits, decimals, range, length, enumeration): a 400 naming the field, never a later `XML_INVALIDO`.',
          '',
          '**Errors.** Every error body is JSON `{ error, code, requestId }` (+ `campos` on validation errors). Endpoints not built yet answer 501 `NO_IMPLEMENTADO`.',
          '',
          '| code | HTTP | meaning |',
          '|---|---|---|',
          ...listErrorCodes().map((c) => `| \`${c.code}\` | ${c.status} | ${c.message} |`),
        ].join('\n'),
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}
