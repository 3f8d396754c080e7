-- seed002_datagen_multijoin.sql - the MultiJoin example of seed article 002
-- (Huawei MRS: FlinkSQL supports Multi Join), verbatim except that the
-- datagen sources are bounded so that the job ends: each source generates
-- the ids 1..10 as a sequence ('fields.id.kind' = 'sequence') and stops after
-- 'number-of-rows' = '10'. At one row per second per source the INSERT runs
-- for about ten seconds and prints its changelog through the print sink.
-- Run: build/joinery -f sample-data/seed002_datagen_multijoin.sql

SET 'table.optimizer.multi-join.enabled' = 'true';

CREATE TABLE datagen1 (id int, f1 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'rows-per-second' = '1',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10'
  );
CREATE TABLE datagen2 (id int, f2 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'rows-per-second' = '1',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10'
  );
CREATE TABLE datagen3 (id int, f3 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'rows-per-second' = '1',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10'
  );
CREATE TABLE datagen5 (id int, f5 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'rows-per-second' = '1',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10'
  );
CREATE TABLE datagen6 (id int, f6 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'rows-per-second' = '1',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10'
  );
CREATE TABLE print (id int, f1 int, f2 int, f3 int, f5 int, f6 int)
WITH
  ('connector' = 'print');

-- The plan: with multi-join enabled the chain shares the key id.
EXPLAIN
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
