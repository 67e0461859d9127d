-- A worker-built envelope to DGI stores only its head (declaration, root, Caratula) in xml_head (issue 45 point 4: the
-- capacity plan). Its CFEs' bytes are each CFE's own signed XML, already in issued_cfes and never changed after
-- signing, so the EnvioCFE is assembled from the head and its items in order (dgi-submission.repository envelopeXml),
-- the same bytes for a resend and a download. The full copy, pglz-compressed, was ~0.5 KB of rows per CFE, and its
-- compression and WAL were paid at every envelope. Envelopes stored before keep their xml; one of the two is set.
-- The head (~1.7 KB with the certificate) fits in the row, which PostgreSQL toasts only past 2 KB; once DGI's signed
-- answer makes the row larger, toast_tuple_target 256 moves the head out with it, so the later state changes of the
-- envelope (recibido, polled, procesado) copy a pointer instead of the head.
ALTER TABLE "dgi_envelopes" ALTER COLUMN "xml" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "dgi_envelopes" ADD COLUMN "xml_head" text;--> statement-breakpoint
ALTER TABLE "dgi_envelopes" ADD CONSTRAINT "dgi_envelopes_xml_ck" CHECK ("dgi_envelopes"."xml" is not null or "dgi_envelopes"."xml_head" is not null);--> statement-breakpoint
ALTER TABLE "dgi_envelopes" SET (toast_tuple_target = 256);
