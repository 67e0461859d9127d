CREATE TABLE "company_outbound_mail" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"smtp_host" text NOT NULL,
	"smtp_puerto" integer NOT NULL,
	"smtp_seguro" boolean NOT NULL,
	"smtp_usuario" text,
	"smtp_clave_cifrada" text,
	"remitente" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_outbound_mail" ADD CONSTRAINT "company_outbound_mail_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;