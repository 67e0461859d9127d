import { z } from 'zod';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { pagingQuery } from '../../platform/http/paging.js';

export const eventItem = z.object({
  id: z.string().describe('Event id, e.g. `evt_123`; the same value as the `webhook-id` header of its deliveries.'),
  type: z.string().describe('Event name from the catalogue.').meta({ example: 'Cfe.Emitido' }),
  time: z.string().describe('When the change was committed (ISO 8601 UTC).'),
  idEmpresa: z.number().int(),
  data: z.unknown().describe('The resource the event is about.'),
});

export const feedQuery = pagingQuery.extend({
  idEmpresa: positiveInt4.describe('Company whose events to read.'),
  after: z.string().max(40).optional().describe('Opaque cursor: the `cursor` of the previous response. Omit to read from the beginning.'),
});

export const feedResponse = z.object({
  data: z.array(eventItem),
  total: z.number().int().describe('Events after the cursor, ignoring paging.'),
  start: z.number().int(),
  length: z.number().int(),
  cursor: z.string().describe('Pass as `after` in the next poll (the last event returned; unchanged when there is none).'),
});
