/*
 * options.c - session options (see options.h). The table below is the list
 * of keys joinery honours, with Flink's defaults.
 *
 * Every key has one constant (OptionId) and one table entry indexed by it;
 * the typed reads take an OptionId, so the readers (the PlannerConfig and
 * JobConfig builders at the end) cannot name a key the table lacks, and each
 * read checks the kind it expects (options_spec_of).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/options.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog.h"
#include "engine/base/duration.h"
#include "engine/base/memory_size.h"
#include "engine/plan/lookup_join_options.h"
#include "engine/state/state.h"
#include "engine/udf/job_parameters.h"

/* The keys, in listing order (SET;): one constant each, the index of its OPTION_SPECS entry. */
typedef enum OptionId {
    OPTION_STATE_TTL,
    OPTION_MINI_BATCH_ENABLED,
    OPTION_MINI_BATCH_ALLOW_LATENCY,
    OPTION_MINI_BATCH_SIZE,
    OPTION_SOURCE_IDLE_TIMEOUT,
    OPTION_AUTO_WATERMARK_INTERVAL,
    OPTION_INTERVAL_JOIN_MIN_CLEANUP_INTERVAL,
    OPTION_ASYNC_LOOKUP_BUFFER_CAPACITY,
    OPTION_ASYNC_LOOKUP_TIMEOUT,
    OPTION_ASYNC_LOOKUP_OUTPUT_MODE,
    OPTION_ASYNC_TABLE_MAX_CONCURRENT_OPERATIONS,
    OPTION_ASYNC_TABLE_TIMEOUT,
    OPTION_ASYNC_TABLE_RETRY_STRATEGY,
    OPTION_ASYNC_TABLE_RETRY_DELAY,
    OPTION_ASYNC_TABLE_MAX_RETRIES,
    OPTION_JOIN_REORDER_ENABLED,
    OPTION_MULTI_JOIN_ENABLED,
    OPTION_MULTI_JOIN_EMPTY_RESULT_PRUNING,
    OPTION_REUSE_SUB_PLAN_ENABLED,
    OPTION_REUSE_SOURCE_ENABLED,
    OPTION_AGG_PHASE_STRATEGY,
    OPTION_DISTINCT_AGG_SPLIT_ENABLED,
    OPTION_DISTINCT_AGG_SPLIT_BUCKET_NUM,
    OPTION_SINK_UPSERT_MATERIALIZE,
    OPTION_PARALLELISM_DEFAULT,
    OPTION_RESULT_MODE,
    OPTION_DML_SYNC,
    OPTION_PIPELINE_NAME,
    OPTION_PIPELINE_GLOBAL_JOB_PARAMETERS,
    OPTION_RUNTIME_MODE,
    OPTION_STATE_BACKEND_TYPE,
    OPTION_STATE_BACKEND_LMDB_PATH,
    OPTION_STATE_BACKEND_LMDB_CHECKPOINT_MODE,
    OPTION_STATE_BACKEND_HASHMAP_MAX_BYTES,
    OPTION_DATAGEN_SEED,
    OPTION_CHECKPOINTING_INTERVAL,
    OPTION_CHECKPOINTING_MODE,
    OPTION_CHECKPOINTING_DIR,
    OPTION_CHECKPOINTING_NUM_RETAINED,
    OPTION_CHECKPOINTING_TIMEOUT,
    OPTION_STATE_RECOVERY_PATH,
    OPTION_SAVEPOINT_DIR,
    OPTION_FIXED_JOB_ID,
    OPTION_DISPLAY_MAX_COLUMN_WIDTH,
    OPTION_PRINT_TIME_COST,
    OPTION_COUNT
} OptionId;

/* Indexed by OptionId; options_init checks that no entry was left out. */
static const OptionSpec OPTION_SPECS[OPTION_COUNT] = {
    [OPTION_STATE_TTL] = {"table.exec.state.ttl", OPTION_KIND_DURATION, "0 ms", NULL,
                          "idle state retention of stateful operators (0 = forever)"},
    [OPTION_MINI_BATCH_ENABLED] = {"table.exec.mini-batch.enabled", OPTION_KIND_BOOLEAN, "false",
                                   NULL, "buffer input rows and process them in batches"},
    [OPTION_MINI_BATCH_ALLOW_LATENCY] = {"table.exec.mini-batch.allow-latency",
                                         OPTION_KIND_DURATION, "0 ms", NULL,
                                         "longest time a mini-batch waits"},
    [OPTION_MINI_BATCH_SIZE] = {"table.exec.mini-batch.size", OPTION_KIND_INTEGER, "-1", NULL,
                                "most rows in a mini-batch"},
    [OPTION_SOURCE_IDLE_TIMEOUT] = {"table.exec.source.idle-timeout", OPTION_KIND_DURATION, "0 ms",
                                    NULL,
                                    "a source partition without records this long no longer "
                                    "holds back the watermark (0 = never idle)"},
    [OPTION_AUTO_WATERMARK_INTERVAL] = {"pipeline.auto-watermark-interval", OPTION_KIND_DURATION,
                                        "200 ms", NULL, "how often sources emit their watermark"},
    [OPTION_INTERVAL_JOIN_MIN_CLEANUP_INTERVAL] =
        {"table.exec.interval-join.min-cleanup-interval", OPTION_KIND_DURATION, "0 ms", NULL,
         "how much later than possible an interval join frees its rows (and pads unmatched "
         "outer rows)"},
    [OPTION_ASYNC_LOOKUP_BUFFER_CAPACITY] = {"table.exec.async-lookup.buffer-capacity",
                                             OPTION_KIND_INTEGER, "100", NULL,
                                             "requests an async lookup join keeps in flight "
                                             "(LOOKUP hint: 'capacity')"},
    [OPTION_ASYNC_LOOKUP_TIMEOUT] = {"table.exec.async-lookup.timeout", OPTION_KIND_DURATION,
                                     "3 min", NULL,
                                     "an async lookup not answered this long fails the job "
                                     "(LOOKUP hint: 'timeout')"},
    [OPTION_ASYNC_LOOKUP_OUTPUT_MODE] = {"table.exec.async-lookup.output-mode", OPTION_KIND_ENUM,
                                         "ORDERED", "ORDERED|ALLOW_UNORDERED",
                                         "async lookup results in input order, or as they come "
                                         "over insert-only input (LOOKUP hint: 'output-mode')"},
    [OPTION_ASYNC_TABLE_MAX_CONCURRENT_OPERATIONS] =
        {"table.exec.async-table.max-concurrent-operations", OPTION_KIND_INTEGER, "10", NULL,
         "calls of an async C table function a Correlate keeps in flight"},
    [OPTION_ASYNC_TABLE_TIMEOUT] = {"table.exec.async-table.timeout", OPTION_KIND_DURATION, "3 min",
                                    NULL,
                                    "an async table function call not complete this long "
                                    "(its retries included) fails the job"},
    [OPTION_ASYNC_TABLE_RETRY_STRATEGY] = {"table.exec.async-table.retry-strategy",
                                           OPTION_KIND_ENUM, "FIXED_DELAY", "NO_RETRY|FIXED_DELAY",
                                           "a failed async table function call is started again "
                                           "after retry-delay (FIXED_DELAY), or fails the job"},
    [OPTION_ASYNC_TABLE_RETRY_DELAY] = {"table.exec.async-table.retry-delay", OPTION_KIND_DURATION,
                                        "100 ms", NULL,
                                        "the wait before an async table function call is started "
                                        "again"},
    [OPTION_ASYNC_TABLE_MAX_RETRIES] = {"table.exec.async-table.max-retries", OPTION_KIND_INTEGER,
                                        "3", NULL,
                                        "how often a failed async table function call is started "
                                        "again before the job fails "
                                        "('table.exec.async-table.max-attempts' accepted)"},
    [OPTION_JOIN_REORDER_ENABLED] = {"table.optimizer.join-reorder-enabled", OPTION_KIND_BOOLEAN,
                                     "false", NULL, "reorder inner joins by cost"},
    [OPTION_MULTI_JOIN_ENABLED] = {"table.optimizer.multi-join.enabled", OPTION_KIND_BOOLEAN,
                                   "false", NULL, "fuse joins that share a key into one MultiJoin"},
    [OPTION_MULTI_JOIN_EMPTY_RESULT_PRUNING] =
        {"table.optimizer.multi-join.empty-result-pruning.enabled", OPTION_KIND_BOOLEAN, "false",
         NULL, "MultiJoin skips inputs whose state is empty for a key"},
    [OPTION_REUSE_SUB_PLAN_ENABLED] = {"table.optimizer.reuse-sub-plan-enabled",
                                       OPTION_KIND_BOOLEAN, "true", NULL,
                                       "a statement set runs sub-plans its INSERTs share once"},
    [OPTION_REUSE_SOURCE_ENABLED] = {"table.optimizer.reuse-source-enabled", OPTION_KIND_BOOLEAN,
                                     "true", NULL,
                                     "a statement set reads a source its INSERTs share once"},
    [OPTION_AGG_PHASE_STRATEGY] = {"table.optimizer.agg-phase-strategy", OPTION_KIND_ENUM, "AUTO",
                                   "AUTO|ONE_PHASE|TWO_PHASE",
                                   "aggregate in one phase or local + global (with mini-batch)"},
    [OPTION_DISTINCT_AGG_SPLIT_ENABLED] = {"table.optimizer.distinct-agg.split.enabled",
                                           OPTION_KIND_BOOLEAN, "false", NULL,
                                           "split COUNT(DISTINCT) into a bucketed partial and a "
                                           "final aggregate (hot keys)"},
    [OPTION_DISTINCT_AGG_SPLIT_BUCKET_NUM] = {"table.optimizer.distinct-agg.split.bucket-num",
                                              OPTION_KIND_INTEGER, "1024", NULL,
                                              "buckets of the split distinct aggregate"},
    [OPTION_SINK_UPSERT_MATERIALIZE] = {"table.exec.sink.upsert-materialize", OPTION_KIND_ENUM,
                                        "AUTO", "NONE|AUTO|FORCE",
                                        "keep a sink's rows per primary key and emit the latest "
                                        "(upsertMaterialize): AUTO when changes of one key may "
                                        "come out of order"},
    [OPTION_PARALLELISM_DEFAULT] = {"parallelism.default", OPTION_KIND_INTEGER, "1", NULL,
                                    "subtasks of each keyed operator"},
    [OPTION_RESULT_MODE] = {"sql-client.execution.result-mode", OPTION_KIND_ENUM, "tableau",
                            "tableau|csv|json|table|changelog", "how results are printed"},
    [OPTION_DML_SYNC] = {"table.dml-sync", OPTION_KIND_BOOLEAN, "true", NULL,
                         "INSERT INTO waits for its job to finish; 'false' submits it to run "
                         "in the background (Flink's client default is false; joinery's is "
                         "true, so that a script's later statements see what it wrote)"},
    [OPTION_PIPELINE_NAME] = {"pipeline.name", OPTION_KIND_STRING, NULL, NULL,
                              "name of the next jobs (SHOW JOBS; default "
                              "insert-into_<sink table>)"},
    [OPTION_PIPELINE_GLOBAL_JOB_PARAMETERS] =
        {"pipeline.global-job-parameters", OPTION_KIND_STRING, NULL, NULL,
         "'key1:value1,key2:value2' the job's user-defined functions read "
         "(context->job_parameter, engine/udf/joinery_udf.h)"},
    [OPTION_RUNTIME_MODE] = {"execution.runtime-mode", OPTION_KIND_ENUM, "streaming",
                             "streaming|batch",
                             "streaming, or batch: bounded sources only, the final result once "
                             "(the streaming plan run to the end of its input)"},
    [OPTION_STATE_BACKEND_TYPE] = {"state.backend.type", OPTION_KIND_ENUM, "hashmap",
                                   "hashmap|memory|lmdb|rocksdb",
                                   "state backend: hashmap (in memory) or lmdb (on disk, for "
                                   "state larger than memory; 'rocksdb' runs on lmdb)"},
    [OPTION_STATE_BACKEND_LMDB_PATH] = {"state.backend.lmdb.path", OPTION_KIND_STRING, NULL, NULL,
                                        "joinery: folder for jobs' LMDB state (default: a "
                                        "temporary folder removed when the job ends)"},
    [OPTION_STATE_BACKEND_LMDB_CHECKPOINT_MODE] =
        {"state.backend.lmdb.checkpoint-mode", OPTION_KIND_ENUM, "copy", "copy|records",
         "joinery: how a checkpoint holds LMDB state: copy (each task's environment copied, "
         "compacted, off the task's thread) or records (every state walked into its file)"},
    [OPTION_STATE_BACKEND_HASHMAP_MAX_BYTES] =
        {"state.backend.hashmap.max-bytes", OPTION_KIND_MEMORY_SIZE, NULL, NULL,
         "joinery: most memory a job's hashmap state may use (default: three quarters of the "
         "memory limit of the process, or half of the physical memory if that is less)"},
    [OPTION_DATAGEN_SEED] = {"table.exec.datagen.seed", OPTION_KIND_INTEGER, "0", NULL,
                             "joinery: seed of datagen's random values, so runs repeat"},
    [OPTION_DISPLAY_MAX_COLUMN_WIDTH] = {"table.display.max-column-width", OPTION_KIND_INTEGER,
                                         "30", NULL,
                                         "characters of a query result's unbounded-width column "
                                         "(STRING, DOUBLE, ...) shown before it is cut"},
    [OPTION_PRINT_TIME_COST] = {"sql-client.display.print-time-cost", OPTION_KIND_BOOLEAN, "false",
                                NULL,
                                "print the time a statement took after its result (joinery's "
                                "default is false, so outputs repeat byte for byte)"},
    [OPTION_CHECKPOINTING_INTERVAL] = {"execution.checkpointing.interval", OPTION_KIND_DURATION,
                                       NULL, NULL,
                                       "take a checkpoint this often (unset: no checkpoints)"},
    [OPTION_CHECKPOINTING_MODE] = {"execution.checkpointing.mode", OPTION_KIND_ENUM, "EXACTLY_ONCE",
                                   "EXACTLY_ONCE|AT_LEAST_ONCE",
                                   "checkpoint guarantee (joinery always aligns barriers, so "
                                   "AT_LEAST_ONCE runs exactly-once)"},
    [OPTION_CHECKPOINTING_DIR] = {"execution.checkpointing.dir", OPTION_KIND_STRING, NULL, NULL,
                                  "folder of checkpoints: <dir>/<job id>/chk-<n>/ "
                                  "('state.checkpoints.dir' accepted)"},
    [OPTION_CHECKPOINTING_NUM_RETAINED] = {"execution.checkpointing.num-retained",
                                           OPTION_KIND_INTEGER, "1", NULL,
                                           "completed checkpoints kept "
                                           "('state.checkpoints.num-retained' accepted)"},
    [OPTION_CHECKPOINTING_TIMEOUT] = {"execution.checkpointing.timeout", OPTION_KIND_DURATION,
                                      "10 min", NULL,
                                      "a checkpoint not complete after this long is given up"},
    [OPTION_STATE_RECOVERY_PATH] = {"execution.state-recovery.path", OPTION_KIND_STRING, NULL, NULL,
                                    "the next INSERT resumes from this checkpoint folder "
                                    "('execution.savepoint.path' accepted)"},
    [OPTION_SAVEPOINT_DIR] = {"execution.checkpointing.savepoint-dir", OPTION_KIND_STRING, NULL,
                              NULL,
                              "folder of STOP JOB ... WITH SAVEPOINT's savepoints "
                              "('state.savepoints.dir' accepted)"},
    [OPTION_FIXED_JOB_ID] = {"$internal.pipeline.job-id", OPTION_KIND_STRING, NULL, NULL,
                             "the id of the next job (32 hex digits; Flink's internal key, for "
                             "tests and scripts that need a known id)"},
};

/* Flink's deprecated or older names of keys of the table: SET, RESET and reads act on the
   current key; `note` (may be NULL) is the [INFO] line SET prints for the old name. */
static const struct {
    const char *deprecated;
    OptionId id;
    const char *note;
} OPTION_ALIASES[] = {
    {"sql-client.display.max-column-width", OPTION_DISPLAY_MAX_COLUMN_WIDTH,
     "This key is deprecated; joinery stores it as 'table.display.max-column-width', as Flink "
     "reads it."},
    {"state.checkpoints.dir", OPTION_CHECKPOINTING_DIR, NULL},
    {"state.checkpoints.num-retained", OPTION_CHECKPOINTING_NUM_RETAINED, NULL},
    {"execution.savepoint.path", OPTION_STATE_RECOVERY_PATH, NULL},
    {"state.savepoints.dir", OPTION_SAVEPOINT_DIR, NULL},
    /* the name Flink's udfs.md gives it; its configuration lists max-retries */
    {"table.exec.async-table.max-attempts", OPTION_ASYNC_TABLE_MAX_RETRIES, NULL},
};

/* The key `key` stands for: itself, or the new key of a deprecated one. */
static const char *options_canonical_key(const char *key)
{
    for (size_t i = 0; i < sizeof OPTION_ALIASES / sizeof OPTION_ALIASES[0]; i++)
        if (strcmp(OPTION_ALIASES[i].deprecated, key) == 0)
            return OPTION_SPECS[OPTION_ALIASES[i].id].key;
    return key;
}

/* Flink keys recognised but not run yet: rejected with a clear message. */
static const char *const UNSUPPORTED_KEYS[] = {
    "table.optimizer.non-deterministic-update.strategy",
};

/* Keys a Flink cluster reads (its processes, memory, restarts, RocksDB tuning) that change
   nothing about a job in joinery's one process: SET keeps them (SET; lists them, RESET
   forgets them) with an [INFO] note, so a Flink script runs past its set-up lines. */
static const char *const CLUSTER_KEYS[] = {
    "taskmanager.numberOfTaskSlots",
    "execution.checkpointing.unaligned",
    "execution.checkpointing.unaligned.enabled",
    "execution.checkpointing.min-pause",
    "execution.checkpointing.tolerable-failed-checkpoints",
    "execution.checkpointing.incremental",
    "state.backend.incremental",
    "pipeline.operator-chaining",
    "pipeline.operator-chaining.enabled",
    "restart-strategy",
};
static const char *const CLUSTER_KEY_PREFIXES[] = {
    "taskmanager.memory.", "jobmanager.memory.", "state.backend.rocksdb.",
    "restart-strategy.",   "metrics.",           "rest.",
    "high-availability",   "kubernetes.",        "yarn.",
};

static bool options_is_cluster_key(const char *key)
{
    for (size_t i = 0; i < sizeof CLUSTER_KEYS / sizeof CLUSTER_KEYS[0]; i++)
        if (strcmp(CLUSTER_KEYS[i], key) == 0)
            return true;
    for (size_t i = 0; i < sizeof CLUSTER_KEY_PREFIXES / sizeof CLUSTER_KEY_PREFIXES[0]; i++)
        if (strncmp(CLUSTER_KEY_PREFIXES[i], key, strlen(CLUSTER_KEY_PREFIXES[i])) == 0)
            return true;
    return false;
}

const OptionSpec *options_specs(size_t *count)
{
    *count = sizeof OPTION_SPECS / sizeof OPTION_SPECS[0];
    return OPTION_SPECS;
}

static const OptionSpec *options_find_spec(const char *key)
{
    for (size_t i = 0; i < sizeof OPTION_SPECS / sizeof OPTION_SPECS[0]; i++)
        if (strcmp(OPTION_SPECS[i].key, key) == 0)
            return &OPTION_SPECS[i];
    return NULL;
}

void options_init(SessionOptions *options)
{
    /* an OptionId without its table entry is a programming error: caught at the first session */
    for (size_t i = 0; i < OPTION_COUNT; i++)
        assert(OPTION_SPECS[i].key && "every OptionId has its OPTION_SPECS entry");
    memset(options, 0, sizeof *options);
}

void options_reset_all(SessionOptions *options)
{
    for (size_t i = 0; i < options->count; i++) {
        free(options->keys[i]);
        free(options->values[i]);
    }
    options->count = 0;
}

void options_free(SessionOptions *options)
{
    options_reset_all(options);
    free(options->keys);
    free(options->values);
    memset(options, 0, sizeof *options);
}

static int options_unknown_key(const char *key, Diag *diag)
{
    for (size_t i = 0; i < sizeof UNSUPPORTED_KEYS / sizeof UNSUPPORTED_KEYS[0]; i++)
        if (strcmp(UNSUPPORTED_KEYS[i], key) == 0)
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Option '%s' is not supported yet by joinery", key);
    const char *names[sizeof OPTION_SPECS / sizeof OPTION_SPECS[0]];
    size_t count = sizeof OPTION_SPECS / sizeof OPTION_SPECS[0];
    for (size_t i = 0; i < count; i++)
        names[i] = OPTION_SPECS[i].key;
    const char *suggestion = catalog_suggest_name(key, names, count);
    if (suggestion)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Unknown option '%s'; did you mean '%s'?",
                          key, suggestion);
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Unknown option '%s'. Run SET; to list the options joinery knows", key);
}

static int options_check_value(const OptionSpec *spec, const char *value, Diag *diag)
{
    switch (spec->kind) {
    case OPTION_KIND_STRING:
        return JOINERY_OK;
    case OPTION_KIND_BOOLEAN:
        if (strcasecmp(value, "true") == 0 || strcasecmp(value, "false") == 0)
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s': expected true or false", value,
                          spec->key);
    case OPTION_KIND_INTEGER: {
        char *end;
        long long parsed = strtoll(value, &end, 10);
        (void)parsed;
        if (*value && *end == '\0')
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s': expected an integer", value,
                          spec->key);
    }
    case OPTION_KIND_DURATION: {
        int64_t millis;
        if (duration_parse_millis(value, &millis) == 0)
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s': expected a duration such as "
                          "'500 ms', '5 s', '1 h' or '7 d'",
                          value, spec->key);
    }
    case OPTION_KIND_MEMORY_SIZE: {
        uint64_t bytes;
        if (memory_size_parse(value, &bytes) == 0)
            return JOINERY_OK;
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s': expected a memory size such as "
                          "'512 mb' or '2 gb'",
                          value, spec->key);
    }
    case OPTION_KIND_ENUM: {
        const char *cursor = spec->choices;
        size_t length = strlen(value);
        while (cursor && *cursor) {
            const char *bar = strchr(cursor, '|');
            size_t choice_length = bar ? (size_t)(bar - cursor) : strlen(cursor);
            if (choice_length == length && strncasecmp(cursor, value, length) == 0)
                return JOINERY_OK;
            cursor = bar ? bar + 1 : NULL;
        }
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s': expected one of %s", value,
                          spec->key, spec->choices);
    }
    }
    return JOINERY_OK;
}

int options_set(SessionOptions *options, const char *key, const char *value, Diag *diag)
{
    key = options_canonical_key(key);
    const OptionSpec *spec = options_find_spec(key);
    if (!spec && !options_is_cluster_key(key))
        return options_unknown_key(key, diag);
    int status = spec ? options_check_value(spec, value, diag) : JOINERY_OK;
    if (status != JOINERY_OK)
        return status;
    if (spec == &OPTION_SPECS[OPTION_DISPLAY_MAX_COLUMN_WIDTH]) {
        long long width = strtoll(value, NULL, 10);
        if (width < 1 || width > 100000)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected 1 to 100000", value,
                              spec->key);
    }
    if (spec == &OPTION_SPECS[OPTION_CHECKPOINTING_NUM_RETAINED] && strtoll(value, NULL, 10) < 1)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s': expected at least 1", value,
                          spec->key);
    if (spec == &OPTION_SPECS[OPTION_CHECKPOINTING_INTERVAL] ||
        spec == &OPTION_SPECS[OPTION_CHECKPOINTING_TIMEOUT]) {
        int64_t millis = 0;
        duration_parse_millis(value, &millis);
        if (millis < 10)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected at least 10 ms", value,
                              spec->key);
    }
    if (spec == &OPTION_SPECS[OPTION_ASYNC_LOOKUP_BUFFER_CAPACITY]) {
        long long capacity = strtoll(value, NULL, 10);
        if (capacity < 1 || capacity > LOOKUP_MAX_CAPACITY)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected 1 to %d (the number "
                              "of concurrent async operations must be greater than 0)",
                              value, spec->key, LOOKUP_MAX_CAPACITY);
    }
    if (spec == &OPTION_SPECS[OPTION_ASYNC_LOOKUP_TIMEOUT]) {
        int64_t millis = 0;
        duration_parse_millis(value, &millis);
        if (millis < 1)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected a positive duration "
                              "(joinery has no async lookup without a timeout)",
                              value, spec->key);
    }
    if (spec == &OPTION_SPECS[OPTION_ASYNC_TABLE_MAX_CONCURRENT_OPERATIONS]) {
        long long capacity = strtoll(value, NULL, 10);
        if (capacity < 1 || capacity > LOOKUP_MAX_CAPACITY)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected 1 to %d", value,
                              spec->key, LOOKUP_MAX_CAPACITY);
    }
    if (spec == &OPTION_SPECS[OPTION_ASYNC_TABLE_TIMEOUT]) {
        int64_t millis = 0;
        duration_parse_millis(value, &millis);
        if (millis < 1)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected a positive duration",
                              value, spec->key);
    }
    if (spec == &OPTION_SPECS[OPTION_ASYNC_TABLE_MAX_RETRIES]) {
        long long retries = strtoll(value, NULL, 10);
        if (retries < 0 || retries > 1000)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected 0 to 1000", value,
                              spec->key);
    }
    if (spec == &OPTION_SPECS[OPTION_PIPELINE_GLOBAL_JOB_PARAMETERS]) {
        JobParameters parsed;
        int parse_status = job_parameters_parse(value, &parsed, diag);
        job_parameters_free(&parsed);
        if (parse_status != JOINERY_OK)
            return parse_status;
    }
    if (spec == &OPTION_SPECS[OPTION_PARALLELISM_DEFAULT]) {
        long long parallelism = strtoll(value, NULL, 10);
        if (parallelism < 1 || parallelism > 64)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid value '%s' for option '%s': expected 1 to 64", value,
                              spec->key);
    }
    for (size_t i = 0; i < options->count; i++) {
        if (strcmp(options->keys[i], key) == 0) {
            char *copy = strdup(value);
            if (!copy)
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            free(options->values[i]);
            options->values[i] = copy;
            return JOINERY_OK;
        }
    }
    if (options->count == options->capacity) {
        size_t capacity = options->capacity ? options->capacity * 2 : 8;
        char **keys = realloc(options->keys, capacity * sizeof *keys);
        if (!keys)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        options->keys = keys;
        char **values = realloc(options->values, capacity * sizeof *values);
        if (!values)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        options->values = values;
        options->capacity = capacity;
    }
    char *key_copy = strdup(key);
    char *value_copy = strdup(value);
    if (!key_copy || !value_copy) {
        free(key_copy);
        free(value_copy);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    options->keys[options->count] = key_copy;
    options->values[options->count] = value_copy;
    options->count++;
    return JOINERY_OK;
}

int options_reset(SessionOptions *options, const char *key, Diag *diag)
{
    key = options_canonical_key(key);
    if (!options_find_spec(key) && !options_is_cluster_key(key))
        return options_unknown_key(key, diag);
    for (size_t i = 0; i < options->count; i++) {
        if (strcmp(options->keys[i], key) == 0) {
            free(options->keys[i]);
            free(options->values[i]);
            options->keys[i] = options->keys[options->count - 1];
            options->values[i] = options->values[options->count - 1];
            options->count--;
            break;
        }
    }
    return JOINERY_OK;
}

size_t options_cluster_settings(const SessionOptions *options, const char **keys,
                                const char **values)
{
    size_t count = 0;
    for (size_t i = 0; i < options->count; i++)
        if (!options_find_spec(options->keys[i])) {
            if (keys)
                keys[count] = options->keys[i];
            if (values)
                values[count] = options->values[i];
            count++;
        }
    return count;
}

const char *options_get(const SessionOptions *options, const char *key)
{
    key = options_canonical_key(key);
    for (size_t i = 0; i < options->count; i++)
        if (strcmp(options->keys[i], key) == 0)
            return options->values[i];
    const OptionSpec *spec = options_find_spec(key);
    return spec ? spec->default_value : NULL;
}

/*
 * The spec of a key a typed read asks for, which must be of `kind`: a read of
 * the wrong kind is a programming error, caught here on the first statement
 * of any run (every statement builds both configs).
 */
static const OptionSpec *options_spec_of(OptionId id, OptionKind kind)
{
    const OptionSpec *spec = &OPTION_SPECS[id];
    assert(spec->kind == kind && "a typed read matches the option's kind");
    (void)kind;
    return spec;
}

/* Typed reads of known keys (values are valid by construction). */
static int64_t options_duration_millis(const SessionOptions *options, OptionId id)
{
    const char *value = options_get(options, options_spec_of(id, OPTION_KIND_DURATION)->key);
    int64_t millis = 0;
    if (value)
        duration_parse_millis(value, &millis);
    return millis;
}

static int64_t options_integer(const SessionOptions *options, OptionId id)
{
    const char *value = options_get(options, options_spec_of(id, OPTION_KIND_INTEGER)->key);
    return value ? strtoll(value, NULL, 10) : 0;
}

static bool options_boolean(const SessionOptions *options, OptionId id)
{
    const char *value = options_get(options, options_spec_of(id, OPTION_KIND_BOOLEAN)->key);
    return value && strcasecmp(value, "true") == 0;
}

void planner_config_from_options(const SessionOptions *options, PlannerConfig *config)
{
    memset(config, 0, sizeof *config);
    config->join_reorder_enabled = options_boolean(options, OPTION_JOIN_REORDER_ENABLED);
    config->reuse_sub_plan_enabled = options_boolean(options, OPTION_REUSE_SUB_PLAN_ENABLED);
    config->reuse_source_enabled = options_boolean(options, OPTION_REUSE_SOURCE_ENABLED);
    config->multi_join_enabled = options_boolean(options, OPTION_MULTI_JOIN_ENABLED);
    config->state_ttl_millis = options_duration_millis(options, OPTION_STATE_TTL);
    config->source_idle_timeout_millis =
        options_duration_millis(options, OPTION_SOURCE_IDLE_TIMEOUT);
    config->watermark_interval_millis =
        options_duration_millis(options, OPTION_AUTO_WATERMARK_INTERVAL);
    config->interval_join_min_cleanup_millis =
        options_duration_millis(options, OPTION_INTERVAL_JOIN_MIN_CLEANUP_INTERVAL);
    config->parallelism = (int)options_integer(options, OPTION_PARALLELISM_DEFAULT);
    config->mini_batch_enabled = options_boolean(options, OPTION_MINI_BATCH_ENABLED);
    config->mini_batch_latency_millis =
        options_duration_millis(options, OPTION_MINI_BATCH_ALLOW_LATENCY);
    config->mini_batch_size = options_integer(options, OPTION_MINI_BATCH_SIZE);
    const char *mode =
        options_get(options, options_spec_of(OPTION_RUNTIME_MODE, OPTION_KIND_ENUM)->key);
    config->batch_mode = mode && strcasecmp(mode, "batch") == 0;
    const char *phase =
        options_get(options, options_spec_of(OPTION_AGG_PHASE_STRATEGY, OPTION_KIND_ENUM)->key);
    config->distinct_split_enabled = options_boolean(options, OPTION_DISTINCT_AGG_SPLIT_ENABLED);
    config->distinct_split_buckets = options_integer(options, OPTION_DISTINCT_AGG_SPLIT_BUCKET_NUM);
    config->agg_phase = PLAN_AGG_PHASE_AUTO;
    if (phase && strcasecmp(phase, "ONE_PHASE") == 0)
        config->agg_phase = PLAN_AGG_PHASE_ONE_PHASE;
    else if (phase && strcasecmp(phase, "TWO_PHASE") == 0)
        config->agg_phase = PLAN_AGG_PHASE_TWO_PHASE;
    config->async_lookup_capacity = options_integer(options, OPTION_ASYNC_LOOKUP_BUFFER_CAPACITY);
    config->async_lookup_timeout_millis =
        options_duration_millis(options, OPTION_ASYNC_LOOKUP_TIMEOUT);
    const char *output_mode = options_get(
        options, options_spec_of(OPTION_ASYNC_LOOKUP_OUTPUT_MODE, OPTION_KIND_ENUM)->key);
    config->async_lookup_allow_unordered =
        output_mode && strcasecmp(output_mode, "ALLOW_UNORDERED") == 0;
    const char *materialize = options_get(
        options, options_spec_of(OPTION_SINK_UPSERT_MATERIALIZE, OPTION_KIND_ENUM)->key);
    config->upsert_materialize = PLAN_UPSERT_MATERIALIZE_AUTO;
    if (materialize && strcasecmp(materialize, "NONE") == 0)
        config->upsert_materialize = PLAN_UPSERT_MATERIALIZE_NONE;
    else if (materialize && strcasecmp(materialize, "FORCE") == 0)
        config->upsert_materialize = PLAN_UPSERT_MATERIALIZE_FORCE;
}

const char *options_note(const char *key, const char *value)
{
    for (size_t i = 0; i < sizeof OPTION_ALIASES / sizeof OPTION_ALIASES[0]; i++)
        if (strcmp(OPTION_ALIASES[i].deprecated, key) == 0 && OPTION_ALIASES[i].note)
            return OPTION_ALIASES[i].note;
    StateBackendKind kind;
    bool substituted = false;
    if (strcmp(key, OPTION_SPECS[OPTION_STATE_BACKEND_TYPE].key) == 0 &&
        state_backend_parse(value, &kind, &substituted) && substituted)
        return "joinery has no RocksDB: state.backend.type 'rocksdb' runs on its LMDB backend "
               "(on disk, larger than memory, as RocksDB is for Flink).";
    if (!options_find_spec(options_canonical_key(key)) && options_is_cluster_key(key))
        return "This is a Flink cluster setting: joinery runs the job in this one process, so "
               "it keeps the value (SET; lists it) and it changes nothing here.";
    return NULL;
}

/* The set value of a key, or NULL when it is not set (its default is not looked up). */
static const char *options_set_value(const SessionOptions *options, OptionId id)
{
    for (size_t i = 0; i < options->count; i++)
        if (strcmp(options->keys[i], OPTION_SPECS[id].key) == 0)
            return options->values[i];
    return NULL;
}

static uint64_t options_memory_size(const SessionOptions *options, OptionId id)
{
    const char *value = options_get(options, options_spec_of(id, OPTION_KIND_MEMORY_SIZE)->key);
    uint64_t bytes = 0;
    if (value)
        memory_size_parse(value, &bytes);
    return bytes;
}

void job_config_from_options(const SessionOptions *options, JobConfig *config)
{
    memset(config, 0, sizeof *config);
    /* a session that does not choose gets the run's default (JOINERY_STATE_BACKEND) */
    const char *backend = options_set_value(options, OPTION_STATE_BACKEND_TYPE);
    if (!backend || !state_backend_parse(backend, &config->state_backend, NULL))
        config->state_backend = state_backend_default();
    config->lmdb_path = options_get(
        options, options_spec_of(OPTION_STATE_BACKEND_LMDB_PATH, OPTION_KIND_STRING)->key);
    config->hashmap_max_bytes =
        options_memory_size(options, OPTION_STATE_BACKEND_HASHMAP_MAX_BYTES);
    const char *checkpoint_mode = options_get(
        options, options_spec_of(OPTION_STATE_BACKEND_LMDB_CHECKPOINT_MODE, OPTION_KIND_ENUM)->key);
    config->lmdb_checkpoint_records =
        checkpoint_mode && strcasecmp(checkpoint_mode, "records") == 0;
    config->parallelism = (int)options_integer(options, OPTION_PARALLELISM_DEFAULT);
    config->datagen_seed = (uint64_t)options_integer(options, OPTION_DATAGEN_SEED);
    config->multi_join_pruning = options_boolean(options, OPTION_MULTI_JOIN_EMPTY_RESULT_PRUNING);
    config->idle_timeout_millis = options_duration_millis(options, OPTION_SOURCE_IDLE_TIMEOUT);
    config->checkpoint_interval_millis =
        options_duration_millis(options, OPTION_CHECKPOINTING_INTERVAL);
    config->checkpoint_dir =
        options_get(options, options_spec_of(OPTION_CHECKPOINTING_DIR, OPTION_KIND_STRING)->key);
    config->checkpoint_retained = (int)options_integer(options, OPTION_CHECKPOINTING_NUM_RETAINED);
    config->checkpoint_timeout_millis =
        options_duration_millis(options, OPTION_CHECKPOINTING_TIMEOUT);
    config->restore_path =
        options_get(options, options_spec_of(OPTION_STATE_RECOVERY_PATH, OPTION_KIND_STRING)->key);
    config->job_parameters = options_get(
        options, options_spec_of(OPTION_PIPELINE_GLOBAL_JOB_PARAMETERS, OPTION_KIND_STRING)->key);
    config->async_table.capacity =
        (int)options_integer(options, OPTION_ASYNC_TABLE_MAX_CONCURRENT_OPERATIONS);
    config->async_table.timeout_millis =
        options_duration_millis(options, OPTION_ASYNC_TABLE_TIMEOUT);
    const char *retry = options_get(
        options, options_spec_of(OPTION_ASYNC_TABLE_RETRY_STRATEGY, OPTION_KIND_ENUM)->key);
    bool no_retry = retry && strcasecmp(retry, "NO_RETRY") == 0;
    config->async_table.max_retries =
        no_retry ? 0 : (int)options_integer(options, OPTION_ASYNC_TABLE_MAX_RETRIES);
    config->async_table.retry_delay_millis =
        options_duration_millis(options, OPTION_ASYNC_TABLE_RETRY_DELAY);
}

void job_submit_config_from_options(const SessionOptions *options, JobSubmitConfig *config)
{
    memset(config, 0, sizeof *config);
    config->dml_sync = options_boolean(options, OPTION_DML_SYNC);
    config->pipeline_name =
        options_get(options, options_spec_of(OPTION_PIPELINE_NAME, OPTION_KIND_STRING)->key);
    config->savepoint_dir =
        options_get(options, options_spec_of(OPTION_SAVEPOINT_DIR, OPTION_KIND_STRING)->key);
    config->fixed_job_id =
        options_get(options, options_spec_of(OPTION_FIXED_JOB_ID, OPTION_KIND_STRING)->key);
}
