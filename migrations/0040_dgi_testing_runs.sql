CREATE TABLE "dgi_testing_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"destino" varchar(20) NOT NULL,
	"cantidad_por_tipo" integer NOT NULL,
	"estado" varchar(20) DEFAULT 'en_curso' NOT NULL,
	"progreso" text,
	"reporte" jsonb,
	"error" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "dgi_testing_runs" ADD CONSTRAINT "dgi_testing_runs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dgi_testing_runs_company_idx" ON "dgi_testing_runs" USING btree ("company_id","id");