CREATE TABLE "service_processes" (
	"id" serial PRIMARY KEY NOT NULL,
	"lock_key" integer NOT NULL,
	"kind" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"job_pool_id" text,
	"jwt_fingerprint" text NOT NULL,
	"master_key_fingerprint" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "service_processes_lockKey_unique" UNIQUE("lock_key")
);
