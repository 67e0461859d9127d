import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { arrangeDocument, OVERVIEW, type OpenApiDocument } from './openapi-layout.js';
import { registerErrorPage } from './error-page.js';
import { applyExamples } from './openapi-examples/index.js';

/**
 * OpenAPI 3 generated from the route schemas, served at /openapi.json with Swagger UI at /docs; laid
 * out by openapi-layout.ts (overview, tag order, operationIds), error catalogue at /docs/errores.
 */
export async function registerOpenApi(app: FastifyInstance, opts: { version: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Facturación electrónica Uruguay (CFE DGI)',
        version: opts.version,
        description: OVERVIEW,
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (doc) => {
      const document = arrangeDocument((doc as { openapiObject: unknown }).openapiObject as OpenApiDocument);
      applyExamples(document);
      return document as never;
    },
  });
  // Operations collapsed under their tags, so /docs opens on the list of operations; the token survives a reload.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: true, displayOperationId: false } });
  registerErrorPage(app);
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}
