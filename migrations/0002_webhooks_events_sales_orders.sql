CREATE TABLE "cae_daily_usage" (
	"cae_range_id" integer NOT NULL,
	"fecha" date NOT NULL,
	"cantidad" integer NOT NULL,
	CONSTRAINT "cae_daily_usage_cae_range_id_fecha_pk" PRIMARY KEY("cae_range_id","fecha")
);
--> statement-breakpoint
CREATE TABLE "cae_ranges" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"branch_id" integer,
	"tipo_cfe" smallint NOT NULL,
	"serie" varchar(2) NOT NULL,
	"d_nro" integer NOT NULL,
	"h_nro" integer NOT NULL,
	"next_number" integer NOT NULL,
	"cae_number" varchar(11) NOT NULL,
	"ta" varchar(1),
	"fa" date NOT NULL,
	"fvd" date NOT NULL,
	"cae_especial" smallint,
	"causal_cae_esp" smallint,
	"origin" text NOT NULL,
	"xml" text,
	"annulled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cae_ranges_bounds_ck" CHECK ("cae_ranges"."h_nro" >= "cae_ranges"."d_nro" and "cae_ranges"."next_number" >= "cae_ranges"."d_nro" and "cae_ranges"."next_number" <= "cae_ranges"."h_nro" + 1)
);
--> statement-breakpoint
CREATE TABLE "cae_voided_numbers" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"cae_range_id" integer NOT NULL,
	"tipo_cfe" smallint NOT NULL,
	"serie" varchar(2) NOT NULL,
	"desde" integer NOT NULL,
	"hasta" integer NOT NULL,
	"fecha" date NOT NULL,
	"motivo" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cfc_ranges" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"tipo_cfc" smallint NOT NULL,
	"serie" varchar(2) NOT NULL,
	"d_nro" integer NOT NULL,
	"h_nro" integer NOT NULL,
	"constancia" varchar(40) NOT NULL,
	"fvd" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cfc_ranges_bounds_ck" CHECK ("cfc_ranges"."h_nro" >= "cfc_ranges"."d_nro")
);
--> statement-breakpoint
CREATE TABLE "cfc_used_numbers" (
	"cfc_range_id" integer NOT NULL,
	"numero" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cfc_used_numbers_cfc_range_id_numero_pk" PRIMARY KEY("cfc_range_id","numero")
);
--> statement-breakpoint
CREATE TABLE "company_certificates" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"subject" text NOT NULL,
	"issuer" text NOT NULL,
	"serial_number" text NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	"not_after" timestamp with time zone NOT NULL,
	"fingerprint256" text NOT NULL,
	"certificate_pem" text NOT NULL,
	"chain_pem" text DEFAULT '' NOT NULL,
	"encrypted_key" text NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_rates" (
	"company_id" integer NOT NULL,
	"moneda" varchar(3) NOT NULL,
	"fecha" date NOT NULL,
	"tipo_cambio" numeric(18, 6) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exchange_rates_company_id_moneda_fecha_pk" PRIMARY KEY("company_id","moneda","fecha")
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"tipo_documento" smallint NOT NULL,
	"cod_pais" varchar(2) NOT NULL,
	"documento" varchar(20) NOT NULL,
	"razon_social" varchar(150) NOT NULL,
	"direccion" varchar(70),
	"ciudad" varchar(30),
	"departamento" varchar(30),
	"pais" varchar(30),
	"codigo_postal" varchar(10),
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"fanned_out_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "product_lots" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"variant_id" integer NOT NULL,
	"codigo" varchar(50) NOT NULL,
	"fecha_vencimiento" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_serials" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"variant_id" integer NOT NULL,
	"lot_id" integer,
	"numero_serie" varchar(100) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_variants" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"codigo" varchar(35) NOT NULL,
	"nombre" varchar(80) NOT NULL,
	"precio_unitario" numeric(24, 10),
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"codigo" varchar(35) NOT NULL,
	"nombre" varchar(80) NOT NULL,
	"descripcion" varchar(1000),
	"unidad_medida" varchar(4),
	"indicador_facturacion" smallint,
	"requires_lot" boolean DEFAULT false NOT NULL,
	"requires_serial" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sales_orders" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"estado" text DEFAULT 'borrador' NOT NULL,
	"cliente" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"detalles" jsonb NOT NULL,
	"tipo_moneda" text DEFAULT 'UYU' NOT NULL,
	"total" numeric(18, 2) NOT NULL,
	"observaciones" text,
	"id_cfe_emitido" integer,
	"finalized_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" bigint NOT NULL,
	"number" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"status_code" integer,
	"error" text,
	"response_excerpt" text,
	"outcome" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" bigint NOT NULL,
	"endpoint_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"status" text DEFAULT 'pendiente' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"total_attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"lease_token" uuid,
	"idempotency_key" uuid DEFAULT gen_random_uuid() NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"name" text,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"secret" text,
	"headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"max_attempts" integer DEFAULT 8 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cae_daily_usage" ADD CONSTRAINT "cae_daily_usage_cae_range_id_cae_ranges_id_fk" FOREIGN KEY ("cae_range_id") REFERENCES "public"."cae_ranges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cae_ranges" ADD CONSTRAINT "cae_ranges_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cae_voided_numbers" ADD CONSTRAINT "cae_voided_numbers_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cae_voided_numbers" ADD CONSTRAINT "cae_voided_numbers_cae_range_id_cae_ranges_id_fk" FOREIGN KEY ("cae_range_id") REFERENCES "public"."cae_ranges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfc_ranges" ADD CONSTRAINT "cfc_ranges_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfc_used_numbers" ADD CONSTRAINT "cfc_used_numbers_cfc_range_id_cfc_ranges_id_fk" FOREIGN KEY ("cfc_range_id") REFERENCES "public"."cfc_ranges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "company_certificates" ADD CONSTRAINT "company_certificates_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_rates" ADD CONSTRAINT "exchange_rates_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customers" ADD CONSTRAINT "customers_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_lots" ADD CONSTRAINT "product_lots_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_lots" ADD CONSTRAINT "product_lots_variant_id_product_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_serials" ADD CONSTRAINT "product_serials_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_serials" ADD CONSTRAINT "product_serials_variant_id_product_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_serials" ADD CONSTRAINT "product_serials_lot_id_product_lots_id_fk" FOREIGN KEY ("lot_id") REFERENCES "public"."product_lots"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_variants" ADD CONSTRAINT "product_variants_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_variants" ADD CONSTRAINT "product_variants_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales_orders" ADD CONSTRAINT "sales_orders_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_outbox_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."outbox_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cae_ranges_company_na_uq" ON "cae_ranges" USING btree ("company_id","cae_number");--> statement-breakpoint
CREATE INDEX "cae_ranges_lookup_idx" ON "cae_ranges" USING btree ("company_id","tipo_cfe","serie","fvd");--> statement-breakpoint
CREATE INDEX "cae_voided_company_fecha_idx" ON "cae_voided_numbers" USING btree ("company_id","fecha");--> statement-breakpoint
CREATE INDEX "cae_voided_range_idx" ON "cae_voided_numbers" USING btree ("cae_range_id");--> statement-breakpoint
CREATE INDEX "cfc_ranges_lookup_idx" ON "cfc_ranges" USING btree ("company_id","tipo_cfc","serie");--> statement-breakpoint
CREATE UNIQUE INDEX "company_certificates_fp_uq" ON "company_certificates" USING btree ("company_id","fingerprint256");--> statement-breakpoint
CREATE UNIQUE INDEX "company_certificates_active_uq" ON "company_certificates" USING btree ("company_id") WHERE "company_certificates"."is_active";--> statement-breakpoint
CREATE UNIQUE INDEX "customers_document_uq" ON "customers" USING btree ("company_id","cod_pais","tipo_documento","documento");--> statement-breakpoint
CREATE INDEX "customers_document_idx" ON "customers" USING btree ("company_id","documento");--> statement-breakpoint
CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" USING btree ("id") WHERE "outbox_events"."fanned_out_at" is null;--> statement-breakpoint
CREATE INDEX "outbox_events_company_idx" ON "outbox_events" USING btree ("company_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "product_lots_code_uq" ON "product_lots" USING btree ("variant_id","codigo");--> statement-breakpoint
CREATE UNIQUE INDEX "product_serials_uq" ON "product_serials" USING btree ("variant_id","numero_serie");--> statement-breakpoint
CREATE UNIQUE INDEX "product_variants_code_uq" ON "product_variants" USING btree ("product_id","codigo");--> statement-breakpoint
CREATE UNIQUE INDEX "products_code_uq" ON "products" USING btree ("company_id","codigo");--> statement-breakpoint
CREATE INDEX "sales_orders_company_idx" ON "sales_orders" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_uq" ON "webhook_deliveries" USING btree ("event_id","endpoint_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pendiente';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("endpoint_id","id");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_company_idx" ON "webhook_endpoints" USING btree ("company_id");