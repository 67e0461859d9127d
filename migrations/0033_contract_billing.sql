CREATE TABLE "contract_period_notes" (
	"contract_id" integer NOT NULL,
	"period_start" date NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"issued_cfe_id" integer NOT NULL,
	"amount" numeric NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contract_period_notes_contract_id_period_start_seq_kind_pk" PRIMARY KEY("contract_id","period_start","seq","kind")
);
--> statement-breakpoint
CREATE TABLE "contract_periods" (
	"contract_id" integer NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"company_id" integer NOT NULL,
	"status" text DEFAULT 'pendiente' NOT NULL,
	"issued_cfe_id" integer,
	"total" numeric,
	"rating" jsonb,
	"version_id" integer,
	"error" text,
	"correction_seq" integer DEFAULT 0 NOT NULL,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contract_periods_contract_id_period_start_pk" PRIMARY KEY("contract_id","period_start")
);
--> statement-breakpoint
CREATE TABLE "contract_state_history" (
	"id" serial PRIMARY KEY NOT NULL,
	"contract_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"from_state" text NOT NULL,
	"to_state" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"cause" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contract_terms" (
	"contract_id" integer PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"price_book_version_id" integer,
	"price_book_code" text NOT NULL,
	"anchor_day" integer DEFAULT 1 NOT NULL,
	"cfe_type" integer NOT NULL,
	"cod_comercio" text NOT NULL,
	"cod_terminal" text NOT NULL,
	"payment_term" integer DEFAULT 2 NOT NULL,
	"rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rules_state" jsonb NOT NULL,
	"manual_suspension" boolean DEFAULT false NOT NULL,
	"state_cause" jsonb,
	"open_period_start" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "contract_state_history_contract_idx" ON "contract_state_history" USING btree ("contract_id","at","id");--> statement-breakpoint
CREATE INDEX "contract_terms_due_idx" ON "contract_terms" USING btree ("open_period_start","contract_id");