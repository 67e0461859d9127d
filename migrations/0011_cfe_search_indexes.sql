CREATE INDEX "issued_cfes_company_fecha_emision_idx" ON "issued_cfes" USING btree ("company_id","fecha_emision");--> statement-breakpoint
CREATE INDEX "issued_cfes_company_receptor_doc_idx" ON "issued_cfes" USING btree ("company_id","receptor_documento");--> statement-breakpoint
CREATE INDEX "issued_cfes_company_estado_idx" ON "issued_cfes" USING btree ("company_id","estado","firmado_en");--> statement-breakpoint
CREATE INDEX "issued_cfes_company_state_date_idx" ON "issued_cfes" USING btree ("company_id",coalesce("estado_actualizado_en", "firmado_en"));--> statement-breakpoint
CREATE INDEX "issued_cfes_receptor_nombre_trgm_idx" ON "issued_cfes" USING gin ("receptor_nombre" gin_trgm_ops);