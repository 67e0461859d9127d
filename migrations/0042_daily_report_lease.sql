ALTER TABLE "daily_reports" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
-- Reports left 'enviando' by a sender killed under the old 5-minute lease had no job left to send them:
-- back to 'pendiente', so POST reenviar can send them (the old lease of each has long expired).
UPDATE "daily_reports" SET "estado" = 'pendiente' WHERE "estado" = 'enviando' AND "enviado_en" < now() - interval '5 minutes';
