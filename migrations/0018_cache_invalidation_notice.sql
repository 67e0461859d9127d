-- Cache invalidation without a LISTEN on every pooled connection (src/platform/db/invalidation.ts).
-- Up to PostgreSQL 18 any NOTIFY wakes every listening backend of the database, so with each pooled
-- connection listening, every emission batch's outbox NOTIFY woke them all (~15 % of PostgreSQL's
-- CPU per receipt). Now one connection per process LISTENs (changes made by other processes), and
-- the session that makes a change also hears of it at once through this NOTICE, which its process
-- turns into an invalidation when the transaction ends (before its COMMIT returns to the caller).
CREATE OR REPLACE FUNCTION notify_cache_invalidation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cache_invalidation', TG_ARGV[0]);
  RAISE NOTICE USING MESSAGE = 'cache_invalidation', DETAIL = TG_ARGV[0];
  RETURN NULL;
END $$;
