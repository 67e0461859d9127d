ALTER TABLE "issued_cfes" ALTER COLUMN "cae_range_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD COLUMN "cfc_range_id" integer;--> statement-breakpoint
ALTER TABLE "issued_cfes" ADD CONSTRAINT "issued_cfes_cfc_range_id_cfc_ranges_id_fk" FOREIGN KEY ("cfc_range_id") REFERENCES "public"."cfc_ranges"("id") ON DELETE no action ON UPDATE no action;