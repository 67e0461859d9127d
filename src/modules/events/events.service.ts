/**
 * Business events (spec 6): the outbox writer other modules call inside their own transaction,
 * and the polling feed GET /api/v1/eventos.
 */
import type { SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { TEST_EVENT_TYPE, toEnvelope, type EventEnvelope, type EventType } from './events.catalogue.js';
import { eventErrors } from './events.errors.js';
import * as repo from './events.repository.js';

export interface RecordEventInput {
  type: EventType;
  companyId: number;
  /** The resource the event is about; becomes `data` of the delivered JSON. */
  resource: Record<string, unknown>;
}

export function createEventsService(deps: { db: Db }) {
  return {
    /**
     * Writes the event to the outbox. Call it with the transaction of the change that caused the
     * event: it commits (and is delivered) or rolls back together with that change.
     */
    async record(tx: DbOrTx, input: RecordEventInput): Promise<EventEnvelope> {
      const [row] = await repo.insertEvents(tx, [{ companyId: input.companyId, type: input.type, data: input.resource }]);
      return toEnvelope(row);
    },

    /** Several events in one INSERT (an emission batch), same transaction rules as `record`. */
    async recordMany(tx: DbOrTx, inputs: RecordEventInput[]): Promise<void> {
      if (inputs.length) await repo.insertEventsJson(tx, inputs.map((i) => ({ companyId: i.companyId, type: i.type, data: i.resource })));
    },

    /**
     * The outbox INSERT of the events a query yields (columns company_id, type, data), to be a CTE
     * of the caller's own statement: the emission batch stores CFEs and events in one statement.
     * Same rules as `record`: it commits (and NOTIFYs) or rolls back with that statement.
     */
    insertFrom: (select: SQL): SQL => repo.insertEventsFrom(select),

    /** The test event of one endpoint: stored for the delivery log, never fanned out to others. */
    async recordTestEvent(tx: DbOrTx, companyId: number, data: Record<string, unknown>) {
      const [row] = await repo.insertEvents(tx, [{ companyId, type: TEST_EVENT_TYPE, data, fannedOutAt: new Date() }]);
      return row;
    },

    /** Events of the company after the cursor, oldest first. */
    async feed(companyId: number, after: string | undefined, paging: Paging) {
      const afterId = parseCursor(after);
      const { rows, total } = await repo.listCompanyEvents(deps.db, companyId, afterId, paging, TEST_EVENT_TYPE);
      const data = rows.map(toEnvelope);
      const last = rows.at(-1);
      return { data, total, cursor: last ? String(last.id) : (after ?? '0') };
    },
  };
}

function parseCursor(after: string | undefined): number {
  if (after === undefined || after === '') return 0;
  if (!/^\d{1,15}$/.test(after)) throw eventErrors.CURSOR_INVALIDO();
  return Number(after);
}

export type EventsService = ReturnType<typeof createEventsService>;
