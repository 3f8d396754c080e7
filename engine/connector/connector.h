/*
 * connector.h - sources and sinks, and the registry of connectors by the
 * name used in WITH ('connector' = '...').
 *
 * A source produces rows of the table's produced columns (physical and
 * metadata columns, in the order SourceSpec.columns gives; computed columns
 * and filters are the planner's Calc, not the connector's). A sink consumes
 * rows of the sink table's physical columns, with their row kinds.
 *
 * Ownership: readers and writers are created by the connector and freed by
 * their close function. Specs are borrowed for the reader's/writer's whole
 * life (the job keeps them alive).
 */
#ifndef JOINERY_CONNECTOR_H
#define JOINERY_CONNECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "engine/base/arena.h"
#include "engine/base/byte_stream.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/row_batch.h"
#include "engine/base/strbuf.h"
#include "engine/base/type.h"

/* One option a connector accepts. */
typedef struct ConnectorOption {
    const char *key; /* exact key, or a pattern: '#' matches one name segment
                        ("fields.#.kind"), a trailing '*' matches any suffix
                        ("properties.*") */
    bool required;
    const char *description; /* one line, shown when listing valid options */
} ConnectorOption;

typedef struct SourceSpec {
    const CatalogTable *table;
    uint32_t field_count;    /* produced fields */
    const uint32_t *columns; /* index into table->columns of each produced field */
    const DataType *types;   /* type of each produced field */
    int subtask_index;       /* which split of the source this reader reads */
    int parallelism;         /* how many readers read the source */
    uint64_t seed;           /* for random data: runs repeat */
    /* While the reader is created (a connection to a cluster): waits stop soon after
       *cancel_requested becomes non-zero (create_source then returns JOINERY_CANCELLED), and
       a wait longer than a second is reported through progress(progress_context, line).
       Both may be NULL. */
    volatile int *cancel_requested;
    int (*progress)(void *context, const char *line);
    void *progress_context;
} SourceSpec;

typedef enum SourcePollStatus {
    SOURCE_POLL_ROWS = 1, /* rows were added (maybe zero when bad records were skipped) */
    SOURCE_POLL_IDLE = 2, /* nothing now; *next_poll_millis says when to try again */
    SOURCE_POLL_END = 3,  /* bounded source exhausted: no rows added, none will follow */
} SourcePollStatus;

typedef struct SourceReader SourceReader;

typedef struct SourceReaderVtable {
    /*
     * Adds up to `max_rows` rows (kind set: +I for append sources) to `out`,
     * allocating them in `arena` (the caller resets it between polls).
     * Returns a SourcePollStatus (> 0) or a negative JoineryStatus with
     * `diag` filled: a bad record names the file and line (or topic,
     * partition and offset) unless the table asks to skip bad records, in
     * which case the reader counts it in skipped_rows.
     */
    int (*poll)(SourceReader *reader, RowBatch *out, Arena *arena, uint32_t max_rows,
                int64_t now_millis, int64_t *next_poll_millis, Diag *diag);
    /* Frees the reader. */
    void (*close)(SourceReader *reader);
    /*
     * Checkpoints (engine/exec/checkpoint.h), the capability of a source to resume:
     * snapshot_position writes, between two polls, where the reader is (file and offset,
     * rows generated, offset per partition), so that a reader restored from it goes on
     * with exactly the next row it would have produced; restore_position reads it into a
     * freshly created reader before its first poll (a position that does not fit the
     * table - other files, other partitions - is an error naming the table). NULL: the
     * source cannot resume, and a job with checkpoints refuses to run it.
     */
    int (*snapshot_position)(SourceReader *reader, const ByteWriter *out);
    int (*restore_position)(SourceReader *reader, const ByteReader *in, Diag *diag);
} SourceReaderVtable;

struct SourceReader {
    const SourceReaderVtable *vtable;
    const SourceSpec *spec;
    uint64_t skipped_rows; /* bad records skipped (json.ignore-parse-errors etc.) */
    StrBuf warnings;       /* what the reader passed over and the user should know (a
                              dangling link in a source directory), one line each, shown
                              after the job; owned (and freed) by the reader */
    StrBuf skip_report;    /* where the skipped records were, for SHOW JOB METRICS: lines
                              "file:line: reason" for the first few, then a count per
                              file; empty when the reader does not say; owned */
    bool stopped_cleanly;  /* set by the job before close: every row read was fully
                              processed (end of input, or a user cancel with no rows in
                              flight), so positions read may be committed */
    /* Split-aware readers (kafka: one split per assigned partition), for one watermark
       per split; left 0 / NULL by readers of one stream. Set at creation: */
    uint32_t split_count;       /* splits assigned to this reader */
    const uint32_t *row_splits; /* after a poll that added rows: row_splits[i] is the
                                   split (< split_count) of out->rows[i] */
    const bool *split_finished; /* [split]: bounded read reached its end */
    void *impl;
};

typedef struct SinkSpec {
    const CatalogTable *table;
    uint32_t field_count;
    const DataType *types;
    const char *const *names;
    /* Where text output goes (print connector): one call per line, no '\n'. */
    int (*write_line)(void *context, const char *line);
    void *line_context;
    volatile int *cancel_requested; /* as SourceSpec.cancel_requested */
} SinkSpec;

typedef struct SinkWriter SinkWriter;

typedef struct SinkWriterVtable {
    /* Writes a batch; rows carry their kinds. */
    int (*write)(SinkWriter *writer, const RowBatch *batch, Diag *diag);
    /* End of input: flush and commit. May be NULL. */
    int (*finish)(SinkWriter *writer, Diag *diag);
    /* The job failed (or stopped without draining) before finish: discards what is not
       committed and appends to `note` one sentence saying what the output holds now
       ("'out.csv' keeps its previous contents; ..."), for the job's error. May be NULL. */
    void (*abort)(SinkWriter *writer, StrBuf *note);
    /* Frees the writer. */
    void (*close)(SinkWriter *writer);
    /*
     * Exactly-once (Flink's two-phase commit sink), for checkpoints: at the barrier of
     * checkpoint `checkpoint_id`, prepare_commit makes everything written so far pending
     * (durable but not visible: a part file closed and synced under its hidden name) and
     * writes into `out` every pending transaction not committed yet; commit makes the
     * pending transactions of checkpoints up to `checkpoint_id` visible once that
     * checkpoint is complete (a part file renamed into place), and must be idempotent;
     * restore_pending, before any write, commits what a restored checkpoint holds pending
     * (its checkpoint completed: it was restored from). NULL: the sink is at-least-once
     * (print, blackhole: rows written after the last checkpoint are written again after a
     * restore).
     */
    int (*prepare_commit)(SinkWriter *writer, int64_t checkpoint_id, const ByteWriter *out,
                          Diag *diag);
    int (*commit)(SinkWriter *writer, int64_t checkpoint_id, Diag *diag);
    int (*restore_pending)(SinkWriter *writer, const ByteReader *in, Diag *diag);
    /*
     * At-least-once, for checkpoints: at a barrier, makes everything written so far
     * durable (a Kafka producer's queue delivered) before the checkpoint counts the sink,
     * so a restore loses nothing. NULL: nothing is buffered beyond the write call.
     */
    int (*flush)(SinkWriter *writer, Diag *diag);
    /* SHOW JOB METRICS: appends the writer's own lines ("%-4s   text\n" with "" as the
       first argument, as the job's other lines; a Kafka sink's transactions). May be NULL. */
    void (*format_metrics)(const SinkWriter *writer, StrBuf *out);
} SinkWriterVtable;

struct SinkWriter {
    const SinkWriterVtable *vtable;
    const SinkSpec *spec;
    uint64_t rows_written;
    /* set at creation when this writer cannot take part in checkpoints, saying why (a
       filesystem sink writing one file); a job with checkpoints refuses it up front */
    const char *checkpoint_refusal;
    void *impl;
};

/* The kinds of rows a source produces (its changelog mode). */
typedef enum SourceChangelog {
    SOURCE_CHANGELOG_INSERT_ONLY = 0, /* +I only (files, datagen, plain kafka) */
    SOURCE_CHANGELOG_ALL,             /* +I -U +U -D (debezium-json, canal-json) */
    SOURCE_CHANGELOG_UPSERT,          /* +U and -D by primary key, no -U (upsert-kafka):
                                         the planner adds ChangelogNormalize */
} SourceChangelog;

/* What a sink accepts. */
typedef enum SinkChangelog {
    SINK_CHANGELOG_ALL = 0,     /* every row kind (print, blackhole) */
    SINK_CHANGELOG_INSERT_ONLY, /* +I only (filesystem, kafka): updating results are rejected */
    SINK_CHANGELOG_UPSERT,      /* keyed by the primary key (upsert-kafka) */
} SinkChangelog;

struct LookupSpec;     /* lookup.h */
struct LookupFunction; /* lookup.h */

typedef struct Connector {
    const char *name;
    const ConnectorOption *options;
    size_t option_count;
    /* Connector-specific checks beyond known/required keys (values, types). May be NULL. */
    int (*validate)(const CatalogTable *table, Diag *diag);
    /* True when a scan of the table ends by itself. */
    bool (*is_bounded)(const CatalogTable *table);
    /* Estimated row count for the cost model (-1 unknown). May be NULL. */
    double (*estimate_rows)(const CatalogTable *table);
    /* NULL when the connector cannot be a source. */
    int (*create_source)(const SourceSpec *spec, SourceReader **reader, Diag *diag);
    /* NULL when the connector cannot be a sink. */
    int (*create_sink)(const SinkSpec *spec, SinkWriter **writer, Diag *diag);
    /* NULL when the table cannot be looked up by key (lookup.h). */
    int (*create_lookup)(const struct LookupSpec *spec, struct LookupFunction **function,
                         Diag *diag);
    /* Row kinds the table produces as a source (depends on its format). May be NULL:
       insert-only. */
    SourceChangelog (*source_changelog)(const CatalogTable *table);
    /* Row kinds the table accepts as a sink (depends on its format: a changelog
       format such as debezium-json takes every kind). NULL: every kind. */
    SinkChangelog (*sink_changelog)(const CatalogTable *table);
    /* Metadata keys a sink of the connector writes (persisted METADATA columns of a sink
       table get the query's values; other keys are rejected when the INSERT is planned).
       NULL-terminated; NULL: none. */
    const char *const *sink_metadata_keys;
    /* Suggestion shown when an updating result is written to an insert-only sink
       (e.g. "use the 'upsert-kafka' connector"). May be NULL. */
    const char *sink_update_hint;
    /* True when the source generates the table's watermark itself, one per split
       (Flink's SupportsWatermarkPushDown): the planner then folds the
       WatermarkAssigner into the scan (rules/push_watermark.c). */
    bool supports_watermark_push_down;
} Connector;

/* The connector registered under `name` (case-sensitive, as Flink), or NULL. */
const Connector *connector_find(const char *name);
/* True when a sink of `connector` writes metadata key `key`. */
bool connector_sink_writes_metadata(const Connector *connector, const char *key);
/* Row kinds `table` of `connector` accepts as a sink. */
SinkChangelog connector_sink_changelog(const Connector *connector, const CatalogTable *table);
/* NULL-terminated list of all connector names. */
const char *const *connector_names(void);
/*
 * Validates the table's WITH options: 'connector' present and known (else an
 * error listing the known connectors, with a suggestion), every required
 * option present, no unknown option (error with a "did you mean" and the list
 * of valid options), then the connector's own validate.
 * Returns JOINERY_OK or JOINERY_ERROR_VALIDATE.
 */
int connector_validate_table(const CatalogTable *table, Diag *diag);

/*
 * Built-in connectors, each defined in engine/connector/<name>.c and listed
 * by the registry (registry.c).
 */
extern const Connector connector_datagen;
extern const Connector connector_filesystem;
extern const Connector connector_jdbc;  /* jdbc_config.c (PostgreSQL, MySQL / MariaDB) */
extern const Connector connector_redis; /* redis_config.c (hiredis) */
extern const Connector connector_nexmark;
extern const Connector connector_print;
extern const Connector connector_blackhole;

/*
 * True when option key `key` matches the ConnectorOption key `pattern`:
 * '#' matches one non-empty segment without '.', a trailing '*' matches any
 * non-empty suffix, other characters match themselves.
 */
bool connector_option_matches(const char *pattern, const char *key);

/* Option values shared by connectors: an integer (BIGINT text, such as
   "-12"), or 'true' / 'false' in any case. False when the text is not one. */
bool connector_parse_int64(const char *text, int64_t *result);
bool connector_parse_bool(const char *text, bool *result);

#endif
