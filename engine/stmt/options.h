/*
 * options.h - session options (SET / RESET): the known keys, their defaults,
 * validation of values, and the typed snapshots the planner (PlannerConfig)
 * and the executor (JobConfig) read.
 *
 * Invariants: only known keys are stored; every stored value has been
 * validated for its kind (duration, integer, boolean, enum). A key joinery
 * knows from Flink but does not run yet is rejected with
 * JOINERY_ERROR_UNSUPPORTED, never stored and ignored. No code outside
 * options.c reads an option by its key with a type: the planner and the job
 * take PlannerConfig and JobConfig, filled here from the option table's own
 * key constants (OptionId in options.c), so a misspelled key does not compile.
 */
#ifndef JOINERY_STMT_OPTIONS_H
#define JOINERY_STMT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/diag.h"
#include "engine/exec/job.h"
#include "engine/plan/planner.h"

typedef enum OptionKind {
    OPTION_KIND_STRING,
    OPTION_KIND_BOOLEAN,
    OPTION_KIND_INTEGER,
    OPTION_KIND_DURATION,
    OPTION_KIND_ENUM,        /* one of OptionSpec.choices (case-insensitive) */
    OPTION_KIND_MEMORY_SIZE, /* "512 mb" (base/memory_size.h) */
} OptionKind;

typedef struct OptionSpec {
    const char *key;
    OptionKind kind;
    const char *default_value; /* NULL: no default (unset) */
    const char *choices;       /* ENUM: '|'-separated values */
    const char *description;
} OptionSpec;

typedef struct SessionOptions {
    char **keys;   /* set keys (heap) */
    char **values; /* their values (heap) */
    size_t count;
    size_t capacity;
} SessionOptions;

/* Keys joinery knows, in listing order. */
const OptionSpec *options_specs(size_t *count);
void options_init(SessionOptions *options);
void options_free(SessionOptions *options);
/*
 * Validates and sets key = value. Unknown key: JOINERY_ERROR_VALIDATE with a
 * "did you mean" when close to a known key. Bad value: the message names the
 * expected kind (e.g. "'5 parsecs' is not a duration such as '1 h'").
 */
int options_set(SessionOptions *options, const char *key, const char *value, Diag *diag);
/*
 * A note for the user about a value just set (options_set succeeded), e.g.
 * that 'rocksdb' runs on LMDB; NULL when there is nothing to say.
 */
const char *options_note(const char *key, const char *value);
/* Removes a set key (back to its default); unknown keys are an error. */
int options_reset(SessionOptions *options, const char *key, Diag *diag);
void options_reset_all(SessionOptions *options);
/* The set value, else the default, else NULL (also for an unknown key). */
const char *options_get(const SessionOptions *options, const char *key);
/* The Flink cluster settings SET kept (keys no option of joinery's table reads), in the
   session's order: fills keys[i] / values[i] (borrowed; either array may be NULL) and
   returns their count. */
size_t options_cluster_settings(const SessionOptions *options, const char **keys,
                                const char **values);
/* Every option the planner reads, set value or default (built once per statement). */
void planner_config_from_options(const SessionOptions *options, PlannerConfig *config);
/* How the session submits and manages jobs (engine/stmt/jobs.c); strings borrowed from
   the options until they change. */
typedef struct JobSubmitConfig {
    bool dml_sync;             /* table.dml-sync: INSERT waits for its job */
    const char *pipeline_name; /* pipeline.name; NULL: insert-into_<sink> */
    const char *savepoint_dir; /* execution.checkpointing.savepoint-dir; NULL: none */
    const char *fixed_job_id;  /* $internal.pipeline.job-id; NULL: a random id */
} JobSubmitConfig;
void job_submit_config_from_options(const SessionOptions *options, JobSubmitConfig *config);
/* Every option a job reads, set value or default (built once per statement). */
void job_config_from_options(const SessionOptions *options, JobConfig *config);

#endif
