-- Signed CFE XML kept inline and uncompressed up to a page (issue 5 point 11). With the default
-- toast_tuple_target (~2 KB) PostgreSQL tried pglz on every receipt's 3-6 KB XML at insert (~11 %
-- of its CPU in the emission bench), and an XML carrying its certificate, whose base64 does not
-- compress by the 25 % pglz requires, was then moved to the TOAST table: a second heap insert and
-- index entry. lz4 would be cheaper, but the embedded PostgreSQL build has no lz4. Measured in
-- alternating bench runs: PostgreSQL 0.128-0.141 ms per receipt against 0.142-0.152. Cost: an
-- e-Ticket without certificate takes ~1 KB more disk (3.3 KB instead of 2.2 KB); XML longer than a
-- page is still compressed and moved as before.
ALTER TABLE "issued_cfes" SET (toast_tuple_target = 8160);
