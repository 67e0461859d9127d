-- A worker-built envelope to DGI stores only its head (declaration, root, Caratula) in xml_head (issue 45 point 4: the
-- capacity plan). Its CFEs' bytes are each CFE's own signed XML, already in issued_cfes and never changed after
-- signing, so the EnvioCFE is assembled from the head and its items in order (dgi-submission.repository envelopeXml),
-- the same bytes for a resend and a download. The full copy was ~2 KB per CFE, a quarter of a CFE's storage, and was
-- pglz-compressed and WAL-logged at every envelope. Envelopes stored before keep their xml; one of the two is set.
-- The head (~1.7 KB with the certificate) would fit in the row, and every state change of the envelope (leased,
-- recibido, procesado...) would copy it: toast_tuple_target 256 moves it out of the row, as the answers already are.
ALTER TABLE "dgi_envelopes" ALTER COLUMN "xml" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "dgi_envelopes" ADD COLUMN "xml_head" text;--> statement-breakpoint
ALTER TABLE "dgi_envelopes" ADD CONSTRAINT "dgi_envelopes_xml_ck" CHECK ("dgi_envelopes"."xml" is not null or "dgi_envelopes"."xml_head" is not null);--> statement-breakpoint
ALTER TABLE "dgi_envelopes" SET (toast_tuple_target = 256);
