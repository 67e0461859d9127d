-- Cache invalidation for the emission hot path (issue 5 point 11; src/platform/db/invalidation.ts).
-- Every statement that changes a table behind a process-local cache NOTIFYs `cache_invalidation`
-- with the cache's topic. NOTIFY is delivered at COMMIT (never for a rollback), identical payloads
-- of one transaction are folded into one, and the committing session receives its own
-- notification before its COMMIT returns, so a process never reads its own write stale.
CREATE FUNCTION notify_cache_invalidation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cache_invalidation', TG_ARGV[0]);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Topic `users`: who a bearer token is (flags, token version, memberships).
CREATE TRIGGER users_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('users');
--> statement-breakpoint
CREATE TRIGGER user_companies_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_companies
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('users');
--> statement-breakpoint
-- Topic `companies`: the emission point resolution (company, branch, point, DGI branch code history);
-- memberships also depend on companies.deleted_at.
CREATE TRIGGER companies_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON companies
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('companies');
--> statement-breakpoint
CREATE TRIGGER branches_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON branches
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('companies');
--> statement-breakpoint
CREATE TRIGGER branch_dgi_codes_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON branch_dgi_codes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('companies');
--> statement-breakpoint
CREATE TRIGGER emission_points_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON emission_points
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('companies');
--> statement-breakpoint
-- Topic `certificates`: the decrypted signing key of each company's active certificate.
CREATE TRIGGER company_certificates_cache_invalidation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON company_certificates
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('certificates');
