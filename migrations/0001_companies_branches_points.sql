CREATE TABLE "branch_dgi_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"branch_id" integer NOT NULL,
	"codigo_dgi_sucursal" integer NOT NULL,
	"valid_from" date NOT NULL,
	"valid_to" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "branch_logos" (
	"branch_id" integer PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"data" "bytea" NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "branches" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"cod_comercio" varchar(40) NOT NULL,
	"nombre" text NOT NULL,
	"direccion" text,
	"ciudad" text,
	"departamento" text,
	"telefono" text,
	"email" text,
	"codigo_casa_dgi" integer,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "branches_id_company_uq" UNIQUE("id","company_id")
);
--> statement-breakpoint
CREATE TABLE "company_logos" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"data" "bytea" NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "emission_points" (
	"id" serial PRIMARY KEY NOT NULL,
	"branch_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"cod_terminal" varchar(40) NOT NULL,
	"descripcion" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "domicilio_fiscal" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "ciudad" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "departamento" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "telefono" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "actividad" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "ambiente_dgi" text DEFAULT 'testing' NOT NULL;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "codigo_casa_dgi_por_defecto" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "regimen_tributario" text DEFAULT 'general' NOT NULL;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "url_verificacion" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "limite_cfe_mensual" integer;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "numero_resolucion" text;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "fecha_resolucion" date;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "branch_dgi_codes" ADD CONSTRAINT "branch_dgi_codes_branch_id_branches_id_fk" FOREIGN KEY ("branch_id") REFERENCES "public"."branches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branch_logos" ADD CONSTRAINT "branch_logos_branch_id_branches_id_fk" FOREIGN KEY ("branch_id") REFERENCES "public"."branches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branches" ADD CONSTRAINT "branches_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_logos" ADD CONSTRAINT "company_logos_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emission_points" ADD CONSTRAINT "emission_points_branch_fk" FOREIGN KEY ("branch_id","company_id") REFERENCES "public"."branches"("id","company_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "branch_dgi_codes_branch_from_idx" ON "branch_dgi_codes" USING btree ("branch_id","valid_from");--> statement-breakpoint
CREATE UNIQUE INDEX "branches_company_cod_comercio_uq" ON "branches" USING btree ("company_id","cod_comercio");--> statement-breakpoint
CREATE UNIQUE INDEX "emission_points_branch_terminal_uq" ON "emission_points" USING btree ("branch_id","cod_terminal");--> statement-breakpoint
CREATE INDEX "emission_points_company_idx" ON "emission_points" USING btree ("company_id");