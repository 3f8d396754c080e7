-- seed002.sql - the MultiJoin example of seed article 002 (Huawei MRS:
-- FlinkSQL supports Multi Join), from sample-data/seed002_datagen_multijoin.sql,
-- made fast and readable: each datagen source is bounded ('number-of-rows'),
-- unthrottled, and every field is a sequence (id 1..10, fN = N*100 + id), so
-- the changelog is deterministic and can be checked by hand. The seed's
-- EXPLAIN is in pending/seed002_explain.sql (AST bugs).
--
-- Expected final state (checked by hand): ids 1..5 of datagen5 unmatched
-- (only f5), id 6 matched through datagen5 but not datagen6 (f6 NULL), ids
-- 7..10 complete (their f6-less row retracted first), ids 1..6 of datagen6
-- unmatched (only f6): 16 rows, 24 changelog rows.

CREATE TABLE datagen1 (id int, f1 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f1.kind' = 'sequence',
    'fields.f1.start' = '101',
    'fields.f1.end' = '110'
  );
CREATE TABLE datagen2 (id int, f2 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f2.kind' = 'sequence',
    'fields.f2.start' = '201',
    'fields.f2.end' = '210'
  );
CREATE TABLE datagen3 (id int, f3 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f3.kind' = 'sequence',
    'fields.f3.start' = '301',
    'fields.f3.end' = '310'
  );
CREATE TABLE datagen5 (id int, f5 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f5.kind' = 'sequence',
    'fields.f5.start' = '501',
    'fields.f5.end' = '510'
  );
CREATE TABLE datagen6 (id int, f6 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f6.kind' = 'sequence',
    'fields.f6.start' = '601',
    'fields.f6.end' = '610'
  );
CREATE TABLE print (id int, f1 int, f2 int, f3 int, f5 int, f6 int)
WITH
  ('connector' = 'print');

insert into
  print
select
  datagen1.id,
  datagen1.f1,
  datagen2.f2,
  datagen3.f3,
  datagen5.f5,
  datagen6.f6
from
  datagen1
  left join datagen2 on datagen1.id = datagen2.id
  and datagen2.id > 2
  join datagen3 on datagen1.id = datagen3.id
  and datagen3.id > 3
  right join datagen5 on datagen1.id = datagen5.id
  and datagen5.id > 5
  full outer join datagen6 on datagen1.id = datagen6.id
  and datagen6.id > 6
  and datagen1.id > 1;
