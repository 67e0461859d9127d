CREATE TABLE "price_book_prices" (
	"id" serial PRIMARY KEY NOT NULL,
	"version_id" integer NOT NULL,
	"orden" integer NOT NULL,
	"metrica" text NOT NULL,
	"dimensiones" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"modelo" text NOT NULL,
	"precio_unitario" numeric,
	"tramos" jsonb,
	"paquete_tamano" numeric,
	"paquete_precio" numeric,
	"minimo" numeric,
	"indicador_facturacion" integer NOT NULL,
	"nombre_item" text NOT NULL,
	"unidad_medida" text
);
--> statement-breakpoint
CREATE TABLE "price_book_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"codigo" text NOT NULL,
	"version" integer NOT NULL,
	"nombre" text NOT NULL,
	"moneda" varchar(3) NOT NULL,
	"tipo_cambio_modo" text NOT NULL,
	"tipo_cambio_valor" numeric,
	"vigente_desde" date NOT NULL,
	"vigente_hasta" date,
	"minimo_periodo" jsonb,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "price_book_prices" ADD CONSTRAINT "price_book_prices_version_id_price_book_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."price_book_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_book_versions" ADD CONSTRAINT "price_book_versions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "price_book_prices_version_order_uq" ON "price_book_prices" USING btree ("version_id","orden");--> statement-breakpoint
CREATE UNIQUE INDEX "price_book_versions_code_version_uq" ON "price_book_versions" USING btree ("company_id","codigo","version");--> statement-breakpoint
CREATE INDEX "price_book_versions_code_from_idx" ON "price_book_versions" USING btree ("company_id","codigo","vigente_desde");