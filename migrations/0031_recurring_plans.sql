CREATE TABLE "recurring_plan_versions" (
	"plan_id" integer NOT NULL,
	"version" integer NOT NULL,
	"definicion" jsonb NOT NULL,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recurring_plan_versions_plan_id_version_pk" PRIMARY KEY("plan_id","version")
);
--> statement-breakpoint
CREATE TABLE "recurring_plans" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"estado" varchar(20) NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"definicion" jsonb NOT NULL,
	"customer_id" integer,
	"documento_receptor" varchar(40),
	"next_index" integer DEFAULT 0 NOT NULL,
	"next_run_at" timestamp with time zone,
	"paused_until" timestamp with time zone,
	"motivo_cancelacion" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recurring_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"plan_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"version" integer NOT NULL,
	"period_index" integer NOT NULL,
	"periodo_desde" date NOT NULL,
	"periodo_hasta" date NOT NULL,
	"periodos" integer DEFAULT 1 NOT NULL,
	"programada_para" timestamp with time zone NOT NULL,
	"ejecutada_en" timestamp with time zone,
	"resultado" varchar(20) NOT NULL,
	"origen" varchar(20) DEFAULT 'programada' NOT NULL,
	"codigo" varchar(60),
	"motivo" text,
	"intento" integer DEFAULT 0 NOT NULL,
	"proximo_intento" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"idempotency_key" varchar(200),
	"request" jsonb,
	"correo" jsonb,
	"acumulada_en" integer,
	"cfe_id" integer,
	"tipo_cfe" integer,
	"serie" varchar(2),
	"numero" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "recurring_plan_versions" ADD CONSTRAINT "recurring_plan_versions_plan_id_recurring_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."recurring_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_plans" ADD CONSTRAINT "recurring_plans_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_runs" ADD CONSTRAINT "recurring_runs_plan_id_recurring_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."recurring_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recurring_plans_company_idx" ON "recurring_plans" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "recurring_plans_due_idx" ON "recurring_plans" USING btree ("next_run_at") WHERE "recurring_plans"."estado" = 'activo';--> statement-breakpoint
CREATE INDEX "recurring_plans_paused_idx" ON "recurring_plans" USING btree ("paused_until") WHERE "recurring_plans"."estado" = 'pausado';--> statement-breakpoint
CREATE UNIQUE INDEX "recurring_runs_key_uq" ON "recurring_runs" USING btree ("plan_id","periodo_desde");--> statement-breakpoint
CREATE INDEX "recurring_runs_company_idx" ON "recurring_runs" USING btree ("company_id","programada_para");--> statement-breakpoint
CREATE INDEX "recurring_runs_work_idx" ON "recurring_runs" USING btree ("proximo_intento") WHERE "recurring_runs"."resultado" in ('pendiente', 'fallido');--> statement-breakpoint
CREATE INDEX "recurring_runs_cfe_idx" ON "recurring_runs" USING btree ("cfe_id");