CREATE TABLE "received_cfe_export_configs" (
	"user_id" integer NOT NULL,
	"company_scope" integer NOT NULL,
	"columnas" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "received_cfe_export_configs_user_id_company_scope_pk" PRIMARY KEY("user_id","company_scope")
);
--> statement-breakpoint
CREATE TABLE "received_qr_checks" (
	"received_cfe_id" bigint PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"resultado" varchar(16) NOT NULL,
	"url" text,
	"diferencias" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"dgi" jsonb,
	"detalle" text,
	"intentos" integer DEFAULT 0 NOT NULL,
	"solicitado_en" timestamp with time zone DEFAULT now() NOT NULL,
	"consultado_en" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "received_reconciliations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"desde" date NOT NULL,
	"hasta" date NOT NULL,
	"rut_emisor" varchar(12),
	"consultas" integer NOT NULL,
	"cantidad_dgi" integer NOT NULL,
	"cantidad_local" integer NOT NULL,
	"conteos" jsonb NOT NULL,
	"items" jsonb NOT NULL,
	"creado_por" integer,
	"creado_en" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "received_qr_checks" ADD CONSTRAINT "received_qr_checks_received_cfe_id_received_cfes_id_fk" FOREIGN KEY ("received_cfe_id") REFERENCES "public"."received_cfes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_qr_checks" ADD CONSTRAINT "received_qr_checks_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_reconciliations" ADD CONSTRAINT "received_reconciliations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "received_qr_checks_company_idx" ON "received_qr_checks" USING btree ("company_id","resultado");--> statement-breakpoint
CREATE INDEX "received_reconciliations_company_idx" ON "received_reconciliations" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "received_cfes_razon_social_trgm_idx" ON "received_cfes" USING gin ("razon_social_emisor" gin_trgm_ops) WHERE "received_cfes"."razon_social_emisor" is not null;