CREATE TABLE "issued_cfe_state_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"issued_cfe_id" bigint NOT NULL,
	"company_id" integer NOT NULL,
	"lado" varchar(10) NOT NULL,
	"estado_anterior" text,
	"estado" text NOT NULL,
	"codigo" varchar(10),
	"motivos" jsonb,
	"mensaje" text,
	"referencia" text,
	"user_id" integer,
	"motivo" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD COLUMN "estado_receptor" text;--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD COLUMN "estado_actualizado_en" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "issued_cfe_state_history" ADD CONSTRAINT "issued_cfe_state_history_issued_cfe_id_issued_cfes_id_fk" FOREIGN KEY ("issued_cfe_id") REFERENCES "public"."issued_cfes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_cfe_state_history" ADD CONSTRAINT "issued_cfe_state_history_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "issued_cfe_state_history_cfe_idx" ON "issued_cfe_state_history" USING btree ("issued_cfe_id","id");