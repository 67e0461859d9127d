CREATE TABLE "cfe_email_sends" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"issued_cfe_id" bigint NOT NULL,
	"company_id" integer NOT NULL,
	"destinatarios" text[] NOT NULL,
	"asunto" text NOT NULL,
	"mensaje" text,
	"formato" varchar(10) NOT NULL,
	"estado" varchar(15) DEFAULT 'pendiente' NOT NULL,
	"intentos" integer DEFAULT 0 NOT NULL,
	"ultimo_error" text,
	"codigo_smtp" integer,
	"message_id" text,
	"transporte" varchar(10),
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actualizado_en" timestamp with time zone DEFAULT now() NOT NULL,
	"enviado_en" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cfe_previews" (
	"token_hash" varchar(64) PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"formato" varchar(10) NOT NULL,
	"pdf" "bytea" NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cfe_email_sends" ADD CONSTRAINT "cfe_email_sends_issued_cfe_id_issued_cfes_id_fk" FOREIGN KEY ("issued_cfe_id") REFERENCES "public"."issued_cfes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfe_email_sends" ADD CONSTRAINT "cfe_email_sends_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfe_previews" ADD CONSTRAINT "cfe_previews_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cfe_email_sends_cfe_idx" ON "cfe_email_sends" USING btree ("issued_cfe_id","id");--> statement-breakpoint
CREATE INDEX "cfe_previews_expires_idx" ON "cfe_previews" USING btree ("expires_at");