CREATE TABLE "issued_cfe_chart_days" (
	"company_id" integer NOT NULL,
	"dia" date NOT NULL,
	"tipo_cfe" smallint NOT NULL,
	"moneda" varchar(3) NOT NULL,
	"cantidad" integer NOT NULL,
	"monto" numeric NOT NULL,
	"monto_uyu" numeric NOT NULL,
	CONSTRAINT "issued_cfe_chart_days_company_id_dia_tipo_cfe_moneda_pk" PRIMARY KEY("company_id","dia","tipo_cfe","moneda")
);
--> statement-breakpoint
ALTER TABLE "issued_cfe_chart_days" ADD CONSTRAINT "issued_cfe_chart_days_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The charts' summary (issue 29 point 4; issued-cfe.charts.ts). One row per (company, Uruguay day of
-- firmado_en, tipo_cfe, moneda): every CFE stored, whatever its estado (the charts subtract the rejected
-- ones when they read), with the sum of its signed amount and of that amount in pesos. The three
-- expressions are SQL functions (inlined by the planner) shared by the triggers, the backfill and the
-- charts' own query. The type lists are issued-cfe.charts.ts's SALES_CODES (only sales carry an amount)
-- and NC_CODES (credit notes subtract); issued-cfe.charts.int.test.ts checks that they agree.
CREATE FUNCTION issued_cfe_chart_day(firmado_en timestamptz) RETURNS date LANGUAGE sql STABLE
  RETURN ((firmado_en - interval '3 hours') AT TIME ZONE 'UTC')::date;
--> statement-breakpoint
CREATE FUNCTION issued_cfe_chart_signed(tipo_cfe smallint, mnt_total numeric) RETURNS numeric LANGUAGE sql IMMUTABLE
  RETURN CASE WHEN tipo_cfe = ANY ('{101,201,102,202,103,203,111,211,112,212,113,213,121,221,122,222,123,223,131,231,132,232,133,233,141,241,142,242,143,243}'::int[]) THEN coalesce(mnt_total, 0) ELSE 0 END
    * CASE WHEN tipo_cfe = ANY ('{102,202,112,212,122,222,132,232,142,242,152,252}'::int[]) THEN -1 ELSE 1 END;
--> statement-breakpoint
CREATE FUNCTION issued_cfe_chart_rate(moneda varchar, tipo_cambio numeric) RETURNS numeric LANGUAGE sql IMMUTABLE
  RETURN CASE WHEN moneda = 'UYU' THEN 1 ELSE coalesce(tipo_cambio, 1) END;
--> statement-breakpoint
CREATE FUNCTION issued_cfe_chart_rows_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One aggregated upsert per INSERT statement: an emission batch of ~15 CFEs touches one row. Ordered
  -- by key, so two statements upserting the same rows lock them in the same order.
  INSERT INTO issued_cfe_chart_days AS s (company_id, dia, tipo_cfe, moneda, cantidad, monto, monto_uyu)
  SELECT company_id, issued_cfe_chart_day(firmado_en), tipo_cfe, moneda, count(*),
    sum(issued_cfe_chart_signed(tipo_cfe, mnt_total)),
    sum(issued_cfe_chart_signed(tipo_cfe, mnt_total) * issued_cfe_chart_rate(moneda, tipo_cambio))
  FROM new_rows
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (company_id, dia, tipo_cfe, moneda) DO UPDATE
    SET cantidad = s.cantidad + excluded.cantidad, monto = s.monto + excluded.monto, monto_uyu = s.monto_uyu + excluded.monto_uyu;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION issued_cfe_chart_rows_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE issued_cfe_chart_days s SET cantidad = s.cantidad - d.cantidad, monto = s.monto - d.monto, monto_uyu = s.monto_uyu - d.monto_uyu
  FROM (
    SELECT company_id, issued_cfe_chart_day(firmado_en) AS dia, tipo_cfe, moneda, count(*) AS cantidad,
      sum(issued_cfe_chart_signed(tipo_cfe, mnt_total)) AS monto,
      sum(issued_cfe_chart_signed(tipo_cfe, mnt_total) * issued_cfe_chart_rate(moneda, tipo_cambio)) AS monto_uyu
    FROM old_rows
    GROUP BY 1, 2, 3, 4
  ) d
  WHERE s.company_id = d.company_id AND s.dia = d.dia AND s.tipo_cfe = d.tipo_cfe AND s.moneda = d.moneda;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A grouped column changing (the service never does it; a repair by hand might) moves the CFE from its
-- old row to its new one. Per row and only then: state changes never pay for the summary.
CREATE FUNCTION issued_cfe_chart_row_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE issued_cfe_chart_days s SET cantidad = s.cantidad - 1,
    monto = s.monto - issued_cfe_chart_signed(OLD.tipo_cfe, OLD.mnt_total),
    monto_uyu = s.monto_uyu - issued_cfe_chart_signed(OLD.tipo_cfe, OLD.mnt_total) * issued_cfe_chart_rate(OLD.moneda, OLD.tipo_cambio)
  WHERE s.company_id = OLD.company_id AND s.dia = issued_cfe_chart_day(OLD.firmado_en) AND s.tipo_cfe = OLD.tipo_cfe AND s.moneda = OLD.moneda;
  INSERT INTO issued_cfe_chart_days AS s (company_id, dia, tipo_cfe, moneda, cantidad, monto, monto_uyu)
  VALUES (NEW.company_id, issued_cfe_chart_day(NEW.firmado_en), NEW.tipo_cfe, NEW.moneda, 1,
    issued_cfe_chart_signed(NEW.tipo_cfe, NEW.mnt_total),
    issued_cfe_chart_signed(NEW.tipo_cfe, NEW.mnt_total) * issued_cfe_chart_rate(NEW.moneda, NEW.tipo_cambio))
  ON CONFLICT (company_id, dia, tipo_cfe, moneda) DO UPDATE
    SET cantidad = s.cantidad + excluded.cantidad, monto = s.monto + excluded.monto, monto_uyu = s.monto_uyu + excluded.monto_uyu;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER issued_cfes_chart_insert AFTER INSERT ON issued_cfes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issued_cfe_chart_rows_add();
--> statement-breakpoint
CREATE TRIGGER issued_cfes_chart_delete AFTER DELETE ON issued_cfes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION issued_cfe_chart_rows_remove();
--> statement-breakpoint
CREATE TRIGGER issued_cfes_chart_move AFTER UPDATE OF company_id, firmado_en, tipo_cfe, moneda, mnt_total, tipo_cambio ON issued_cfes
  FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id OR OLD.firmado_en IS DISTINCT FROM NEW.firmado_en
    OR OLD.tipo_cfe IS DISTINCT FROM NEW.tipo_cfe OR OLD.moneda IS DISTINCT FROM NEW.moneda
    OR OLD.mnt_total IS DISTINCT FROM NEW.mnt_total OR OLD.tipo_cambio IS DISTINCT FROM NEW.tipo_cambio)
  EXECUTE FUNCTION issued_cfe_chart_row_move();
--> statement-breakpoint
-- The charts subtract the range's rejected CFEs at read time: this partial covering index lets them be
-- read index-only (5,000 rejected CFEs of a year: 23 ms by issued_cfes_company_estado_idx with heap
-- fetches, ~1 ms index-only, on a loaded machine). Emission never adds an entry (estado 'firmado');
-- only a rejection does. Not in issued-cfe.tables.ts: drizzle's index builder has no INCLUDE.
CREATE INDEX issued_cfes_rejected_chart_idx ON issued_cfes (company_id, firmado_en) INCLUDE (tipo_cfe, moneda, mnt_total, tipo_cambio) WHERE estado = 'rechazado';
--> statement-breakpoint
-- Backfill from the rows stored so far (migrations run before the service accepts writes).
INSERT INTO issued_cfe_chart_days (company_id, dia, tipo_cfe, moneda, cantidad, monto, monto_uyu)
SELECT company_id, issued_cfe_chart_day(firmado_en), tipo_cfe, moneda, count(*),
  sum(issued_cfe_chart_signed(tipo_cfe, mnt_total)),
  sum(issued_cfe_chart_signed(tipo_cfe, mnt_total) * issued_cfe_chart_rate(moneda, tipo_cambio))
FROM issued_cfes
GROUP BY 1, 2, 3, 4;
