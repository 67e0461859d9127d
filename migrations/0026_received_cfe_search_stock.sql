ALTER TABLE "received_cfes" ADD COLUMN "stock_referencia" text;--> statement-breakpoint
ALTER TABLE "received_cfes" ADD COLUMN "stock_lineas" jsonb;--> statement-breakpoint
ALTER TABLE "received_cfes" ADD COLUMN "stock_importado_en" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "received_cfes" ADD COLUMN "stock_importado_por" integer;--> statement-breakpoint
CREATE INDEX "received_cfes_company_fecha_emision_idx" ON "received_cfes" USING btree ("company_id","fecha_emision","id");--> statement-breakpoint
CREATE INDEX "received_cfes_company_recibido_idx" ON "received_cfes" USING btree ("company_id","recibido_en","id");--> statement-breakpoint
CREATE INDEX "received_cfes_company_decidido_idx" ON "received_cfes" USING btree ("company_id","decidido_en","id") WHERE decidido_en is not null;--> statement-breakpoint
CREATE INDEX "received_cfes_company_estado_idx" ON "received_cfes" USING btree ("company_id","estado","fecha_emision");--> statement-breakpoint
CREATE INDEX "received_cfes_company_emisor_idx" ON "received_cfes" USING btree ("company_id","rut_emisor","fecha_emision");--> statement-breakpoint
CREATE INDEX "received_cfes_company_numero_idx" ON "received_cfes" USING btree ("company_id","tipo_cfe","serie","numero");--> statement-breakpoint
CREATE INDEX "received_cfes_company_vencimiento_idx" ON "received_cfes" USING btree ("company_id","estado","vencimiento_respuesta");--> statement-breakpoint
CREATE INDEX "received_cfes_company_stock_idx" ON "received_cfes" USING btree ("company_id","stock_importado_en") WHERE stock_referencia is not null;