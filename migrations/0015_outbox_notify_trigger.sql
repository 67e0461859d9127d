-- Every INSERT into the outbox wakes the webhook engine and the DGI submission waker
-- (LISTEN cfe_outbox_events), delivered at COMMIT. A statement trigger instead of a pg_notify
-- call next to each INSERT: the emission batch writes its events inside one statement with the
-- CFEs (issue 5 point 11), where a trailing SELECT pg_notify would need the statement's shape to
-- carry it; here no writer can forget it.
CREATE FUNCTION notify_outbox_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cfe_outbox_events', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
  FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox_events();
