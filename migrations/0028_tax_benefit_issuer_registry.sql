CREATE TABLE "dgi_electronic_issuers" (
	"ruc" varchar(12) PRIMARY KEY NOT NULL,
	"denominacion" text NOT NULL,
	"fecha_inicio" date,
	"fecha_fin_transicion" date,
	"fecha_fin" date,
	"mail" text,
	"read_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dgi_issuer_registry_sync" (
	"id" smallint PRIMARY KEY NOT NULL,
	"changed_since" text,
	"last_run_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_count" integer,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "tax_benefit_declarations" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"anio_fiscal" integer NOT NULL,
	"regimen" text NOT NULL,
	"fundamento" text,
	"fecha_inicio_emisor" date,
	"fuente_fecha_inicio" text,
	"hechos" jsonb NOT NULL,
	"declarante_nombre" varchar(150) NOT NULL,
	"declarante_documento" varchar(20) NOT NULL,
	"declarante_cargo" varchar(100) NOT NULL,
	"created_by_user_id" integer,
	"reemplazada_por" integer,
	"reemplazada_en" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tax_benefit_declarations" ADD CONSTRAINT "tax_benefit_declarations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tax_benefit_current_uq" ON "tax_benefit_declarations" USING btree ("company_id","anio_fiscal","regimen") WHERE "tax_benefit_declarations"."reemplazada_por" is null;--> statement-breakpoint
CREATE INDEX "tax_benefit_company_idx" ON "tax_benefit_declarations" USING btree ("company_id","id");