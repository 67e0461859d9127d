-- Issue 28 point 7: webhook endpoint secrets sealed under MASTER_KEY (AES-256-GCM, as certificate keys and SMTP passwords).
-- SQL cannot seal (the key lives in the application), so rows left with a clear "secret" are moved into "secret_sealed"
-- by the data step sealLegacySecrets (src/modules/webhooks/webhooks.repository.ts) when the delivery engine starts
-- (API with the in-process worker, or the worker process); the engine reads the clear column until then.
ALTER TABLE "webhook_endpoints" ADD COLUMN "secret_sealed" text;