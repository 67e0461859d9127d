import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../platform/http/error-body.js';
import { catalogueMarkdown } from './events.catalogue.js';
import * as s from './events.schemas.js';
import type { EventsService } from './events.service.js';

export function eventsRoutes(events: EventsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/eventos', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['webhooks y eventos'],
        summary: 'Events feed (poll for missed events)',
        description: [
          'Events of `idEmpresa`, oldest first, after the opaque cursor `after`. Poll with the `cursor` of the previous',
          'answer to get only what is new; `start`/`length` page within the result. The items are exactly the JSON bodies',
          'delivered to webhooks.',
          '',
          'The feed never skips an event that commits late: an event shows once every database transaction that was already',
          'writing when it was written has finished (normally milliseconds after its commit; the request waits up to 250 ms for',
          'them). A longer-running writing transaction delays the feed, it never reorders it. Older cursors (a plain event id) are',
          'still accepted.',
          '',
          catalogueMarkdown(),
        ].join('\n'),
        querystring: s.feedQuery,
        response: { 200: s.feedResponse, ...errorResponses },
      },
    }, async (req) => {
      const { idEmpresa, after, start, length } = req.query;
      const { data, total, cursor } = await events.feed(idEmpresa, after, { start, length });
      return { data, total, start, length, cursor };
    });
  };
}
