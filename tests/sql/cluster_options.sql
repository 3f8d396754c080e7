-- cluster_options.sql - the set-up lines of a Flink script that configure its
-- cluster (memory, slots, restarts, RocksDB tuning, unaligned checkpoints):
-- SET keeps them with an [INFO] note saying they change nothing in joinery's
-- one process, SET; lists them after joinery's own options, RESET forgets
-- them; a misspelt key of joinery's own stays an error with "did you mean".
SET 'taskmanager.memory.managed.fraction' = '0.4';
SET 'taskmanager.numberOfTaskSlots' = '4';
SET 'state.backend.rocksdb.memory.managed' = 'true';
SET 'restart-strategy.type' = 'fixed-delay';
SET 'execution.checkpointing.unaligned.enabled' = 'true';
SET 'parallelism.default' = '2';
SET;
RESET 'taskmanager.numberOfTaskSlots';
RESET 'restart-strategy.type';
SET;
SET 'table.exec.mini-batch.enable' = 'true';
SET 'taskmanagerx.memory.size' = '1g';
RESET;
SET;
