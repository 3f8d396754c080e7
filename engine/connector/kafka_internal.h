/*
 * kafka_internal.h - what kafka.c shares with upsert_kafka.c and the unit
 * tests (tests/unit/check_kafka.c): option parsing and the source and sink
 * entry points, parameterized by the table's flavour (plain 'kafka' or
 * 'upsert-kafka'). Not for other modules: they use the Connector entries.
 */
#ifndef JOINERY_CONNECTOR_KAFKA_INTERNAL_H
#define JOINERY_CONNECTOR_KAFKA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/connector/connector.h"

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

/* The connectors themselves (kafka.c, upsert_kafka.c), listed by registry.c. */
extern const Connector connector_kafka;
extern const Connector connector_upsert_kafka;

/* Metadata keys a kafka / upsert-kafka sink writes into its records (Flink: headers, timestamp). */
extern const char *const KAFKA_SINK_METADATA_KEYS[];

#endif
