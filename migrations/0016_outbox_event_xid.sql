-- GET /api/v1/eventos skipped events: ids come from a sequence before commit and transactions
-- commit out of order, so a cursor on id could pass an event that committed later. Each row now
-- records its writing transaction (xid8); the feed orders by (xid, id) and shows only rows whose
-- transaction is older than every running one (pg_snapshot_xmin of the current snapshot).
-- Rows already stored all get this migration's xid (a stable default: no table rewrite); their
-- order among themselves stays by id.
DROP INDEX "outbox_events_company_idx";--> statement-breakpoint
ALTER TABLE "outbox_events" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "outbox_events_company_xid_idx" ON "outbox_events" USING btree ("company_id","xid","id");