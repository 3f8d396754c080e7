/*
 * upsert_kafka.c - Flink's 'upsert-kafka' connector: a (compacted) topic
 * read and written as a changelog keyed by the table's PRIMARY KEY.
 *
 * Source: every record with a value is +U of its key (the planner adds
 * ChangelogNormalize to turn that into a proper changelog), a tombstone
 * (null value) is -D of its key; reading starts at the earliest offset
 * unless scan.startup.mode says otherwise. Sink: +I and +U write key and
 * value, -D writes a tombstone, -U is dropped (the +U that follows
 * overwrites the key). 'key.format' and 'value.format' are required; the
 * key fields are the primary key's columns.
 *
 * Everything but the option list lives in kafka_config.c, kafka_source.c
 * and kafka_sink.c (kafka_internal.h).
 */
#include "engine/connector/kafka_internal.h"

static int upsert_kafka_validate(const CatalogTable *table, Diag *diag)
{
    return kafka_validate_table(table, true, diag);
}

static SourceChangelog upsert_kafka_source_changelog(const CatalogTable *table)
{
    return kafka_table_source_changelog(table, true);
}

static int upsert_kafka_source(const SourceSpec *spec, SourceReader **reader, Diag *diag)
{
    return kafka_create_source(spec, true, reader, diag);
}

static int upsert_kafka_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag)
{
    return kafka_create_sink(spec, true, writer, diag);
}

static const ConnectorOption UPSERT_KAFKA_OPTIONS[] = {
    {"topic", false, "topic name (a ';' list can be read)"},
    {"topic-pattern", false, "regular expression of the topics to read"},
    {"properties.bootstrap.servers", true, "Kafka brokers, host:port[,host:port...]"},
    {"properties.group.id", false, "consumer group (committing positions)"},
    {"properties.*", false, "librdkafka client properties"},
    {"key.format", true, "key format: json, csv, raw"},
    {"value.format", true, "value format: json, csv, raw"},
    {"key.fields-prefix", false, "prefix of the key columns' names"},
    {"value.fields-include", false, "ALL or EXCEPT_KEY"},
    {"scan.startup.mode", false, "default earliest-offset"},
    {"scan.startup.timestamp-millis", false, "start timestamp (timestamp mode)"},
    {"scan.startup.specific-offsets", false, "'partition:0,offset:42;partition:1,offset:300'"},
    {"scan.bounded.mode", false, "latest-offset, group-offsets, timestamp, specific-offsets"},
    {"scan.bounded.timestamp-millis", false, "end timestamp (timestamp bounded mode)"},
    {"scan.bounded.specific-offsets", false, "end offsets per partition"},
    {"scan.parallelism", false, "accepted"},
    {"sink.partitioner", false, "default, fixed or round-robin"},
    {"sink.buffer-flush.max-rows", false, "accepted (the producer batches by itself)"},
    {"sink.buffer-flush.interval", false, "accepted (the producer batches by itself)"},
    {"sink.delivery-guarantee", false, "none or at-least-once"},
    {"sink.parallelism", false, "accepted"},
    {"key.json.*", false, "key json format options"},
    {"key.csv.*", false, "key csv format options"},
    {"key.raw.*", false, "key raw format options"},
    {"value.json.*", false, "value json format options"},
    {"value.csv.*", false, "value csv format options"},
    {"value.raw.*", false, "value raw format options"},
};

static SinkChangelog upsert_kafka_sink_changelog(const CatalogTable *table)
{
    (void)table;
    return SINK_CHANGELOG_UPSERT;
}

const Connector connector_upsert_kafka = {
    .name = "upsert-kafka",
    .options = UPSERT_KAFKA_OPTIONS,
    .option_count = sizeof UPSERT_KAFKA_OPTIONS / sizeof UPSERT_KAFKA_OPTIONS[0],
    .validate = upsert_kafka_validate,
    .is_bounded = kafka_table_is_bounded,
    .estimate_rows = NULL,
    .create_source = upsert_kafka_source,
    .create_sink = upsert_kafka_sink,
    .source_changelog = upsert_kafka_source_changelog,
    .sink_changelog = upsert_kafka_sink_changelog,
    .sink_metadata_keys = KAFKA_SINK_METADATA_KEYS,
    .sink_update_hint = NULL,
    .supports_watermark_push_down = true,
};
