-- An event that no enabled webhook endpoint of its company subscribes to is written already fanned
-- out (issue 45). The delivery engine's fan-out (webhooks/deliveries.repository.ts fanOut) used to
-- update every event, with or without a subscriber: in the lifecycle bench (one Cfe.Emitido per
-- receipt, no endpoint) that UPDATE was 0.13-0.17 ms of PostgreSQL per receipt, a fifth of the
-- database's time, for nothing; a fleet of companies most of which have no webhook pays it on every
-- receipt. Deciding at INSERT costs one index probe of webhook_endpoints per event.
-- The condition is the fan-out's join, negated: the two must stay the same. An endpoint receives
-- the events raised after it is created or enabled (an event raised while none subscribed is not
-- delivered later), which is what the engine's fan-out, run moments after the INSERT, already meant.
-- A row trigger, like the NOTIFY of 0015, so that no writer of the outbox (three statements in
-- events.repository.ts, one inside the emission batch's statement) can forget it.
CREATE FUNCTION outbox_events_unsubscribed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fanned_out_at IS NULL AND NOT EXISTS (
    SELECT 1 FROM webhook_endpoints w
    WHERE w.company_id = NEW.company_id AND w.enabled AND NEW.type = ANY (w.events)
  ) THEN
    NEW.fanned_out_at := now();
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER outbox_events_unsubscribed BEFORE INSERT ON outbox_events
  FOR EACH ROW EXECUTE FUNCTION outbox_events_unsubscribed();
