CREATE TABLE "issued_cfes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"branch_id" integer NOT NULL,
	"emission_point_id" integer NOT NULL,
	"cae_range_id" integer NOT NULL,
	"tipo_cfe" smallint NOT NULL,
	"serie" varchar(2) NOT NULL,
	"numero" integer NOT NULL,
	"fecha_emision" date NOT NULL,
	"tmst_firma" text NOT NULL,
	"firmado_en" timestamp with time zone NOT NULL,
	"receptor_tipo_doc" smallint,
	"receptor_documento" varchar(20),
	"receptor_nombre" varchar(150),
	"customer_id" integer,
	"moneda" varchar(3) NOT NULL,
	"tipo_cambio" numeric(10, 3),
	"mnt_total" numeric(17, 2),
	"mnt_pagar" numeric(17, 2),
	"mnt_neto_iva_tasa_min" numeric(17, 2),
	"mnt_neto_iva_tasa_basica" numeric(17, 2),
	"mnt_iva_tasa_min" numeric(17, 2),
	"mnt_iva_tasa_basica" numeric(17, 2),
	"mnt_no_grv" numeric(17, 2),
	"totales" jsonb NOT NULL,
	"xml" text NOT NULL,
	"digest_value" text NOT NULL,
	"codigo_seguridad" varchar(6) NOT NULL,
	"url_qr" text NOT NULL,
	"adenda" text,
	"estado" text DEFAULT 'firmado' NOT NULL,
	"idempotency_key" varchar(200),
	"request_hash" varchar(64),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD CONSTRAINT "issued_cfes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD CONSTRAINT "issued_cfes_branch_id_branches_id_fk" FOREIGN KEY ("branch_id") REFERENCES "public"."branches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD CONSTRAINT "issued_cfes_emission_point_id_emission_points_id_fk" FOREIGN KEY ("emission_point_id") REFERENCES "public"."emission_points"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD CONSTRAINT "issued_cfes_cae_range_id_cae_ranges_id_fk" FOREIGN KEY ("cae_range_id") REFERENCES "public"."cae_ranges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "issued_cfes_number_uq" ON "issued_cfes" USING btree ("company_id","tipo_cfe","serie","numero");--> statement-breakpoint
CREATE INDEX "issued_cfes_company_signed_idx" ON "issued_cfes" USING btree ("company_id","firmado_en");--> statement-breakpoint
CREATE UNIQUE INDEX "issued_cfes_idempotency_uq" ON "issued_cfes" USING btree ("company_id","idempotency_key") WHERE "issued_cfes"."idempotency_key" is not null;