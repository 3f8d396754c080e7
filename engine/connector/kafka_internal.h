/*
 * kafka_internal.h - what the 'kafka' connector (kafka_config.c,
 * kafka_source.c, kafka_sink.c) shares with upsert_kafka.c, registry.c and
 * the unit tests (tests/unit/check_kafka.c): option parsing and the source
 * and sink entry points, parameterized by the table's flavour (plain 'kafka'
 * or 'upsert-kafka'); then, in the second part, what the three files share
 * among themselves (layout, scan options, client configuration). Not for
 * other modules: they use the Connector entries. Included only from
 * engine/connector/ (and the kafka unit tests).
 */
#ifndef JOINERY_CONNECTOR_KAFKA_INTERNAL_H
#define JOINERY_CONNECTOR_KAFKA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "engine/base/arena.h"
#include "engine/base/strbuf.h"
#include "engine/connector/connector.h"
#include "engine/format/format.h"

/* scan.startup.mode */
typedef enum KafkaStartupMode {
    KAFKA_STARTUP_GROUP_OFFSETS = 0, /* Flink's default */
    KAFKA_STARTUP_EARLIEST,
    KAFKA_STARTUP_LATEST,
    KAFKA_STARTUP_TIMESTAMP,
    KAFKA_STARTUP_SPECIFIC_OFFSETS,
} KafkaStartupMode;

/* scan.bounded.mode */
typedef enum KafkaBoundedMode {
    KAFKA_BOUNDED_UNBOUNDED = 0, /* default: the source never ends */
    KAFKA_BOUNDED_LATEST,
    KAFKA_BOUNDED_GROUP_OFFSETS,
    KAFKA_BOUNDED_TIMESTAMP,
    KAFKA_BOUNDED_SPECIFIC_OFFSETS,
} KafkaBoundedMode;

/* sink.partitioner */
typedef enum KafkaPartitioner {
    KAFKA_PARTITIONER_DEFAULT =
        0,                   /* librdkafka's partitioner (by key hash, 'properties.partitioner') */
    KAFKA_PARTITIONER_FIXED, /* each sink subtask writes one partition */
    KAFKA_PARTITIONER_ROUND_ROBIN, /* partitions in turn */
} KafkaPartitioner;

enum { KAFKA_MAX_SPECIFIC_OFFSETS = 1024 };

/* One 'partition:P,offset:O' entry of scan.startup/bounded.specific-offsets. */
typedef struct KafkaPartitionOffset {
    int32_t partition;
    int64_t offset;
} KafkaPartitionOffset;

/* Parses a scan.startup.mode value; false when unknown. */
bool kafka_startup_mode_from_name(const char *name, KafkaStartupMode *mode);
/* Parses a scan.bounded.mode value ('unbounded' too); false when unknown. */
bool kafka_bounded_mode_from_name(const char *name, KafkaBoundedMode *mode);
/* Parses a sink.partitioner value; false when unknown (class names are not supported). */
bool kafka_partitioner_from_name(const char *name, KafkaPartitioner *partitioner);
/*
 * Parses `text` of option `key` in Flink's form
 * 'partition:0,offset:42;partition:1,offset:300' into at most `capacity`
 * entries. Returns JOINERY_OK or JOINERY_ERROR_VALIDATE with Flink's message.
 */
int kafka_parse_specific_offsets(const char *key, const char *text, KafkaPartitionOffset *offsets,
                                 size_t capacity, size_t *count, Diag *diag);
/*
 * The reader (0..readers-1) that reads partition `partition` of `topic`,
 * as Flink's KafkaSourceEnumerator assigns splits: start index from the
 * topic's Java hashCode, then partitions round-robin.
 */
int kafka_split_owner(const char *topic, int32_t partition, int readers);

/* Validation, source and sink shared by 'kafka' (upsert false) and 'upsert-kafka'. */
int kafka_validate_table(const CatalogTable *table, bool upsert, Diag *diag);
bool kafka_table_is_bounded(const CatalogTable *table);
SourceChangelog kafka_table_source_changelog(const CatalogTable *table, bool upsert);
int kafka_create_source(const SourceSpec *spec, bool upsert, SourceReader **reader, Diag *diag);
int kafka_create_sink(const SinkSpec *spec, bool upsert, SinkWriter **writer, Diag *diag);

/* 'sink.delivery-guarantee' (or the deprecated 'sink.semantic'); the numbers are the order
   of Flink's DeliveryGuarantee names. */
typedef enum KafkaDeliveryGuarantee {
    KAFKA_DELIVERY_NONE = 0,
    KAFKA_DELIVERY_AT_LEAST_ONCE = 1, /* the default */
    KAFKA_DELIVERY_EXACTLY_ONCE = 2,
} KafkaDeliveryGuarantee;

/* The table's delivery guarantee; an unknown value is JOINERY_ERROR_VALIDATE with Flink's
   message. */
int kafka_read_delivery_guarantee(const CatalogTable *table, KafkaDeliveryGuarantee *result,
                                  Diag *diag);

/* Transactions of an exactly-once Kafka sink writer (kafka_sink.c), for tests and metrics;
   all zero for another writer. */
typedef struct KafkaTransactionCounts {
    uint64_t begun;
    uint64_t committed;
    uint64_t aborted;
    int64_t pending_checkpoint;  /* the checkpoint whose barrier closed the open transaction,
                                    waiting for its completion; 0: none */
    uint64_t held_records;       /* records after that barrier, held until the commit */
    uint64_t kept_records;       /* records of the open transaction, kept for a restore */
    int64_t restored_checkpoint; /* the restored checkpoint's pending transaction (0: none) */
    int64_t restored_marker;     /* the commit marker found then (-1: none of this lineage) */
    uint64_t resent_records;     /* its records sent again (it was not committed) */
} KafkaTransactionCounts;
void kafka_sink_transaction_counts(const SinkWriter *writer, KafkaTransactionCounts *counts);

/*
 * kafka_sink_recovery.c: the exactly-once sink's kept records and commit marker (see
 * there). kafka_kept_append encodes one record onto `kept` (0, or -1 on no memory: `kept`
 * unchanged); kafka_kept_next decodes the record at *offset of bytes[0..length): 1 (offset
 * advanced, key/value point into bytes, headers new or NULL: the caller's), 0 at the end,
 * -1 when the bytes are malformed or memory ran out.
 */
typedef struct KafkaKeptRecord {
    int32_t partition;
    int64_t timestamp;
    const char *key; /* NULL: none */
    size_t key_length;
    const char *value; /* NULL: a null value */
    size_t value_length;
    rd_kafka_headers_t *headers;
} KafkaKeptRecord;
int kafka_kept_append(StrBuf *kept, int32_t partition, int64_t timestamp,
                      const rd_kafka_headers_t *headers, const void *key, size_t key_length,
                      const void *value, size_t value_length);
int kafka_kept_next(const char *bytes, size_t length, size_t *offset, KafkaKeptRecord *record);
enum { KAFKA_MARKER_METADATA_SIZE = 32 };
/* "<prefix>-joinery-commits" (heap; NULL on no memory). */
char *kafka_marker_group(const char *prefix);
/* A new lineage: random, never 0. */
uint64_t kafka_marker_new_lineage(void);
/* The marker's metadata for `lineage`: "joinery <16 hex digits>". */
void kafka_marker_metadata(uint64_t lineage, char out[KAFKA_MARKER_METADATA_SIZE]);
/*
 * The checkpoint id group `group` committed on `topic` partition 0 with the metadata of
 * `lineage`, or -1 in *checkpoint when it committed none (or another lineage's). A
 * consumer made from the table's properties asks (retried up to KAFKA_START_DEADLINE_MS,
 * watching `cancel`); JOINERY_ERROR_RUNTIME (or JOINERY_CANCELLED) with `diag` when it
 * cannot be read.
 */
int kafka_marker_read(const CatalogTable *table, const char *group, const char *topic,
                      uint64_t lineage, volatile int *cancel, int64_t *checkpoint, Diag *diag);

/* The connectors themselves (kafka_config.c, upsert_kafka.c), listed by registry.c. */
extern const Connector connector_kafka;
extern const Connector connector_upsert_kafka;

/* Metadata keys a kafka / upsert-kafka sink writes into its records (Flink: headers, timestamp). */
extern const char *const KAFKA_SINK_METADATA_KEYS[];

/* ------------------------------------------------------------------------
 * Shared by the three files of the 'kafka' connector: kafka_config.c
 * (options, layout, client configuration, validation), kafka_source.c and
 * kafka_sink.c.
 */

enum {
    KAFKA_MAX_KEY_FIELDS = 64,
    KAFKA_METADATA_TIMEOUT_MS = 5000,
    KAFKA_START_DEADLINE_MS = 60000, /* metadata and offset look-ups at start, retried */
    KAFKA_WAIT_STEP_MS = 200, /* one attempt of a retried look-up: Ctrl-C is seen this soon */
};

/*
 * How long a reader waits at start for the cluster's metadata: the table's
 * 'properties.default.api.timeout.ms' (the Java client's bound on such
 * calls, which Flink's source honours) when set to a positive number, else
 * KAFKA_START_DEADLINE_MS.
 */
int64_t kafka_start_deadline_millis(const CatalogTable *table);

/* Which record metadata a column reads (METADATA FROM 'key'). */
typedef enum KafkaMetadata {
    KAFKA_METADATA_NONE = 0, /* a physical column */
    KAFKA_METADATA_OFFSET,
    KAFKA_METADATA_PARTITION,
    KAFKA_METADATA_TIMESTAMP,
    KAFKA_METADATA_TIMESTAMP_TYPE,
    KAFKA_METADATA_TOPIC,
    KAFKA_METADATA_LEADER_EPOCH,
    KAFKA_METADATA_HEADERS,
} KafkaMetadata;

/* The metadata a 'METADATA FROM' key names; KAFKA_METADATA_NONE when none. */
KafkaMetadata kafka_metadata_from_key(const char *key);

/* How a table's columns map onto the Kafka record's key and value. */
typedef struct KafkaLayout {
    bool upsert;
    FormatKind value_kind;
    FormatOptions value_options;
    bool has_key;
    FormatKind key_kind;
    FormatOptions key_options;
    bool except_key;        /* value.fields-include = EXCEPT_KEY */
    const char *key_prefix; /* key.fields-prefix ("" when none) */
    uint32_t key_count;
    int key_columns[KAFKA_MAX_KEY_FIELDS]; /* table column of each key field, key order */
} KafkaLayout;

/* "kafka" or "upsert-kafka", for messages. */
const char *kafka_connector_name(bool upsert);
/* Reads formats, key fields, key prefix and value.fields-include; errors as at CREATE TABLE. */
int kafka_read_layout(const CatalogTable *table, bool upsert, KafkaLayout *layout, Diag *diag);
/* Names and types of the key fields (names without the prefix); arrays of key_count. */
void kafka_layout_key_fields(const KafkaLayout *layout, const CatalogTable *table,
                             const char **names, DataType *types);
/* Table columns of the value fields, in table order; returns their count. */
uint32_t kafka_layout_value_columns(const KafkaLayout *layout, const CatalogTable *table,
                                    int *columns);

/* The parsed scan options of a source table. */
typedef struct KafkaScanOptions {
    KafkaStartupMode startup;
    int64_t startup_millis;
    KafkaPartitionOffset startup_offsets[KAFKA_MAX_SPECIFIC_OFFSETS];
    size_t startup_offset_count;
    KafkaBoundedMode bounded;
    int64_t bounded_millis;
    KafkaPartitionOffset bounded_offsets[KAFKA_MAX_SPECIFIC_OFFSETS];
    size_t bounded_offset_count;
} KafkaScanOptions;

/*
 * Reads the scan.* options. The group id a group-offsets mode needs is
 * checked only `for_source`: a table used as a sink alone needs none.
 */
int kafka_read_scan_options(const CatalogTable *table, bool upsert, bool for_source,
                            KafkaScanOptions *scan, Diag *diag);

/*
 * A librdkafka configuration from the table's 'properties.*' (bootstrap
 * servers included), logging discarded. `consumer` picks a few defaults.
 */
int kafka_make_conf(const CatalogTable *table, bool consumer, rd_kafka_conf_t **result, Diag *diag);
/* Sets one client property; the error names `option_key` and hides secret values. */
int kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value,
                   const char *option_key, Diag *diag);
/*
 * Translates 'properties.sasl.jaas.config' (Kafka's JAAS syntax, value) into
 * librdkafka's sasl.username and sasl.password on conf (kafka_jaas.c: the
 * PLAIN and SCRAM login modules, checked against the table's
 * 'properties.sasl.mechanism'). Errors never quote the value.
 */
int kafka_conf_set_jaas(rd_kafka_conf_t *conf, const CatalogTable *table, const char *value,
                        Diag *diag);
/* An integer property of the configuration (librdkafka's default when unset). */
int64_t kafka_conf_get_int(const rd_kafka_conf_t *conf, const char *name, int64_t fallback);
/* Topics of a ';' list, trimmed, copied into `arena`; count returned. */
size_t kafka_split_topics(const char *list, Arena *arena, char **topics, size_t capacity);
/* How many non-blank topics a ';' list names. */
int kafka_count_topics(const char *list);
/* Monotonic clock for start-up deadlines. */
int64_t kafka_monotonic_millis(void);
/*
 * The pause between two retries of a look-up at start (200 ms), in steps that
 * watch `cancel` (a SourceSpec/SinkSpec cancel_requested, may be NULL): true
 * when the user cancelled, so the retry loop gives up at once.
 */
bool kafka_retry_pause(volatile int *cancel);
/* The status a start look-up that gave up fails with: JOINERY_CANCELLED after a cancel,
   else JOINERY_ERROR_RUNTIME. */
int kafka_start_failure(volatile int *cancel);

#endif
