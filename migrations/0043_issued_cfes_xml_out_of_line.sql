-- The signed XML moves out of the issued_cfes row, uncompressed (issue 45). Every receipt's row is
-- updated three times on its way through DGI (en_cola_dgi, sobre_recibido, aceptado), and `estado` is
-- indexed, so each update writes a whole new row version: with the XML inline (0019) that copied
-- 3-6 KB each time. With STORAGE EXTERNAL and the default toast_tuple_target the XML is stored once
-- in the TOAST table at insert, never compressed (no pglz on the hot path, 0019's reason), and an
-- update copies only the ~0.5 KB row and a TOAST pointer. Measured with `bench/lifecycle.ts
-- --pg-statements`, 20 s runs alternating before/after: the state update 0.140-0.165 → 0.110-0.122 ms
-- and 3.8-4.5 → 1.5-1.6 KB of WAL per row, blocks dirtied 0.54 → 0.12 per row; the insert unchanged
-- (0.25-0.27 ms per row); PostgreSQL CPU per receipt 0.94-1.00 → 0.86-0.97 ms. Rows written before
-- this keep their inline XML until they are updated.
ALTER TABLE "issued_cfes" RESET (toast_tuple_target);--> statement-breakpoint
ALTER TABLE "issued_cfes" ALTER COLUMN "xml" SET STORAGE EXTERNAL;
