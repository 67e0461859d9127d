-- Issue 28. cfe_email_sends.copia_enviada_en: the company's copy (configuracion.emailCopiaCfe) is its own message, sent once.
-- webhook_endpoints.secret_sealed: endpoint secrets sealed under MASTER_KEY (AES-256-GCM, as certificate keys and SMTP passwords).
-- SQL cannot seal (the key lives in the application), so rows left with a clear "secret" are moved into "secret_sealed"
-- by the data step sealLegacySecrets (src/modules/webhooks/webhooks.repository.ts) when the delivery engine starts
-- (API with the in-process worker, or the worker process); the engine reads the clear column until then.
ALTER TABLE "cfe_email_sends" ADD COLUMN "copia_enviada_en" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "secret_sealed" text;