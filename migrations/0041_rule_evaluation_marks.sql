CREATE TABLE "rule_evaluation_marks" (
	"contract_id" integer NOT NULL,
	"owner" uuid NOT NULL,
	"company_id" integer NOT NULL,
	"generation" bigserial NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rule_evaluation_marks_contract_id_owner_pk" PRIMARY KEY("contract_id","owner")
);
--> statement-breakpoint
-- Topic `contract-rules` (src/platform/db/invalidation.ts): each process keeps the contracts it found
-- without usage rules, so ingestion writes no evaluation mark for them (evaluation-queue.ts); terms
-- created, deleted or given other rules empty it. The rule evaluation and the close update other
-- columns only, so they notify nothing.
CREATE TRIGGER contract_terms_rules_cache_invalidation AFTER INSERT OR UPDATE OF rules OR DELETE OR TRUNCATE ON contract_terms
  FOR EACH STATEMENT EXECUTE FUNCTION notify_cache_invalidation('contract-rules');
