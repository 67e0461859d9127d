-- Topic `usage` (src/platform/db/invalidation.ts): what usage ingestion checks each batch against
-- (contracts by id and external id, metrics by code, the company's grace) is kept in the process
-- between batches (src/modules/usage/batch-defs.ts); any change to these tables empties it.
CREATE TRIGGER usage_contracts_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON usage_contracts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('usage');
--> statement-breakpoint
CREATE TRIGGER usage_metrics_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON usage_metrics
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('usage');
--> statement-breakpoint
CREATE TRIGGER usage_settings_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON usage_settings
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('usage');
