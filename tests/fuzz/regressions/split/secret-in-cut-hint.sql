SELECT * FROM t /*+ OPTIONS('sasl.password' /* c */ = 'p4') */;
SET 'a.token' = 'x'; SELECT 1 FROM;
SET 'a.password' = 'never closed