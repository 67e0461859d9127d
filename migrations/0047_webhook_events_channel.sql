-- The webhook delivery engine gets a channel of its own, `webhook_events_due`, notified only when an
-- event is written that an enabled endpoint subscribes to (issue 45). Until now it listened on
-- `cfe_outbox_events`, which every INSERT into the outbox notifies for the DGI submission waker
-- (0015): each emission batch woke every process's engine to run its fan-out, claim and next-due
-- statements, ~50 times a second in the lifecycle bench, where no company has a webhook and every
-- event is written already fanned out (0045). The notification is raised by 0045's row trigger, where
-- the subscription is decided; PostgreSQL delivers one per channel and transaction at COMMIT however
-- many rows raise it. `cfe_outbox_events` keeps its statement trigger for the waker.
CREATE OR REPLACE FUNCTION outbox_events_unsubscribed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fanned_out_at IS NULL THEN
    IF EXISTS (
      SELECT 1 FROM webhook_endpoints w
      WHERE w.company_id = NEW.company_id AND w.enabled AND NEW.type = ANY (w.events)
    ) THEN
      PERFORM pg_notify('webhook_events_due', '');
    ELSE
      NEW.fanned_out_at := now();
    END IF;
  END IF;
  RETURN NEW;
END $$;
