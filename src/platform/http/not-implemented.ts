import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { errorPayload } from './error-handler.js';
import { specEndpoints } from './spec-surface.js';

/**
 * Registers a 501 route for every spec endpoint no module has claimed. Must be registered after
 * all modules (avvio loads plugins in order, so their routes exist by then).
 */
export async function registerNotImplemented(app: FastifyInstance): Promise<void> {
  for (const ep of specEndpoints) {
    if (app.hasRoute({ method: ep.method, url: ep.path })) continue;
    app.route({
      method: ep.method,
      url: ep.path,
      // Answers 501 whoever calls; the role only says the caller must be signed in.
      config: { minRole: 'lectura' },
      schema: {
        summary: `${ep.summary} (not implemented yet)`,
        description: `Not implemented yet: answers 501 \`NO_IMPLEMENTADO\`. Area: ${ep.area}.`,
        tags: ['pendiente'],
      },
      handler: async (request, reply) => {
        const e = errors.NO_IMPLEMENTADO(`${ep.method} ${ep.path} aún no está implementado (área: ${ep.area}).`, { area: ep.area });
        return reply.status(501).send(errorPayload(e, request.id));
      },
    });
  }
}
