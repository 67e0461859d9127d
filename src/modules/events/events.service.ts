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

/** How long the feed waits for older transactions that hold back events committed before the request. */
const FEED_SETTLE_MS = 250;
/** How often it looks whether they finished: a dozen cheap queries at most per feed request. */
const FEED_SETTLE_POLL_MS = 20;

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

    /**
     * Events of the company after the cursor, in commit-safe order (see listCompanyEvents). The
     * cursor is `<xid>.<id>` of the last event returned; a plain id (the earlier form) still works.
     */
    async feed(companyId: number, after: string | undefined, paging: Paging) {
      const cursor = parseCursor(after);
      const position = typeof cursor === 'number' ? await repo.positionOfId(deps.db, companyId, cursor) : cursor;
      let page = await repo.listCompanyEvents(deps.db, companyId, position, paging, TEST_EVENT_TYPE);
      // Events already committed but held back by an older transaction still running: give that
      // transaction a moment, so a reader normally sees what was committed before its request.
      if (page.heldXid !== null) {
        const held = BigInt(page.heldXid);
        const end = Date.now() + FEED_SETTLE_MS;
        while (Date.now() < end) {
          await new Promise((r) => setTimeout(r, FEED_SETTLE_POLL_MS));
          if (BigInt(await repo.feedHorizon(deps.db)) > held) {
            page = await repo.listCompanyEvents(deps.db, companyId, position, paging, TEST_EVENT_TYPE);
            break;
          }
        }
      }
      const { rows, total } = page;
      const data = rows.map(toEnvelope);
      const last = rows.at(-1);
      return { data, total, cursor: last ? `${last.xid}.${last.id}` : (after || '0') };
    },
  };
}

/** `<xid>.<id>`, or a plain event id (earlier cursors), or nothing / '0' for the beginning. */
function parseCursor(after: string | undefined): repo.FeedPosition | number {
  if (after === undefined || after === '' || after === '0') return { xid: '0', id: 0 };
  if (/^\d{1,15}$/.test(after)) return Number(after);
  const m = /^(\d{1,20})\.(\d{1,15})$/.exec(after);
  if (!m || BigInt(m[1]) > 0xffffffffffffffffn) throw eventErrors.CURSOR_INVALIDO();
  return { xid: m[1], id: Number(m[2]) };
}

export type EventsService = ReturnType<typeof createEventsService>;
