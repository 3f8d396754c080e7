/*
 * kafka.c - Flink's 'kafka' connector over librdkafka, source and sink,
 * and the machinery 'upsert-kafka' (upsert_kafka.c) shares with it.
 *
 * Table layout: the value is decoded with 'format' or 'value.format' (json,
 * csv, raw, debezium-json, canal-json) into the value fields: every
 * physical column, or those not in the key when 'value.fields-include' =
 * 'EXCEPT_KEY'. The key, when there is one ('key.format' with 'key.fields'
 * for kafka, the PRIMARY KEY for upsert-kafka), is decoded into the key
 * fields (column names without 'key.fields-prefix'). Metadata columns
 * (offset, partition, timestamp, timestamp-type, topic, leader-epoch,
 * headers as MAP<STRING, BYTES>) come from the record; a sink writes its
 * persisted (not VIRTUAL) 'headers' and 'timestamp' columns into the records.
 *
 * Source: the partitions of 'topic' (a ';' list) or 'topic-pattern' are
 * found from the cluster's metadata when the reader is created and split
 * across the SourceSpec's readers as Flink's enumerator does
 * (kafka_split_owner); each reader assign()s its partitions - no group
 * rebalance - at start offsets from scan.startup.mode. With
 * scan.bounded.mode the end offset of every partition is captured at
 * start; a partition is finished when its position reaches it and the
 * reader ends when all are. poll never blocks: it takes what the consumer
 * queue holds (rd_kafka_consume_batch_queue with timeout 0) and returns
 * SOURCE_POLL_IDLE when nothing is ready. Messages of a batch are decoded
 * straight into rows in the caller's arena; a message whose change event
 * gives more rows than the batch holds keeps the rest pending for the next
 * poll. The reader keeps each partition's position (next offset) and
 * commits them to 'properties.group.id' on close once the job stopped cleanly.
 * A bad record (undecodable, or larger than 'properties.message.max.bytes')
 * fails the job naming topic, partition and offset, or is skipped and
 * counted in skipped_rows with the format's ignore-parse-errors.
 *
 * Sink: rows are encoded (value, and key from 'key.fields' or the primary
 * key) and handed to an idempotent librdkafka producer (so retried produce
 * requests never duplicate); upsert-kafka writes a tombstone (null value)
 * for -D and drops -U. Delivery reports are served on every write; the
 * first failed delivery fails the job, and finish flushes with a bounded
 * timeout (message.timeout.ms plus a margin) and fails if anything is left
 * undelivered. sink.partitioner: default (librdkafka's, by key;
 * 'properties.partitioner' = 'murmur2_random' matches Java producers),
 * fixed (partition 0: one sink subtask), round-robin.
 *
 * Secrets: values of option keys catalog_option_is_secret() flags are
 * never printed. Only 'properties.*' reach librdkafka; a handful of
 * Java-client-only keys (serializers, max.poll.records) are ignored.
 */
#include "engine/connector/kafka_internal.h"

#include <ctype.h>
#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/map.h"
#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/format/format.h"

enum {
    KAFKA_MAX_KEY_FIELDS = 64,
    KAFKA_CONSUME_BATCH = 1024, /* messages taken from the queue at once */
    KAFKA_METADATA_TIMEOUT_MS = 5000,
    KAFKA_START_DEADLINE_MS = 60000, /* metadata and offset look-ups at start, retried */
    KAFKA_IDLE_POLL_MS = 5,
    KAFKA_FLUSH_MARGIN_MS = 10000,
};

/* ================================================================ options */

bool kafka_startup_mode_from_name(const char *name, KafkaStartupMode *mode)
{
    static const struct {
        const char *name;
        KafkaStartupMode mode;
    } MODES[] = {{"earliest-offset", KAFKA_STARTUP_EARLIEST},
                 {"latest-offset", KAFKA_STARTUP_LATEST},
                 {"group-offsets", KAFKA_STARTUP_GROUP_OFFSETS},
                 {"timestamp", KAFKA_STARTUP_TIMESTAMP},
                 {"specific-offsets", KAFKA_STARTUP_SPECIFIC_OFFSETS}};
    for (size_t i = 0; name && i < sizeof MODES / sizeof MODES[0]; i++)
        if (strcmp(MODES[i].name, name) == 0) {
            *mode = MODES[i].mode;
            return true;
        }
    return false;
}

bool kafka_bounded_mode_from_name(const char *name, KafkaBoundedMode *mode)
{
    static const struct {
        const char *name;
        KafkaBoundedMode mode;
    } MODES[] = {{"unbounded", KAFKA_BOUNDED_UNBOUNDED},
                 {"latest-offset", KAFKA_BOUNDED_LATEST},
                 {"group-offsets", KAFKA_BOUNDED_GROUP_OFFSETS},
                 {"timestamp", KAFKA_BOUNDED_TIMESTAMP},
                 {"specific-offsets", KAFKA_BOUNDED_SPECIFIC_OFFSETS}};
    for (size_t i = 0; name && i < sizeof MODES / sizeof MODES[0]; i++)
        if (strcmp(MODES[i].name, name) == 0) {
            *mode = MODES[i].mode;
            return true;
        }
    return false;
}

bool kafka_partitioner_from_name(const char *name, KafkaPartitioner *partitioner)
{
    if (!name)
        return false;
    if (strcmp(name, "default") == 0)
        *partitioner = KAFKA_PARTITIONER_DEFAULT;
    else if (strcmp(name, "fixed") == 0)
        *partitioner = KAFKA_PARTITIONER_FIXED;
    else if (strcmp(name, "round-robin") == 0)
        *partitioner = KAFKA_PARTITIONER_ROUND_ROBIN;
    else
        return false;
    return true;
}

/* Reads a decimal integer spanning [text, end) exactly; false otherwise. */
static bool parse_int64(const char *text, const char *end, int64_t *result)
{
    while (text < end && isspace((unsigned char)*text))
        text++;
    while (end > text && isspace((unsigned char)end[-1]))
        end--;
    if (text == end || end - text > 19)
        return false;
    char buffer[24];
    memcpy(buffer, text, (size_t)(end - text));
    buffer[end - text] = '\0';
    char *stop;
    errno = 0;
    long long value = strtoll(buffer, &stop, 10);
    if (errno != 0 || *stop != '\0' || !isdigit((unsigned char)buffer[buffer[0] == '-']))
        return false;
    *result = value;
    return true;
}

/* Matches "<name>:<integer>" in [text, end). */
static bool parse_labelled(const char *text, const char *end, const char *name, int64_t *value)
{
    while (text < end && isspace((unsigned char)*text))
        text++;
    size_t length = strlen(name);
    if ((size_t)(end - text) <= length || strncmp(text, name, length) != 0 || text[length] != ':')
        return false;
    return parse_int64(text + length + 1, end, value);
}

int kafka_parse_specific_offsets(const char *key, const char *text, KafkaPartitionOffset *offsets,
                                 size_t capacity, size_t *count, Diag *diag)
{
    *count = 0;
    const char *cursor = text;
    const char *end = text + strlen(text);
    while (cursor <= end) {
        const char *semicolon = memchr(cursor, ';', (size_t)(end - cursor));
        const char *stop = semicolon ? semicolon : end;
        const char *comma = memchr(cursor, ',', (size_t)(stop - cursor));
        int64_t partition, offset;
        if (!comma || !parse_labelled(cursor, comma, "partition", &partition) ||
            !parse_labelled(comma + 1, stop, "offset", &offset) || partition < 0 ||
            partition > INT32_MAX || offset < 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid properties '%s' should follow the format "
                              "'partition:0,offset:42;partition:1,offset:300', but is '%s'.",
                              key, text);
        if (*count == capacity)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Too many entries in '%s' (at most %zu)", key, capacity);
        offsets[*count].partition = (int32_t)partition;
        offsets[*count].offset = offset;
        (*count)++;
        if (!semicolon)
            break;
        cursor = semicolon + 1;
        if (cursor == end)
            break; /* a trailing ';' is accepted */
    }
    return JOINERY_OK;
}

int kafka_split_owner(const char *topic, int32_t partition, int readers)
{
    if (readers <= 1)
        return 0;
    /* Java's String.hashCode over UTF-16 code units, with int32 wrap-around */
    uint32_t hash = 0;
    const unsigned char *cursor = (const unsigned char *)topic;
    while (*cursor) {
        uint32_t code = *cursor++;
        int extra = code >= 0xF0 ? 3 : code >= 0xE0 ? 2 : code >= 0xC0 ? 1 : 0;
        if (extra)
            code &= 0x3Fu >> extra;
        for (int i = 0; i < extra && (*cursor & 0xC0) == 0x80; i++)
            code = (code << 6) | (*cursor++ & 0x3Fu);
        if (code >= 0x10000) {
            code -= 0x10000;
            hash = hash * 31u + (0xD800u + (code >> 10));
            hash = hash * 31u + (0xDC00u + (code & 0x3FFu));
        } else {
            hash = hash * 31u + code;
        }
    }
    uint32_t start = ((hash * 31u) & 0x7FFFFFFFu) % (uint32_t)readers;
    return (int)((start + (uint32_t)partition) % (uint32_t)readers);
}

/* ================================================================ layout */

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

static KafkaMetadata metadata_from_key(const char *key)
{
    static const struct {
        const char *key;
        KafkaMetadata kind;
    } KEYS[] = {
        {"offset", KAFKA_METADATA_OFFSET},       {"partition", KAFKA_METADATA_PARTITION},
        {"timestamp", KAFKA_METADATA_TIMESTAMP}, {"timestamp-type", KAFKA_METADATA_TIMESTAMP_TYPE},
        {"topic", KAFKA_METADATA_TOPIC},         {"leader-epoch", KAFKA_METADATA_LEADER_EPOCH},
        {"headers", KAFKA_METADATA_HEADERS}};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strcmp(KEYS[i].key, key) == 0)
            return KEYS[i].kind;
    return KAFKA_METADATA_NONE;
}

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

static const char *connector_name(bool upsert)
{
    return upsert ? "upsert-kafka" : "kafka";
}

static bool layout_is_key_column(const KafkaLayout *layout, int column)
{
    for (uint32_t i = 0; i < layout->key_count; i++)
        if (layout->key_columns[i] == column)
            return true;
    return false;
}

/* Adds table column `name` to the key fields. */
static int layout_add_key(KafkaLayout *layout, const CatalogTable *table, const char *name,
                          size_t length, const char *option, Diag *diag)
{
    char buffer[256];
    if (length == 0 || length >= sizeof buffer)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Invalid column list in '%s'", option);
    memcpy(buffer, name, length);
    buffer[length] = '\0';
    int column = catalog_table_column_index(table, buffer);
    if (column < 0 || table->columns[column].kind != CATALOG_COLUMN_PHYSICAL)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Could not find the field '%s' in the table schema for usage in the key "
                          "format. A key field must be a regular, physical column.",
                          buffer);
    if (layout->key_count == KAFKA_MAX_KEY_FIELDS)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Too many key fields (at most %d)",
                          KAFKA_MAX_KEY_FIELDS);
    layout->key_columns[layout->key_count++] = column;
    return JOINERY_OK;
}

static int layout_read_format(const CatalogTable *table, const char *option, const char *prefix,
                              FormatKind *kind, FormatOptions *options, Diag *diag)
{
    const char *name = catalog_table_option(table, option);
    if (!format_kind_from_name(name, kind))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Could not find any format factory for identifier '%s' ('%s'). "
                          "Supported formats: json, csv, raw, debezium-json, canal-json",
                          name, option);
    return format_options_from_table(table, prefix, *kind, options, diag);
}

static int kafka_read_layout(const CatalogTable *table, bool upsert, KafkaLayout *layout,
                             Diag *diag)
{
    memset(layout, 0, sizeof *layout);
    layout->upsert = upsert;
    const char *name = connector_name(upsert);
    const char *format = catalog_table_option(table, "format");
    const char *value_format = catalog_table_option(table, "value.format");
    if (format && value_format)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Options 'format' and 'value.format' of connector '%s' shouldn't be set "
                          "together.",
                          name);
    if (!format && !value_format)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Missing required option '%s' for connector '%s'.",
                          upsert ? "value.format" : "format", name);
    int status =
        layout_read_format(table, format ? "format" : "value.format", format ? "" : "value.",
                           &layout->value_kind, &layout->value_options, diag);
    if (status != JOINERY_OK)
        return status;
    const char *include = catalog_table_option(table, "value.fields-include");
    if (include && strcmp(include, "EXCEPT_KEY") == 0)
        layout->except_key = true;
    else if (include && strcmp(include, "ALL") != 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for 'value.fields-include'. Supported values are "
                          "[ALL, EXCEPT_KEY].",
                          include);
    const char *prefix = catalog_table_option(table, "key.fields-prefix");
    layout->key_prefix = prefix ? prefix : "";
    if (prefix && *prefix && !layout->except_key)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "A key prefix is not allowed when option 'value.fields-include' is set "
                          "to 'ALL'. Set it to 'EXCEPT_KEY' instead to avoid field overlaps.");
    const char *key_format = catalog_table_option(table, "key.format");
    const char *key_fields = catalog_table_option(table, "key.fields");
    if (upsert) {
        if (format_kind_is_changelog(layout->value_kind))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "'upsert-kafka' connector doesn't support '%s' as value format, "
                              "because '%s' is not in insert-only mode.",
                              format_kind_name(layout->value_kind),
                              format_kind_name(layout->value_kind));
        if (table->primary_key_count == 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "'upsert-kafka' tables require to define a PRIMARY KEY constraint. "
                              "The PRIMARY KEY specifies which columns should be read from or "
                              "write to the Kafka message key. The PRIMARY KEY also defines "
                              "records in the 'upsert-kafka' table should update or delete on "
                              "which keys.");
        if (!key_format)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Missing required option 'key.format' for connector 'upsert-kafka'.");
        for (size_t i = 0; i < table->primary_key_count; i++) {
            status = layout_add_key(layout, table, table->primary_key[i],
                                    strlen(table->primary_key[i]), "PRIMARY KEY", diag);
            if (status != JOINERY_OK)
                return status;
        }
    } else {
        if (key_format && !key_fields)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "A key format 'key.format' requires the declaration of one or more "
                              "of key fields using 'key.fields'.");
        if (key_fields && !key_format)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "The option 'key.fields' can only be declared if a key format is "
                              "defined using 'key.format'.");
        for (const char *cursor = key_fields; cursor && *cursor;) {
            size_t length = strcspn(cursor, ";");
            const char *field = cursor;
            while (length && isspace((unsigned char)*field))
                field++, length--;
            while (length && isspace((unsigned char)field[length - 1]))
                length--;
            status = layout_add_key(layout, table, field, length, "key.fields", diag);
            if (status != JOINERY_OK)
                return status;
            cursor += strcspn(cursor, ";");
            if (*cursor == ';')
                cursor++;
        }
    }
    if (key_format) {
        layout->has_key = true;
        status = layout_read_format(table, "key.format", "key.", &layout->key_kind,
                                    &layout->key_options, diag);
        if (status != JOINERY_OK)
            return status;
        if (format_kind_is_changelog(layout->key_kind))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Format '%s' cannot be a key format: it is not insert-only.",
                              format_kind_name(layout->key_kind));
        size_t prefix_length = strlen(layout->key_prefix);
        for (uint32_t i = 0; i < layout->key_count; i++) {
            const char *column = table->columns[layout->key_columns[i]].name;
            if (strncmp(column, layout->key_prefix, prefix_length) != 0)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "All fields in 'key.fields' must be prefixed with '%s' when "
                                  "option 'key.fields-prefix' is set but field '%s' is not "
                                  "prefixed.",
                                  layout->key_prefix, column);
        }
    }
    return JOINERY_OK;
}

/* Names and types of the key fields (names without the prefix); arrays of key_count. */
static void layout_key_fields(const KafkaLayout *layout, const CatalogTable *table,
                              const char **names, DataType *types)
{
    size_t prefix_length = strlen(layout->key_prefix);
    for (uint32_t i = 0; i < layout->key_count; i++) {
        const CatalogColumn *column = &table->columns[layout->key_columns[i]];
        names[i] = column->name + prefix_length;
        types[i] = column->type;
    }
}

/* Table columns of the value fields, in table order; returns their count. */
static uint32_t layout_value_columns(const KafkaLayout *layout, const CatalogTable *table,
                                     int *columns)
{
    uint32_t count = 0;
    for (size_t i = 0; i < table->column_count; i++) {
        if (table->columns[i].kind != CATALOG_COLUMN_PHYSICAL)
            continue;
        if (layout->except_key && layout_is_key_column(layout, (int)i))
            continue;
        columns[count++] = (int)i;
    }
    return count;
}

/* ================================================================ client configuration */

static bool property_is_java_only(const char *name)
{
    static const char *const JAVA_ONLY[] = {"key.deserializer",
                                            "value.deserializer",
                                            "key.serializer",
                                            "value.serializer",
                                            "max.poll.records",
                                            "default.api.timeout.ms",
                                            "partition.discovery.interval.ms",
                                            "client.dns.lookup",
                                            "flink.partition-discovery.interval-millis"};
    for (size_t i = 0; i < sizeof JAVA_ONLY / sizeof JAVA_ONLY[0]; i++)
        if (strcmp(JAVA_ONLY[i], name) == 0)
            return true;
    return false;
}

static void kafka_log_discard(const rd_kafka_t *handle, int level, const char *facility,
                              const char *message)
{
    (void)handle;
    (void)level;
    (void)facility;
    (void)message;
}

static int conf_set(rd_kafka_conf_t *conf, const char *name, const char *value,
                    const char *option_key, Diag *diag)
{
    char reason[512];
    rd_kafka_conf_res_t result = rd_kafka_conf_set(conf, name, value, reason, sizeof reason);
    if (result == RD_KAFKA_CONF_OK)
        return JOINERY_OK;
    bool secret = catalog_option_is_secret(option_key);
    if (result == RD_KAFKA_CONF_UNKNOWN)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Unsupported Kafka client property '%s' (option '%s'): joinery's "
                          "Kafka client is librdkafka, see its CONFIGURATION.md for the "
                          "property names",
                          name, option_key);
    return diag_error(diag, JOINERY_ERROR_VALIDATE, "Invalid value %s%s%s for option '%s': %s",
                      secret ? "" : "'", secret ? "******" : value, secret ? "" : "'", option_key,
                      secret ? "invalid value" : reason);
}

/*
 * A librdkafka configuration from the table's 'properties.*' (bootstrap
 * servers included), logging discarded. `consumer` picks a few defaults.
 */
static int kafka_make_conf(const CatalogTable *table, bool consumer, rd_kafka_conf_t **result,
                           Diag *diag)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (!conf)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    rd_kafka_conf_set_log_cb(conf, kafka_log_discard);
    int status = JOINERY_OK;
    if (consumer) {
        status = conf_set(conf, "enable.auto.commit", "false", "enable.auto.commit", diag);
        if (status == JOINERY_OK)
            status = conf_set(conf, "enable.auto.offset.store", "false", "enable.auto.offset.store",
                              diag);
        if (status == JOINERY_OK)
            status = conf_set(conf, "enable.partition.eof", "true", "enable.partition.eof", diag);
    } else {
        status = conf_set(conf, "enable.idempotence", "true", "enable.idempotence", diag);
    }
    for (size_t i = 0; i < table->option_count && status == JOINERY_OK; i++) {
        const char *key = table->options[i].key;
        const char *value = table->options[i].value;
        if (strncmp(key, "properties.", 11) != 0)
            continue;
        const char *name = key + 11;
        if (property_is_java_only(name))
            continue;
        if (strcmp(name, "auto.offset.reset") == 0 && strcmp(value, "none") == 0)
            value = "error"; /* Java's spelling */
        if (!consumer && (strcmp(name, "group.id") == 0 || strcmp(name, "auto.offset.reset") == 0))
            continue;
        status = conf_set(conf, name, value, key, diag);
    }
    if (status != JOINERY_OK) {
        rd_kafka_conf_destroy(conf);
        return status;
    }
    *result = conf;
    return JOINERY_OK;
}

/* An integer property of the configuration (librdkafka's default when unset). */
static int64_t conf_get_int(const rd_kafka_conf_t *conf, const char *name, int64_t fallback)
{
    char value[64];
    size_t size = sizeof value;
    if (rd_kafka_conf_get(conf, name, value, &size) != RD_KAFKA_CONF_OK)
        return fallback;
    char *end;
    long long number = strtoll(value, &end, 10);
    return end != value ? number : fallback;
}

/* ================================================================ validation */

/* Topics of a ';' list, trimmed, copied into `arena`; count returned. */
static size_t split_topics(const char *list, Arena *arena, char **topics, size_t capacity)
{
    size_t count = 0;
    for (const char *cursor = list; cursor && *cursor && count < capacity;) {
        size_t length = strcspn(cursor, ";");
        const char *start = cursor;
        size_t trimmed = length;
        while (trimmed && isspace((unsigned char)*start))
            start++, trimmed--;
        while (trimmed && isspace((unsigned char)start[trimmed - 1]))
            trimmed--;
        if (trimmed)
            topics[count++] = arena_strndup(arena, start, trimmed);
        cursor += length;
        if (*cursor == ';')
            cursor++;
    }
    return count;
}

static int count_topics(const char *list)
{
    int count = 0;
    for (const char *cursor = list; cursor && *cursor;) {
        size_t length = strcspn(cursor, ";");
        for (size_t i = 0; i < length; i++)
            if (!isspace((unsigned char)cursor[i])) {
                count++;
                break;
            }
        cursor += length;
        if (*cursor == ';')
            cursor++;
    }
    return count;
}

static int read_millis_option(const CatalogTable *table, const char *key, int64_t *millis,
                              Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    if (!text)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "'%s' is required in '%s' mode but missing.", key,
                          strstr(key, "startup") ? "timestamp startup" : "timestamp bounded");
    if (!parse_int64(text, text + strlen(text), millis) || *millis < 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value '%s' for option '%s' (expected milliseconds since the "
                          "epoch)",
                          text, key);
    return JOINERY_OK;
}

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
static int kafka_read_scan_options(const CatalogTable *table, bool upsert, bool for_source,
                                   KafkaScanOptions *scan, Diag *diag)
{
    memset(scan, 0, sizeof *scan);
    scan->startup = upsert ? KAFKA_STARTUP_EARLIEST : KAFKA_STARTUP_GROUP_OFFSETS;
    const char *startup = catalog_table_option(table, "scan.startup.mode");
    if (startup && !kafka_startup_mode_from_name(startup, &scan->startup))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'scan.startup.mode'. Supported values are "
                          "[earliest-offset, latest-offset, group-offsets, specific-offsets, "
                          "timestamp], but was: %s",
                          startup);
    const char *bounded = catalog_table_option(table, "scan.bounded.mode");
    if (bounded && !kafka_bounded_mode_from_name(bounded, &scan->bounded))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Invalid value for option 'scan.bounded.mode'. Supported values are "
                          "[latest-offset, group-offsets, specific-offsets, timestamp, "
                          "unbounded], but was: %s",
                          bounded);
    int status = JOINERY_OK;
    bool single_topic = !catalog_table_option(table, "topic-pattern") &&
                        count_topics(catalog_table_option(table, "topic")) == 1;
    if (scan->startup == KAFKA_STARTUP_TIMESTAMP)
        status =
            read_millis_option(table, "scan.startup.timestamp-millis", &scan->startup_millis, diag);
    if (status == JOINERY_OK && scan->bounded == KAFKA_BOUNDED_TIMESTAMP)
        status =
            read_millis_option(table, "scan.bounded.timestamp-millis", &scan->bounded_millis, diag);
    if (status == JOINERY_OK && scan->startup == KAFKA_STARTUP_SPECIFIC_OFFSETS) {
        const char *text = catalog_table_option(table, "scan.startup.specific-offsets");
        if (!text)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "'scan.startup.specific-offsets' is required in 'specific-offsets' "
                              "startup mode but missing.");
        if (!single_topic)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Currently Kafka source only supports specific offset for single "
                              "topic.");
        status = kafka_parse_specific_offsets("scan.startup.specific-offsets", text,
                                              scan->startup_offsets, KAFKA_MAX_SPECIFIC_OFFSETS,
                                              &scan->startup_offset_count, diag);
    }
    if (status == JOINERY_OK && scan->bounded == KAFKA_BOUNDED_SPECIFIC_OFFSETS) {
        const char *text = catalog_table_option(table, "scan.bounded.specific-offsets");
        if (!text)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "'scan.bounded.specific-offsets' is required in 'specific-offsets' "
                              "bounded mode but missing.");
        if (!single_topic)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Currently Kafka source only supports specific offset for single "
                              "topic.");
        status = kafka_parse_specific_offsets("scan.bounded.specific-offsets", text,
                                              scan->bounded_offsets, KAFKA_MAX_SPECIFIC_OFFSETS,
                                              &scan->bounded_offset_count, diag);
    }
    if (status != JOINERY_OK)
        return status;
    bool uses_group = scan->startup == KAFKA_STARTUP_GROUP_OFFSETS ||
                      scan->bounded == KAFKA_BOUNDED_GROUP_OFFSETS;
    if (for_source && uses_group && !catalog_table_option(table, "properties.group.id"))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "'properties.group.id' is required for 'group-offsets' %s mode (the "
                          "default scan.startup.mode of connector '%s'); set it, or set "
                          "'scan.startup.mode' to 'earliest-offset' or 'latest-offset'.",
                          scan->startup == KAFKA_STARTUP_GROUP_OFFSETS ? "startup" : "bounded",
                          connector_name(upsert));
    return JOINERY_OK;
}

static int validate_metadata_columns(const CatalogTable *table, bool upsert, Diag *diag)
{
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (column->kind != CATALOG_COLUMN_METADATA)
            continue;
        const char *key = column->metadata_key ? column->metadata_key : column->name;
        KafkaMetadata kind = metadata_from_key(key);
        if (kind == KAFKA_METADATA_NONE)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid metadata key '%s' in column '%s' of table '%s'. The %s "
                              "table supports the following metadata keys for reading: topic, "
                              "partition, headers, leader-epoch, offset, timestamp, "
                              "timestamp-type (format metadata such as 'value.source.timestamp' "
                              "is not supported yet)",
                              key, column->name, table->name, connector_name(upsert));
        if (kind == KAFKA_METADATA_HEADERS) {
            /* Flink: MAP<STRING, BYTES>, read and written as the record's headers */
            DataType type = column->type;
            char name[160];
            if (type.id != TYPE_MAP || !type_is_string(type.map_key.id) ||
                type.map_value.id != TYPE_VARBINARY ||
                type.map_value.precision != TYPE_STRING_LENGTH)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Invalid type for metadata column '%s' of table '%s': metadata "
                                  "key 'headers' is MAP<STRING, BYTES>, which cannot be read as %s",
                                  column->name, table->name, type_format(type, name, sizeof name));
            continue;
        }
        TypeId type = column->type.id;
        bool ok;
        switch (kind) {
        case KAFKA_METADATA_OFFSET:
            ok = type == TYPE_BIGINT || type == TYPE_DECIMAL;
            break;
        case KAFKA_METADATA_PARTITION:
        case KAFKA_METADATA_LEADER_EPOCH:
            ok = type == TYPE_INT || type == TYPE_BIGINT;
            break;
        case KAFKA_METADATA_TIMESTAMP:
            ok = type == TYPE_TIMESTAMP_LTZ || type == TYPE_TIMESTAMP;
            break;
        default:
            ok = type_is_string(type);
            break;
        }
        if (!ok) {
            static const char *const EXPECTED[] = {"",       "BIGINT", "INT", "TIMESTAMP_LTZ(3)",
                                                   "STRING", "STRING", "INT", ""};
            char name[64];
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid type for metadata column '%s' of table '%s': metadata key "
                              "'%s' is %s, which cannot be read as %s",
                              column->name, table->name, key, EXPECTED[kind],
                              type_format(column->type, name, sizeof name));
        }
    }
    return JOINERY_OK;
}

int kafka_validate_table(const CatalogTable *table, bool upsert, Diag *diag)
{
    const char *topic = catalog_table_option(table, "topic");
    const char *pattern = catalog_table_option(table, "topic-pattern");
    if (topic && pattern)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Option 'topic' and 'topic-pattern' shouldn't be set together.");
    if (!topic && !pattern)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Either 'topic' or 'topic-pattern' must be set for connector '%s'.",
                          connector_name(upsert));
    if (topic && count_topics(topic) == 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Option 'topic' must name a topic");
    if (pattern) {
        regex_t regex;
        if (regcomp(&regex, pattern, REG_EXTENDED | REG_NOSUB) != 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid regular expression '%s' in option 'topic-pattern'", pattern);
        regfree(&regex);
    }
    const char *servers = catalog_table_option(table, "properties.bootstrap.servers");
    if (!servers || strspn(servers, " \t,") == strlen(servers))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Missing required option 'properties.bootstrap.servers' for connector "
                          "'%s'.",
                          connector_name(upsert));
    KafkaLayout layout;
    int status = kafka_read_layout(table, upsert, &layout, diag);
    if (status != JOINERY_OK)
        return status;
    KafkaScanOptions *scan = malloc(sizeof *scan);
    if (!scan)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    status = kafka_read_scan_options(table, upsert, false, scan, diag);
    free(scan);
    if (status != JOINERY_OK)
        return status;
    const char *partitioner = catalog_table_option(table, "sink.partitioner");
    KafkaPartitioner ignored;
    if (partitioner && !kafka_partitioner_from_name(partitioner, &ignored))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Unsupported value '%s' for 'sink.partitioner'. Supported values are "
                          "[default, fixed, round-robin] (partitioner classes are not "
                          "supported).",
                          partitioner);
    const char *guarantee = catalog_table_option(table, "sink.delivery-guarantee");
    if (guarantee && strcmp(guarantee, "exactly-once") == 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "'sink.delivery-guarantee' = 'exactly-once' is not supported yet (the "
                          "sink is at-least-once, with an idempotent producer)");
    status = validate_metadata_columns(table, upsert, diag);
    if (status != JOINERY_OK)
        return status;
    /* every value field set must be one the format can carry */
    int columns[512];
    DataType types[512];
    if (table->column_count <= 512) {
        uint32_t count = layout_value_columns(&layout, table, columns);
        for (uint32_t i = 0; i < count; i++)
            types[i] = table->columns[columns[i]].type;
        status = format_check_fields(layout.value_kind, count, types, table->name, diag);
        if (status == JOINERY_OK && layout.has_key) {
            const char *names[KAFKA_MAX_KEY_FIELDS];
            layout_key_fields(&layout, table, names, types);
            status =
                format_check_fields(layout.key_kind, layout.key_count, types, table->name, diag);
        }
        if (status != JOINERY_OK)
            return status;
    }
    /* the client properties are checked offline against librdkafka's names and values */
    rd_kafka_conf_t *conf;
    status = kafka_make_conf(table, true, &conf, diag);
    if (status != JOINERY_OK)
        return status;
    rd_kafka_conf_destroy(conf);
    return JOINERY_OK;
}

bool kafka_table_is_bounded(const CatalogTable *table)
{
    KafkaBoundedMode mode = KAFKA_BOUNDED_UNBOUNDED;
    const char *bounded = catalog_table_option(table, "scan.bounded.mode");
    return bounded && kafka_bounded_mode_from_name(bounded, &mode) &&
           mode != KAFKA_BOUNDED_UNBOUNDED;
}

SourceChangelog kafka_table_source_changelog(const CatalogTable *table, bool upsert)
{
    if (upsert)
        return SOURCE_CHANGELOG_UPSERT;
    const char *format = catalog_table_option(table, "format");
    if (!format)
        format = catalog_table_option(table, "value.format");
    FormatKind kind;
    if (format_kind_from_name(format, &kind) && format_kind_is_changelog(kind))
        return SOURCE_CHANGELOG_ALL;
    return SOURCE_CHANGELOG_INSERT_ONLY;
}

/* ================================================================ source */

typedef struct KafkaPartitionState {
    const char *topic; /* the reader's copy */
    int32_t partition;
    int64_t start;    /* offset or librdkafka logical offset to assign */
    int64_t end;      /* bounded: first offset not to read; -1 unbounded */
    int64_t position; /* next offset to read; -1 before the first message */
    bool finished;
} KafkaPartitionState;

/* Where a produced field comes from. */
typedef struct KafkaFieldSource {
    int32_t value_index; /* value decoder field, -1 when not in the value */
    int32_t key_index;   /* key decoder field, -1 when not in the key */
    KafkaMetadata metadata;
} KafkaFieldSource;

typedef struct KafkaReader {
    SourceReader base;
    Arena arena; /* topic names, states */
    rd_kafka_t *consumer;
    rd_kafka_queue_t *queue;
    KafkaPartitionState *partitions;
    size_t partition_count;
    size_t finished_count;
    bool bounded;
    bool ended;
    bool has_group;
    bool upsert;
    const char *table_name;
    /* the batch taken from the queue and the message being emitted */
    rd_kafka_message_t *messages[KAFKA_CONSUME_BATCH];
    size_t message_count;
    size_t message_next;
    rd_kafka_message_t *current;
    uint32_t pending_next;
    uint32_t pending_count;
    bool current_tombstone;
    bool current_key_decoded;
    /* decoding */
    FormatDecoder *value_decoder;
    FormatDecoder *key_decoder;
    Value *key_values;
    bool key_needed; /* a produced field is in the key only */
    uint32_t key_count;
    KafkaFieldSource *fields;
    uint32_t field_count;
    RowBuilder builder;
    StrBuf headers;           /* the 'headers' metadata of the current row, encoded (map.h) */
    MapEntry *header_entries; /* scratch for the entries of one record's headers */
    size_t header_capacity;
    bool ignore_parse_errors;
    int64_t max_record_bytes;
    /* splits for per-partition watermarks (SourceReader.row_splits, split_finished):
       split i is partitions[i] */
    uint32_t *row_splits; /* ROW_BATCH_CAPACITY entries */
    bool *split_finished; /* partition_count entries */
    uint32_t current_split;
    /* last message's topic handle -> its partitions' states (a cache for the lookup) */
    const rd_kafka_topic_t *last_topic;
    size_t last_topic_first; /* index of the first state of that topic */
} KafkaReader;

static int64_t monotonic_millis(void)
{
    return datetime_monotonic_nanos() / 1000000;
}

/* The state of a message's partition, or NULL when not assigned to this reader. */
static KafkaPartitionState *reader_find_state(KafkaReader *reader,
                                              const rd_kafka_message_t *message)
{
    if (message->rkt != reader->last_topic) {
        const char *topic = rd_kafka_topic_name(message->rkt);
        size_t i = 0;
        while (i < reader->partition_count && strcmp(reader->partitions[i].topic, topic) != 0)
            i++;
        if (i == reader->partition_count)
            return NULL;
        reader->last_topic = message->rkt;
        reader->last_topic_first = i;
    }
    const char *topic = reader->partitions[reader->last_topic_first].topic;
    for (size_t i = reader->last_topic_first;
         i < reader->partition_count && reader->partitions[i].topic == topic; i++)
        if (reader->partitions[i].partition == message->partition)
            return &reader->partitions[i];
    return NULL;
}

static void reader_finish_partition(KafkaReader *reader, KafkaPartitionState *state)
{
    if (state->finished)
        return;
    state->finished = true;
    reader->finished_count++;
    if (reader->split_finished)
        reader->split_finished[state - reader->partitions] = true;
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(1);
    if (list) {
        rd_kafka_topic_partition_list_add(list, state->topic, state->partition);
        rd_kafka_pause_partitions(reader->consumer, list); /* stop fetching past the end */
        rd_kafka_topic_partition_list_destroy(list);
    }
}

static void reader_release_current(KafkaReader *reader)
{
    if (reader->current)
        rd_kafka_message_destroy(reader->current);
    reader->current = NULL;
    reader->pending_next = reader->pending_count = 0;
}

/*
 * The record's headers as MAP<STRING, BYTES> (Flink's 'headers' metadata): a
 * header without value maps to NULL, a repeated name keeps its last value,
 * no headers give an empty map. Returns 0 or -1 (no memory).
 */
static int set_headers(KafkaReader *reader, uint32_t field, const rd_kafka_message_t *message)
{
    rd_kafka_headers_t *headers = NULL;
    size_t count = 0;
    if (rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR && headers)
        count = rd_kafka_header_cnt(headers);
    if (count > reader->header_capacity) {
        MapEntry *entries = realloc(reader->header_entries, count * sizeof *entries);
        if (!entries)
            return -1;
        reader->header_entries = entries;
        reader->header_capacity = count;
    }
    for (size_t i = 0; i < count; i++) {
        const char *name = NULL;
        const void *value = NULL;
        size_t size = 0;
        if (rd_kafka_header_get_all(headers, i, &name, &value, &size) !=
            RD_KAFKA_RESP_ERR_NO_ERROR) {
            count = i;
            break;
        }
        reader->header_entries[i].key = value_string(name, (uint32_t)strlen(name));
        reader->header_entries[i].value =
            value ? value_string((const char *)value, (uint32_t)size) : value_null();
    }
    strbuf_clear(&reader->headers);
    DataType type = reader->base.spec->types[field];
    if (map_encode(type, reader->header_entries, (uint32_t)count, &reader->headers) != 0)
        return -1;
    row_builder_set_string(&reader->builder, field, reader->headers.data,
                           (uint32_t)reader->headers.length);
    return 0;
}

static void set_metadata(KafkaReader *reader, uint32_t field, KafkaMetadata kind,
                         const rd_kafka_message_t *message)
{
    RowBuilder *builder = &reader->builder;
    switch (kind) {
    case KAFKA_METADATA_OFFSET:
        row_builder_set_int64(builder, field, message->offset);
        break;
    case KAFKA_METADATA_PARTITION:
        row_builder_set_int64(builder, field, message->partition);
        break;
    case KAFKA_METADATA_TIMESTAMP: {
        rd_kafka_timestamp_type_t type;
        int64_t millis = rd_kafka_message_timestamp(message, &type);
        if (type == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE || millis < 0)
            row_builder_set_null(builder, field);
        else
            row_builder_set_int64(builder, field, millis);
        break;
    }
    case KAFKA_METADATA_TIMESTAMP_TYPE: {
        rd_kafka_timestamp_type_t type;
        rd_kafka_message_timestamp(message, &type);
        const char *name = type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? "CreateTime"
                           : type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? "LogAppendTime"
                                                                        : "NoTimestampType";
        row_builder_set_string(builder, field, name, (uint32_t)strlen(name));
        break;
    }
    case KAFKA_METADATA_TOPIC: {
        const char *topic = rd_kafka_topic_name(message->rkt);
        row_builder_set_string(builder, field, topic, (uint32_t)strlen(topic));
        break;
    }
    case KAFKA_METADATA_HEADERS:
        if (set_headers(reader, field, message) != 0)
            row_builder_set_null(builder, field); /* no memory: the builder fails the row */
        break;
    default: /* leader-epoch: not exposed by this librdkafka */
        row_builder_set_null(builder, field);
        break;
    }
}

/* Builds pending row `index` of the current message into the batch. */
static int reader_emit_row(KafkaReader *reader, RowBatch *out, Arena *arena, uint32_t index,
                           Diag *diag)
{
    const rd_kafka_message_t *message = reader->current;
    RowKind kind = ROW_KIND_DELETE;
    const Value *values = NULL;
    if (!reader->current_tombstone) {
        values = format_decoded_row(reader->value_decoder, index, &kind);
        if (reader->upsert)
            kind = ROW_KIND_UPDATE_AFTER;
    }
    RowBuilder *builder = &reader->builder;
    const DataType *types = reader->base.spec->types;
    row_builder_begin(builder, reader->field_count, kind);
    for (uint32_t field = 0; field < reader->field_count; field++) {
        const KafkaFieldSource *source = &reader->fields[field];
        if (source->metadata != KAFKA_METADATA_NONE)
            set_metadata(reader, field, source->metadata, message);
        else if (values && source->value_index >= 0)
            value_to_builder(builder, field, types[field], values[source->value_index]);
        else if (source->key_index >= 0 && reader->current_key_decoded)
            value_to_builder(builder, field, types[field], reader->key_values[source->key_index]);
        else
            row_builder_set_null(builder, field);
    }
    Row *row = row_builder_finish(builder);
    Row *copy = row ? row_copy(arena, row) : NULL;
    if (!copy)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory reading Kafka");
    if (out->count < ROW_BATCH_CAPACITY)
        reader->row_splits[out->count] = reader->current_split;
    out->rows[out->count++] = copy;
    return JOINERY_OK;
}

static int reader_bad_record(KafkaReader *reader, const rd_kafka_message_t *message,
                             const char *reason, int status, Diag *diag)
{
    if (status != JOINERY_ERROR_NO_MEMORY && reader->ignore_parse_errors) {
        reader->base.skipped_rows++;
        return JOINERY_OK;
    }
    return diag_error(diag, status == JOINERY_ERROR_NO_MEMORY ? status : JOINERY_ERROR_RUNTIME,
                      "Failed to deserialize the Kafka record at topic '%s', partition %d, offset "
                      "%lld (table '%s'): %s",
                      rd_kafka_topic_name(message->rkt), (int)message->partition,
                      (long long)message->offset, reader->table_name, reason);
}

/*
 * Decodes a data message into pending rows (reader->current takes the
 * message). Returns JOINERY_OK (maybe with no rows: skipped record or
 * tombstone of a plain kafka table) or an error.
 */
static int reader_decode_message(KafkaReader *reader, rd_kafka_message_t *message, Diag *diag)
{
    reader->current = message;
    reader->pending_next = reader->pending_count = 0;
    reader->current_tombstone = false;
    reader->current_key_decoded = false;
    char reason[512];
    size_t size = message->len + message->key_len;
    if ((int64_t)size > reader->max_record_bytes) {
        snprintf(reason, sizeof reason,
                 "the record has %zu bytes, more than the %lld of 'properties.message.max.bytes'",
                 size, (long long)reader->max_record_bytes);
        return reader_bad_record(reader, message, reason, JOINERY_ERROR_RUNTIME, diag);
    }
    bool tombstone = message->payload == NULL;
    if (tombstone && !reader->upsert)
        return JOINERY_OK; /* no value: no row, as Flink's formats give none */
    if ((reader->key_needed || tombstone) && reader->key_decoder) {
        if (message->key) {
            int status = format_decode(reader->key_decoder, message->key, message->key_len,
                                       reader->key_values, reason, sizeof reason);
            if (status == FORMAT_RECORD_EMPTY) { /* an empty key: its fields are NULL */
                for (uint32_t i = 0; i < reader->key_count; i++)
                    reader->key_values[i] = value_null();
                status = FORMAT_RECORD_ROW;
            }
            if (status != FORMAT_RECORD_ROW) {
                char keyed[600];
                snprintf(keyed, sizeof keyed, "key: %s", reason);
                return reader_bad_record(reader, message, keyed, status, diag);
            }
            reader->current_key_decoded = true;
        } else if (tombstone) {
            return reader_bad_record(reader, message, "a tombstone without a key",
                                     JOINERY_ERROR_RUNTIME, diag);
        }
    }
    if (tombstone) {
        reader->current_tombstone = true;
        reader->pending_count = 1;
        return JOINERY_OK;
    }
    uint32_t row_count = 0;
    int status = format_decode_changelog(reader->value_decoder, message->payload, message->len,
                                         &row_count, reason, sizeof reason);
    if (status == FORMAT_RECORD_EMPTY)
        return JOINERY_OK;
    if (status != FORMAT_RECORD_ROW)
        return reader_bad_record(reader, message, reason, status, diag);
    reader->pending_count = row_count;
    return JOINERY_OK;
}

/* Handles an error event from the consumer queue: EOF, fatal or transient. */
static int reader_handle_event(KafkaReader *reader, rd_kafka_message_t *message, Diag *diag)
{
    rd_kafka_resp_err_t err = message->err;
    if (err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        KafkaPartitionState *state = message->rkt ? reader_find_state(reader, message) : NULL;
        if (state && reader->bounded && message->offset >= state->end)
            reader_finish_partition(reader, state);
        return JOINERY_OK;
    }
    char fatal[256];
    bool is_fatal =
        err == RD_KAFKA_RESP_ERR__FATAL || err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET ||
        err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
        err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
        err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION || err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE;
    if (!is_fatal)
        return JOINERY_OK; /* transient (broker down, timeouts): librdkafka retries */
    if (err == RD_KAFKA_RESP_ERR__FATAL)
        rd_kafka_fatal_error(reader->consumer, fatal, sizeof fatal);
    else
        snprintf(fatal, sizeof fatal, "%s", rd_kafka_message_errstr(message));
    if (message->rkt)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Kafka source of table '%s' failed at topic '%s', partition %d: %s%s",
                          reader->table_name, rd_kafka_topic_name(message->rkt),
                          (int)message->partition, fatal,
                          err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET
                              ? " (no committed offset or it is out of range: set "
                                "'properties.auto.offset.reset' to 'earliest' or 'latest')"
                              : "");
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Kafka source of table '%s' failed: %s",
                      reader->table_name, fatal);
}

static int kafka_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                      int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    KafkaReader *reader = (KafkaReader *)base;
    if (reader->ended)
        return SOURCE_POLL_END;
    uint32_t limit = max_rows;
    if (out->count >= out->capacity)
        return SOURCE_POLL_ROWS;
    if (limit > out->capacity - out->count)
        limit = out->capacity - out->count;
    uint32_t produced = 0;
    bool handled_any = false;
    while (produced < limit) {
        if (reader->current) {
            if (reader->pending_next < reader->pending_count) {
                int status = reader_emit_row(reader, out, arena, reader->pending_next, diag);
                if (status != JOINERY_OK)
                    return status;
                reader->pending_next++;
                produced++;
                continue;
            }
            reader_release_current(reader);
        }
        if (reader->bounded && reader->finished_count == reader->partition_count) {
            reader->ended = true;
            break;
        }
        if (reader->message_next >= reader->message_count) {
            reader->message_next = reader->message_count = 0;
            ssize_t taken = rd_kafka_consume_batch_queue(reader->queue, 0, reader->messages,
                                                         KAFKA_CONSUME_BATCH);
            if (taken <= 0)
                break;
            reader->message_count = (size_t)taken;
        }
        rd_kafka_message_t *message = reader->messages[reader->message_next++];
        handled_any = true;
        if (message->err) {
            int status = reader_handle_event(reader, message, diag);
            rd_kafka_message_destroy(message);
            if (status != JOINERY_OK)
                return status;
            continue;
        }
        KafkaPartitionState *state = reader_find_state(reader, message);
        if (!state || state->finished ||
            (state->position >= 0 && message->offset < state->position) ||
            (reader->bounded && message->offset >= state->end)) {
            if (state && reader->bounded && message->offset >= state->end)
                reader_finish_partition(reader, state);
            rd_kafka_message_destroy(message);
            continue;
        }
        state->position = message->offset + 1;
        reader->current_split = (uint32_t)(state - reader->partitions);
        int status = reader_decode_message(reader, message, diag);
        if (status != JOINERY_OK)
            return status;
        if (reader->bounded && state->position >= state->end)
            reader_finish_partition(reader, state);
    }
    if (produced > 0 || (handled_any && !reader->ended))
        return SOURCE_POLL_ROWS;
    if (reader->ended)
        return SOURCE_POLL_END;
    *next_poll_millis = now_millis + KAFKA_IDLE_POLL_MS;
    return SOURCE_POLL_IDLE;
}

/* Commits the positions read to the group (after a clean stop only: see SourceReader). */
static void reader_commit_positions(KafkaReader *reader)
{
    if (!reader->has_group || !(reader->ended || reader->base.stopped_cleanly) || !reader->consumer)
        return;
    rd_kafka_topic_partition_list_t *list =
        rd_kafka_topic_partition_list_new((int)reader->partition_count + 1);
    if (!list)
        return;
    for (size_t i = 0; i < reader->partition_count; i++) {
        const KafkaPartitionState *state = &reader->partitions[i];
        if (state->position >= 0)
            rd_kafka_topic_partition_list_add(list, state->topic, state->partition)->offset =
                state->position;
    }
    if (list->cnt > 0)
        rd_kafka_commit(reader->consumer, list, 0);
    rd_kafka_topic_partition_list_destroy(list);
}

static void kafka_close_reader(SourceReader *base)
{
    KafkaReader *reader = (KafkaReader *)base;
    if (!reader)
        return;
    /* a record whose rows were not all emitted (a debezium update, a canal batch cut by a
       full batch) is read again after a restart: committed as not read (at least once) */
    if (reader->current && reader->pending_next < reader->pending_count &&
        reader->current_split < reader->partition_count)
        reader->partitions[reader->current_split].position = reader->current->offset;
    reader_release_current(reader);
    for (size_t i = reader->message_next; i < reader->message_count; i++)
        rd_kafka_message_destroy(reader->messages[i]);
    reader_commit_positions(reader);
    if (reader->queue)
        rd_kafka_queue_destroy(reader->queue);
    if (reader->consumer) {
        rd_kafka_consumer_close(reader->consumer);
        rd_kafka_destroy(reader->consumer);
    }
    format_decoder_free(reader->value_decoder);
    format_decoder_free(reader->key_decoder);
    free(reader->key_values);
    free(reader->fields);
    free(reader->row_splits);
    free(reader->split_finished);
    row_builder_free(&reader->builder);
    strbuf_free(&reader->headers);
    free(reader->header_entries);
    arena_destroy(&reader->arena);
    free(reader);
}

static const SourceReaderVtable KAFKA_READER = {
    .poll = kafka_poll,
    .close = kafka_close_reader,
};

static int compare_states(const void *a, const void *b)
{
    const KafkaPartitionState *x = a, *y = b;
    int order = strcmp(x->topic, y->topic);
    if (order)
        return order;
    return (x->partition > y->partition) - (x->partition < y->partition);
}

/* Lists the table's partitions (sorted) owned by this subtask into reader->partitions. */
static int reader_discover_partitions(KafkaReader *reader, const CatalogTable *table,
                                      const SourceSpec *spec, Diag *diag)
{
    const char *topic_list = catalog_table_option(table, "topic");
    const char *pattern = catalog_table_option(table, "topic-pattern");
    char *topics[256];
    size_t topic_count = topic_list ? split_topics(topic_list, &reader->arena, topics, 256) : 0;
    regex_t regex;
    if (pattern) {
        /* Java's Pattern.matcher(topic).matches(): the whole name */
        char *anchored = arena_printf(&reader->arena, "^(%s)$", pattern);
        if (!anchored || regcomp(&regex, anchored, REG_EXTENDED | REG_NOSUB) != 0)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid regular expression '%s' in option 'topic-pattern'", pattern);
    }
    const struct rd_kafka_metadata *metadata = NULL;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    int64_t deadline = monotonic_millis() + KAFKA_START_DEADLINE_MS;
    bool missing;
    do {
        if (metadata)
            rd_kafka_metadata_destroy(metadata);
        metadata = NULL;
        err = rd_kafka_metadata(reader->consumer, 1, NULL, &metadata, KAFKA_METADATA_TIMEOUT_MS);
        missing = false;
        for (size_t t = 0; err == RD_KAFKA_RESP_ERR_NO_ERROR && t < topic_count; t++) {
            bool found = false;
            for (int i = 0; i < metadata->topic_cnt && !found; i++)
                found = strcmp(metadata->topics[i].topic, topics[t]) == 0 &&
                        metadata->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR;
            missing |= !found;
        }
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR && !missing)
            break;
        if (monotonic_millis() >= deadline)
            break;
        usleep(200 * 1000);
    } while (1);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (pattern)
            regfree(&regex);
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot read the metadata of the Kafka cluster at '%s' for table '%s': "
                          "%s",
                          catalog_table_option(table, "properties.bootstrap.servers"), table->name,
                          rd_kafka_err2str(err));
    }
    size_t capacity = 0;
    for (int i = 0; i < metadata->topic_cnt; i++)
        capacity += (size_t)metadata->topics[i].partition_cnt;
    reader->partitions = arena_calloc(&reader->arena, capacity + 1, sizeof *reader->partitions);
    int status = reader->partitions ? JOINERY_OK
                                    : diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t t = 0; status == JOINERY_OK && t < topic_count; t++) {
        bool found = false;
        for (int i = 0; i < metadata->topic_cnt && !found; i++)
            found = strcmp(metadata->topics[i].topic, topics[t]) == 0 &&
                    metadata->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR;
        if (!found)
            status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                                "Kafka topic '%s' of table '%s' does not exist (cluster '%s')",
                                topics[t], table->name,
                                catalog_table_option(table, "properties.bootstrap.servers"));
    }
    int readers = spec->parallelism > 0 ? spec->parallelism : 1;
    int subtask =
        spec->subtask_index >= 0 && spec->subtask_index < readers ? spec->subtask_index : 0;
    for (int i = 0; status == JOINERY_OK && i < metadata->topic_cnt; i++) {
        const struct rd_kafka_metadata_topic *topic = &metadata->topics[i];
        if (topic->err != RD_KAFKA_RESP_ERR_NO_ERROR)
            continue;
        bool wanted = false;
        if (pattern)
            wanted = topic->topic[0] != '_' && regexec(&regex, topic->topic, 0, NULL, 0) == 0;
        for (size_t t = 0; t < topic_count && !wanted; t++)
            wanted = strcmp(topics[t], topic->topic) == 0;
        if (!wanted)
            continue;
        char *name = arena_strdup(&reader->arena, topic->topic);
        if (!name) {
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            break;
        }
        for (int p = 0; p < topic->partition_cnt; p++) {
            int32_t partition = topic->partitions[p].id;
            if (kafka_split_owner(name, partition, readers) != subtask)
                continue;
            KafkaPartitionState *state = &reader->partitions[reader->partition_count++];
            state->topic = name;
            state->partition = partition;
            state->position = -1;
            state->end = -1;
        }
    }
    rd_kafka_metadata_destroy(metadata);
    if (pattern)
        regfree(&regex);
    if (status != JOINERY_OK)
        return status;
    qsort(reader->partitions, reader->partition_count, sizeof *reader->partitions, compare_states);
    /* states of one topic share its name pointer (reader_find_state relies on it) */
    for (size_t i = 1; i < reader->partition_count; i++)
        if (strcmp(reader->partitions[i].topic, reader->partitions[i - 1].topic) == 0)
            reader->partitions[i].topic = reader->partitions[i - 1].topic;
    return JOINERY_OK;
}

/* Low and high watermarks of a partition, retried while the cluster is unreachable. */
static int query_watermarks(KafkaReader *reader, const KafkaPartitionState *state, int64_t *low,
                            int64_t *high, Diag *diag)
{
    int64_t deadline = monotonic_millis() + KAFKA_START_DEADLINE_MS;
    rd_kafka_resp_err_t err;
    for (;;) {
        err = rd_kafka_query_watermark_offsets(reader->consumer, state->topic, state->partition,
                                               low, high, KAFKA_METADATA_TIMEOUT_MS);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR || monotonic_millis() >= deadline)
            break;
        usleep(200 * 1000);
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot read the offsets of topic '%s', partition %d (table '%s'): %s",
                          state->topic, (int)state->partition, reader->table_name,
                          rd_kafka_err2str(err));
    return JOINERY_OK;
}

/* A partition list of all states with `offset` each (caller destroys). */
static rd_kafka_topic_partition_list_t *states_list(const KafkaReader *reader, int64_t offset)
{
    rd_kafka_topic_partition_list_t *list =
        rd_kafka_topic_partition_list_new((int)reader->partition_count + 1);
    for (size_t i = 0; list && i < reader->partition_count; i++)
        rd_kafka_topic_partition_list_add(list, reader->partitions[i].topic,
                                          reader->partitions[i].partition)
            ->offset = offset;
    return list;
}

static const rd_kafka_topic_partition_t *list_find(const rd_kafka_topic_partition_list_t *list,
                                                   const KafkaPartitionState *state)
{
    return rd_kafka_topic_partition_list_find(list, state->topic, state->partition);
}

/* Committed offsets (or offsets for a timestamp) of every state; caller destroys. */
static int lookup_offsets(KafkaReader *reader, bool by_timestamp, int64_t timestamp,
                          rd_kafka_topic_partition_list_t **result, Diag *diag)
{
    rd_kafka_topic_partition_list_t *list =
        states_list(reader, by_timestamp ? timestamp : RD_KAFKA_OFFSET_INVALID);
    if (!list)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int64_t deadline = monotonic_millis() + KAFKA_START_DEADLINE_MS;
    rd_kafka_resp_err_t err;
    for (;;) {
        err = by_timestamp
                  ? rd_kafka_offsets_for_times(reader->consumer, list, KAFKA_METADATA_TIMEOUT_MS)
                  : rd_kafka_committed(reader->consumer, list, KAFKA_METADATA_TIMEOUT_MS);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR || monotonic_millis() >= deadline)
            break;
        for (int i = 0; by_timestamp && i < list->cnt; i++)
            list->elems[i].offset = timestamp;
        usleep(200 * 1000);
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rd_kafka_topic_partition_list_destroy(list);
        return diag_error(
            diag, JOINERY_ERROR_RUNTIME, "Cannot read the %s offsets of table '%s': %s",
            by_timestamp ? "timestamp" : "committed", reader->table_name, rd_kafka_err2str(err));
    }
    *result = list;
    return JOINERY_OK;
}

static int64_t specific_offset(const KafkaPartitionOffset *offsets, size_t count, int32_t partition,
                               int64_t fallback)
{
    for (size_t i = 0; i < count; i++)
        if (offsets[i].partition == partition)
            return offsets[i].offset;
    return fallback;
}

/* One split per assigned partition, for the scan's per-partition watermarks. */
static int reader_setup_splits(KafkaReader *reader, Diag *diag)
{
    reader->row_splits = calloc(ROW_BATCH_CAPACITY, sizeof *reader->row_splits);
    reader->split_finished = calloc(reader->partition_count + 1, sizeof *reader->split_finished);
    if (!reader->row_splits || !reader->split_finished)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a source");
    reader->base.split_count = (uint32_t)reader->partition_count;
    reader->base.row_splits = reader->row_splits;
    reader->base.split_finished = reader->split_finished;
    return JOINERY_OK;
}

/* Start offsets (and, bounded, end offsets) of every assigned partition. */
static int reader_resolve_offsets(KafkaReader *reader, const KafkaScanOptions *scan, Diag *diag)
{
    rd_kafka_topic_partition_list_t *looked_up = NULL;
    int status = JOINERY_OK;
    if (reader->partition_count == 0)
        return JOINERY_OK;
    if (scan->startup == KAFKA_STARTUP_GROUP_OFFSETS || scan->startup == KAFKA_STARTUP_TIMESTAMP) {
        status = lookup_offsets(reader, scan->startup == KAFKA_STARTUP_TIMESTAMP,
                                scan->startup_millis, &looked_up, diag);
        if (status != JOINERY_OK)
            return status;
    }
    for (size_t i = 0; i < reader->partition_count; i++) {
        KafkaPartitionState *state = &reader->partitions[i];
        const rd_kafka_topic_partition_t *found = looked_up ? list_find(looked_up, state) : NULL;
        switch (scan->startup) {
        case KAFKA_STARTUP_EARLIEST:
            state->start = RD_KAFKA_OFFSET_BEGINNING;
            break;
        case KAFKA_STARTUP_LATEST:
            state->start = RD_KAFKA_OFFSET_END;
            break;
        case KAFKA_STARTUP_GROUP_OFFSETS:
            /* none committed: librdkafka applies auto.offset.reset ('error' by default here) */
            state->start = found && found->offset >= 0 ? found->offset : RD_KAFKA_OFFSET_STORED;
            break;
        case KAFKA_STARTUP_TIMESTAMP:
            state->start = found && found->offset >= 0 ? found->offset : RD_KAFKA_OFFSET_END;
            break;
        case KAFKA_STARTUP_SPECIFIC_OFFSETS:
            state->start = specific_offset(scan->startup_offsets, scan->startup_offset_count,
                                           state->partition, RD_KAFKA_OFFSET_BEGINNING);
            break;
        }
    }
    if (looked_up)
        rd_kafka_topic_partition_list_destroy(looked_up);
    looked_up = NULL;
    if (!reader->bounded)
        return JOINERY_OK;
    if (scan->bounded == KAFKA_BOUNDED_GROUP_OFFSETS || scan->bounded == KAFKA_BOUNDED_TIMESTAMP) {
        status = lookup_offsets(reader, scan->bounded == KAFKA_BOUNDED_TIMESTAMP,
                                scan->bounded_millis, &looked_up, diag);
        if (status != JOINERY_OK)
            return status;
    }
    for (size_t i = 0; status == JOINERY_OK && i < reader->partition_count; i++) {
        KafkaPartitionState *state = &reader->partitions[i];
        int64_t low, high;
        status = query_watermarks(reader, state, &low, &high, diag);
        if (status != JOINERY_OK)
            break;
        const rd_kafka_topic_partition_t *found = looked_up ? list_find(looked_up, state) : NULL;
        switch (scan->bounded) {
        case KAFKA_BOUNDED_GROUP_OFFSETS:
            state->end = found && found->offset >= 0 ? found->offset : high;
            break;
        case KAFKA_BOUNDED_TIMESTAMP:
            state->end = found && found->offset >= 0 ? found->offset : high;
            break;
        case KAFKA_BOUNDED_SPECIFIC_OFFSETS:
            state->end = specific_offset(scan->bounded_offsets, scan->bounded_offset_count,
                                         state->partition, high);
            break;
        default:
            state->end = high;
            break;
        }
        /* a concrete start makes an empty range visible now */
        if (state->start == RD_KAFKA_OFFSET_BEGINNING)
            state->start = low;
        else if (state->start == RD_KAFKA_OFFSET_END)
            state->start = high;
        if (state->start >= 0 && state->start < low)
            state->start = low;
        if (state->start >= 0 && state->start >= state->end) {
            state->finished = true;
            reader->finished_count++;
        }
    }
    if (looked_up)
        rd_kafka_topic_partition_list_destroy(looked_up);
    return status;
}

static int reader_assign(KafkaReader *reader, Diag *diag)
{
    rd_kafka_topic_partition_list_t *list =
        rd_kafka_topic_partition_list_new((int)reader->partition_count + 1);
    if (!list)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < reader->partition_count; i++) {
        const KafkaPartitionState *state = &reader->partitions[i];
        if (!state->finished)
            rd_kafka_topic_partition_list_add(list, state->topic, state->partition)->offset =
                state->start;
    }
    rd_kafka_resp_err_t err = rd_kafka_assign(reader->consumer, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot assign the Kafka partitions of table '%s': %s",
                          reader->table_name, rd_kafka_err2str(err));
    reader->queue = rd_kafka_queue_get_consumer(reader->consumer);
    if (!reader->queue)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot get the Kafka consumer queue");
    return JOINERY_OK;
}

/* Decoders and the produced-field mapping. */
static int reader_setup_decoding(KafkaReader *reader, const SourceSpec *spec,
                                 const KafkaLayout *layout, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int value_columns[512];
    if (table->column_count > 512)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "too many columns");
    uint32_t value_count = layout_value_columns(layout, table, value_columns);
    const char *names[512];
    DataType types[512];
    for (uint32_t i = 0; i < value_count; i++) {
        names[i] = table->columns[value_columns[i]].name;
        types[i] = table->columns[value_columns[i]].type;
    }
    int status = format_check_fields(layout->value_kind, value_count, types, table->name, diag);
    if (status != JOINERY_OK)
        return status;
    reader->value_decoder =
        format_decoder_create(&layout->value_options, value_count, names, types);
    if (layout->has_key) {
        layout_key_fields(layout, table, names, types);
        reader->key_decoder =
            format_decoder_create(&layout->key_options, layout->key_count, names, types);
        reader->key_values = calloc(layout->key_count ? layout->key_count : 1, sizeof(Value));
        reader->key_count = layout->key_count;
        if (!reader->key_decoder || !reader->key_values)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    reader->field_count = spec->field_count;
    reader->fields = calloc(spec->field_count ? spec->field_count : 1, sizeof *reader->fields);
    if (!reader->value_decoder || !reader->fields)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t field = 0; field < spec->field_count; field++) {
        int column = (int)spec->columns[field];
        const CatalogColumn *definition = &table->columns[column];
        KafkaFieldSource *source = &reader->fields[field];
        source->value_index = source->key_index = -1;
        if (definition->kind == CATALOG_COLUMN_METADATA) {
            source->metadata = metadata_from_key(definition->metadata_key ? definition->metadata_key
                                                                          : definition->name);
            continue;
        }
        for (uint32_t i = 0; i < value_count; i++)
            if (value_columns[i] == column)
                source->value_index = (int32_t)i;
        for (uint32_t i = 0; i < layout->key_count; i++)
            if (layout->key_columns[i] == column)
                source->key_index = (int32_t)i;
        if (source->value_index < 0 && source->key_index >= 0)
            reader->key_needed = true;
    }
    reader->ignore_parse_errors =
        layout->value_options.ignore_parse_errors || layout->key_options.ignore_parse_errors;
    return JOINERY_OK;
}

int kafka_create_source(const SourceSpec *spec, bool upsert, SourceReader **result, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int status = kafka_validate_table(table, upsert, diag);
    if (status != JOINERY_OK)
        return status;
    KafkaLayout layout;
    KafkaScanOptions *scan = malloc(sizeof *scan);
    if (!scan)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if ((status = kafka_read_layout(table, upsert, &layout, diag)) != JOINERY_OK ||
        (status = kafka_read_scan_options(table, upsert, true, scan, diag)) != JOINERY_OK) {
        free(scan);
        return status;
    }
    KafkaReader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        free(scan);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a source");
    }
    reader->base.vtable = &KAFKA_READER;
    reader->base.spec = spec;
    reader->base.impl = reader;
    reader->upsert = upsert;
    reader->table_name = table->name;
    reader->bounded = scan->bounded != KAFKA_BOUNDED_UNBOUNDED;
    reader->has_group = catalog_table_option(table, "properties.group.id") != NULL;
    arena_init(&reader->arena, 0);
    row_builder_init(&reader->builder);
    rd_kafka_conf_t *conf = NULL;
    status = kafka_make_conf(table, true, &conf, diag);
    if (status == JOINERY_OK && !reader->has_group) {
        /* librdkafka's consumer needs a group even for assign(); nothing is committed to it */
        char group[300];
        snprintf(group, sizeof group, "joinery-%s", table->name);
        status = conf_set(conf, "group.id", group, "properties.group.id", diag);
    }
    if (status == JOINERY_OK && !catalog_table_option(table, "properties.auto.offset.reset")) {
        /* group-offsets without a committed offset fails, as Flink's default ('none') */
        status = conf_set(conf, "auto.offset.reset",
                          scan->startup == KAFKA_STARTUP_GROUP_OFFSETS ? "error" : "earliest",
                          "properties.auto.offset.reset", diag);
    }
    if (status == JOINERY_OK) {
        reader->max_record_bytes = conf_get_int(conf, "message.max.bytes", 1000000);
        char reason[512];
        reader->consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, reason, sizeof reason);
        if (!reader->consumer) {
            rd_kafka_conf_destroy(conf);
            status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                                "Cannot create a Kafka consumer for table '%s': %s", table->name,
                                reason);
        }
    }
    if (status == JOINERY_OK)
        status = reader_setup_decoding(reader, spec, &layout, diag);
    if (status == JOINERY_OK)
        status = reader_discover_partitions(reader, table, spec, diag);
    if (status == JOINERY_OK)
        status = reader_setup_splits(reader, diag);
    if (status == JOINERY_OK)
        status = reader_resolve_offsets(reader, scan, diag);
    if (status == JOINERY_OK)
        status = reader_assign(reader, diag);
    free(scan);
    if (status != JOINERY_OK) {
        kafka_close_reader(&reader->base);
        return status;
    }
    *result = &reader->base;
    return JOINERY_OK;
}

/* ================================================================ sink */

typedef struct KafkaWriter {
    SinkWriter base;
    rd_kafka_t *producer;
    rd_kafka_topic_t *topic;
    const char *topic_name;
    const char *table_name;
    bool upsert;
    bool changelog; /* the value format carries row kinds (debezium-json, canal-json) */
    KafkaPartitioner partitioner;
    int32_t partition_count;
    int32_t next_partition;
    FormatEncoder *value_encoder;
    FormatEncoder *key_encoder;
    uint32_t *value_fields; /* sink field of each value field */
    uint32_t value_count;
    bool value_is_identity; /* value fields are all sink fields, in order */
    uint32_t *key_fields;
    uint32_t key_count;
    RowBuilder builder;
    StrBuf key_buffer;
    StrBuf value_buffer;
    bool value_is_raw;   /* a NULL raw value is a null message */
    int headers_field;   /* sink field of the persisted 'headers' metadata, or -1 */
    int timestamp_field; /* sink field of the persisted 'timestamp' metadata, or -1 */
    DataType headers_type;
    /* delivery reports (served on the writer's thread by rd_kafka_poll/flush) */
    bool delivery_failed;
    char delivery_error[512];
    uint64_t undelivered; /* failed deliveries */
    int64_t flush_timeout_ms;
    bool finished;
} KafkaWriter;

static void kafka_delivery_report(rd_kafka_t *producer, const rd_kafka_message_t *message,
                                  void *opaque)
{
    (void)producer;
    KafkaWriter *writer = opaque;
    if (!message->err)
        return;
    writer->undelivered++;
    if (writer->delivery_failed)
        return;
    writer->delivery_failed = true;
    snprintf(writer->delivery_error, sizeof writer->delivery_error,
             "Failed to deliver a record to Kafka topic '%s', partition %d (table '%s'): %s",
             writer->topic_name, (int)message->partition, writer->table_name,
             rd_kafka_err2str(message->err));
}

static int writer_check_deliveries(KafkaWriter *writer, Diag *diag)
{
    if (!writer->delivery_failed)
        return JOINERY_OK;
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "%s", writer->delivery_error);
}

/* Fields `fields` of `row` as a row of their own (the builder's buffer). */
static const Row *project_row(KafkaWriter *writer, const Row *row, const uint32_t *fields,
                              uint32_t count)
{
    const DataType *types = writer->base.spec->types;
    row_builder_begin(&writer->builder, count, row_kind(row));
    for (uint32_t i = 0; i < count; i++)
        row_builder_copy_field(&writer->builder, i, row, fields[i],
                               type_is_variable_length(types[fields[i]].id));
    return row_builder_finish(&writer->builder);
}

/*
 * The record headers of `row` from its persisted 'headers' column (NULL
 * when there is none or it is NULL); a NULL entry value is a header
 * without value. Returns 0, or -1 when memory is exhausted.
 */
static int writer_row_headers(const KafkaWriter *writer, const Row *row,
                              rd_kafka_headers_t **headers)
{
    *headers = NULL;
    if (writer->headers_field < 0 || row_is_null(row, (uint32_t)writer->headers_field))
        return 0;
    uint32_t length;
    const char *bytes = row_get_string(row, (uint32_t)writer->headers_field, &length);
    MapReader reader;
    if (!map_reader_init(&reader, writer->headers_type, bytes, length))
        return 0;
    *headers = rd_kafka_headers_new(map_cardinality(bytes, length));
    if (!*headers)
        return -1;
    MapEntry entry;
    while (map_reader_next(&reader, &entry)) {
        if (entry.key.is_null)
            continue; /* a header needs a name */
        const void *value = entry.value.is_null ? NULL : entry.value.s.ptr;
        size_t size = entry.value.is_null ? 0 : entry.value.s.len;
        if (rd_kafka_header_add(*headers, entry.key.s.ptr, (ssize_t)entry.key.s.len, value,
                                (ssize_t)size) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            rd_kafka_headers_destroy(*headers);
            *headers = NULL;
            return -1;
        }
    }
    return 0;
}

static int writer_produce(KafkaWriter *writer, const Row *row, const void *key, size_t key_length,
                          const void *value, size_t value_length, Diag *diag)
{
    int64_t timestamp = 0; /* 0: librdkafka sets the current time */
    if (writer->timestamp_field >= 0 && !row_is_null(row, (uint32_t)writer->timestamp_field))
        timestamp = row_get_int64(row, (uint32_t)writer->timestamp_field);
    int32_t partition = RD_KAFKA_PARTITION_UA;
    if (writer->partitioner == KAFKA_PARTITIONER_FIXED)
        partition = 0;
    else if (writer->partitioner == KAFKA_PARTITIONER_ROUND_ROBIN && writer->partition_count > 0) {
        partition = writer->next_partition;
        writer->next_partition = (writer->next_partition + 1) % writer->partition_count;
    }
    for (;;) {
        rd_kafka_headers_t *headers;
        if (writer_row_headers(writer, row, &headers) != 0)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
        rd_kafka_resp_err_t err = rd_kafka_producev(
            writer->producer, RD_KAFKA_V_RKT(writer->topic), RD_KAFKA_V_PARTITION(partition),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE((void *)value, value_length),
            RD_KAFKA_V_KEY(key, key_length), RD_KAFKA_V_TIMESTAMP(timestamp),
            RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(writer), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
            return JOINERY_OK; /* the producer owns the headers now */
        if (headers)
            rd_kafka_headers_destroy(headers);
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Cannot produce a record to Kafka topic '%s' (table '%s'): %s",
                              writer->topic_name, writer->table_name, rd_kafka_err2str(err));
        /* the local queue is full: serve deliveries until there is room (message.timeout.ms
           bounds how long queued records wait) */
        rd_kafka_poll(writer->producer, 50);
        int status = writer_check_deliveries(writer, diag);
        if (status != JOINERY_OK)
            return status;
    }
}

static int kafka_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    rd_kafka_poll(writer->producer, 0);
    int status = writer_check_deliveries(writer, diag);
    if (status != JOINERY_OK)
        return status;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        RowKind kind = row_kind(row);
        bool tombstone = false;
        if (writer->upsert) {
            if (kind == ROW_KIND_UPDATE_BEFORE)
                continue; /* the +U that follows overwrites the key */
            tombstone = kind == ROW_KIND_DELETE;
        } else if (kind != ROW_KIND_INSERT && !writer->changelog) {
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table sink '%s' doesn't support consuming update and delete changes "
                              "(received a %s row): use the 'upsert-kafka' connector with a "
                              "PRIMARY KEY",
                              writer->table_name, row_kind_name(kind));
        }
        strbuf_clear(&writer->key_buffer);
        strbuf_clear(&writer->value_buffer);
        bool has_key = writer->key_encoder != NULL;
        if (has_key) {
            const Row *key = project_row(writer, row, writer->key_fields, writer->key_count);
            if (!key || format_encode_row(writer->key_encoder, key, &writer->key_buffer) != 0)
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
        }
        bool null_value = tombstone;
        if (!tombstone) {
            const Row *value =
                writer->value_is_identity
                    ? row
                    : project_row(writer, row, writer->value_fields, writer->value_count);
            if (!value ||
                format_encode_row(writer->value_encoder, value, &writer->value_buffer) != 0)
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
            null_value = writer->value_is_raw && row_is_null(value, 0);
        }
        status = writer_produce(writer, row, has_key ? writer->key_buffer.data : NULL,
                                has_key ? writer->key_buffer.length : 0,
                                null_value ? NULL : strbuf_cstr(&writer->value_buffer),
                                null_value ? 0 : writer->value_buffer.length, diag);
        if (status != JOINERY_OK)
            return status;
        base->rows_written++;
    }
    return writer_check_deliveries(writer, diag);
}

static int kafka_finish(SinkWriter *base, Diag *diag)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    if (writer->finished)
        return JOINERY_OK;
    rd_kafka_flush(writer->producer, (int)writer->flush_timeout_ms);
    int status = writer_check_deliveries(writer, diag);
    if (status != JOINERY_OK)
        return status;
    int left = rd_kafka_outq_len(writer->producer);
    if (left > 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "%d records were not delivered to Kafka topic '%s' (table '%s') within "
                          "%lld ms",
                          left, writer->topic_name, writer->table_name,
                          (long long)writer->flush_timeout_ms);
    writer->finished = true;
    return JOINERY_OK;
}

static void kafka_close_writer(SinkWriter *base)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    if (!writer)
        return;
    if (writer->topic)
        rd_kafka_topic_destroy(writer->topic);
    if (writer->producer) {
        if (!writer->finished)
            rd_kafka_purge(writer->producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_destroy(writer->producer);
    }
    format_encoder_free(writer->value_encoder);
    format_encoder_free(writer->key_encoder);
    free(writer->value_fields);
    free(writer->key_fields);
    row_builder_free(&writer->builder);
    strbuf_free(&writer->key_buffer);
    strbuf_free(&writer->value_buffer);
    free((char *)writer->topic_name);
    free(writer);
}

static const SinkWriterVtable KAFKA_WRITER = {
    .write = kafka_write,
    .finish = kafka_finish,
    .close = kafka_close_writer,
};

/*
 * Name of sink field `field`: the table's physical column (the names a
 * query gives its results, such as EXPR$1, are not the record's field
 * names), else the spec's.
 */
static const char *sink_field_name(const SinkSpec *spec, uint32_t field)
{
    const CatalogTable *table = spec->table;
    uint32_t physical = 0;
    for (size_t i = 0; table && i < table->column_count; i++) {
        if (table->columns[i].kind != CATALOG_COLUMN_PHYSICAL)
            continue;
        if (physical++ == field)
            return table->columns[i].name;
    }
    return spec->names && spec->names[field] ? spec->names[field] : "";
}

/* Index of the sink field named `name`, or -1. */
static int sink_field_index(const SinkSpec *spec, const char *name)
{
    for (uint32_t i = 0; i < spec->field_count; i++)
        if (strcasecmp(sink_field_name(spec, i), name) == 0)
            return (int)i;
    return -1;
}

static int writer_setup_encoding(KafkaWriter *writer, const SinkSpec *spec,
                                 const KafkaLayout *layout, Diag *diag)
{
    const CatalogTable *table = spec->table;
    writer->value_fields = calloc(spec->field_count + 1, sizeof *writer->value_fields);
    writer->key_fields = calloc(layout->key_count + 1, sizeof *writer->key_fields);
    const char **names = calloc(spec->field_count + layout->key_count + 1, sizeof *names);
    DataType *types = calloc(spec->field_count + layout->key_count + 1, sizeof *types);
    int status = JOINERY_OK;
    if (!writer->value_fields || !writer->key_fields || !names || !types)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    size_t prefix_length = strlen(layout->key_prefix);
    for (uint32_t i = 0; status == JOINERY_OK && i < layout->key_count; i++) {
        const char *column = table->columns[layout->key_columns[i]].name;
        int field = sink_field_index(spec, column);
        if (field < 0)
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Key field '%s' is not a column of sink table '%s'", column,
                                table->name);
        else {
            writer->key_fields[i] = (uint32_t)field;
            names[i] = sink_field_name(spec, (uint32_t)field) + prefix_length;
            types[i] = spec->types[field];
        }
    }
    writer->key_count = layout->key_count;
    if (status == JOINERY_OK && layout->has_key) {
        status = format_check_fields(layout->key_kind, layout->key_count, types, table->name, diag);
        if (status == JOINERY_OK && !(writer->key_encoder = format_encoder_create(
                                          &layout->key_options, layout->key_count, names, types)))
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    /* persisted metadata columns (the binder admits 'headers' and 'timestamp') go into the
       record, not its value */
    writer->headers_field = writer->timestamp_field = -1;
    for (size_t c = 0; status == JOINERY_OK && c < table->column_count; c++) {
        const CatalogColumn *column = &table->columns[c];
        if (column->kind != CATALOG_COLUMN_METADATA || column->is_virtual)
            continue;
        int field = sink_field_index(spec, column->name);
        KafkaMetadata kind =
            metadata_from_key(column->metadata_key ? column->metadata_key : column->name);
        if (field >= 0 && kind == KAFKA_METADATA_HEADERS) {
            writer->headers_field = field;
            writer->headers_type = spec->types[field];
        } else if (field >= 0 && kind == KAFKA_METADATA_TIMESTAMP) {
            writer->timestamp_field = field;
        } else {
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Metadata column '%s' of sink table '%s' cannot be written",
                                column->name, table->name);
        }
    }
    writer->value_is_identity = true;
    for (uint32_t i = 0; status == JOINERY_OK && i < spec->field_count; i++) {
        bool in_key = false;
        for (uint32_t k = 0; k < layout->key_count; k++)
            in_key |= writer->key_fields[k] == i;
        if ((layout->except_key && in_key) || (int)i == writer->headers_field ||
            (int)i == writer->timestamp_field) {
            writer->value_is_identity = false;
            continue;
        }
        names[writer->value_count] = sink_field_name(spec, i);
        types[writer->value_count] = spec->types[i];
        writer->value_fields[writer->value_count++] = i;
    }
    if (status == JOINERY_OK)
        status =
            format_check_fields(layout->value_kind, writer->value_count, types, table->name, diag);
    if (status == JOINERY_OK && !(writer->value_encoder = format_encoder_create(
                                      &layout->value_options, writer->value_count, names, types)))
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    writer->value_is_raw = layout->value_kind == FORMAT_KIND_RAW;
    free(names);
    free(types);
    return status;
}

static int writer_count_partitions(KafkaWriter *writer, Diag *diag)
{
    const struct rd_kafka_metadata *metadata = NULL;
    int64_t deadline = monotonic_millis() + KAFKA_START_DEADLINE_MS;
    rd_kafka_resp_err_t err;
    for (;;) {
        err = rd_kafka_metadata(writer->producer, 0, writer->topic, &metadata,
                                KAFKA_METADATA_TIMEOUT_MS);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR && metadata->topic_cnt == 1 &&
            metadata->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
            metadata->topics[0].partition_cnt > 0) {
            writer->partition_count = metadata->topics[0].partition_cnt;
            rd_kafka_metadata_destroy(metadata);
            return JOINERY_OK;
        }
        if (metadata)
            rd_kafka_metadata_destroy(metadata);
        metadata = NULL;
        if (monotonic_millis() >= deadline)
            break;
        usleep(200 * 1000);
    }
    return diag_error(diag, JOINERY_ERROR_RUNTIME,
                      "Cannot read the partitions of Kafka topic '%s' (table '%s'): %s",
                      writer->topic_name, writer->table_name,
                      err ? rd_kafka_err2str(err) : "topic not found");
}

int kafka_create_sink(const SinkSpec *spec, bool upsert, SinkWriter **result, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int status = kafka_validate_table(table, upsert, diag);
    if (status != JOINERY_OK)
        return status;
    const char *topic = catalog_table_option(table, "topic");
    if (!topic || count_topics(topic) != 1)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The %s sink of table '%s' needs exactly one topic in option 'topic' "
                          "(a topic list or 'topic-pattern' can only be read)",
                          connector_name(upsert), table->name);
    KafkaLayout layout;
    status = kafka_read_layout(table, upsert, &layout, diag);
    if (status != JOINERY_OK)
        return status;
    KafkaWriter *writer = calloc(1, sizeof *writer);
    if (!writer)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    writer->base.vtable = &KAFKA_WRITER;
    writer->base.spec = spec;
    writer->base.impl = writer;
    writer->upsert = upsert;
    writer->changelog =
        !upsert && kafka_table_source_changelog(spec->table, false) == SOURCE_CHANGELOG_ALL;
    writer->table_name = table->name;
    row_builder_init(&writer->builder);
    Arena scratch;
    arena_init(&scratch, 1024);
    char *topics[1];
    split_topics(topic, &scratch, topics, 1);
    writer->topic_name = strdup(topics[0]);
    arena_destroy(&scratch);
    const char *partitioner = catalog_table_option(table, "sink.partitioner");
    if (partitioner)
        kafka_partitioner_from_name(partitioner, &writer->partitioner);
    if (!writer->topic_name)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (status == JOINERY_OK)
        status = writer_setup_encoding(writer, spec, &layout, diag);
    rd_kafka_conf_t *conf = NULL;
    if (status == JOINERY_OK)
        status = kafka_make_conf(table, false, &conf, diag);
    if (status == JOINERY_OK) {
        rd_kafka_conf_set_dr_msg_cb(conf, kafka_delivery_report);
        writer->flush_timeout_ms =
            conf_get_int(conf, "message.timeout.ms", 300000) + KAFKA_FLUSH_MARGIN_MS;
        char reason[512];
        writer->producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, reason, sizeof reason);
        if (!writer->producer) {
            rd_kafka_conf_destroy(conf);
            status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                                "Cannot create a Kafka producer for table '%s': %s", table->name,
                                reason);
        }
    }
    if (status == JOINERY_OK) {
        writer->topic = rd_kafka_topic_new(writer->producer, writer->topic_name, NULL);
        if (!writer->topic)
            status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot open Kafka topic '%s': %s",
                                writer->topic_name, rd_kafka_err2str(rd_kafka_last_error()));
    }
    if (status == JOINERY_OK && writer->partitioner == KAFKA_PARTITIONER_ROUND_ROBIN)
        status = writer_count_partitions(writer, diag);
    if (status != JOINERY_OK) {
        kafka_close_writer(&writer->base);
        return status;
    }
    *result = &writer->base;
    return JOINERY_OK;
}

/* ================================================================ the 'kafka' connector */

const char *const KAFKA_SINK_METADATA_KEYS[] = {"headers", "timestamp", NULL};

static int kafka_validate(const CatalogTable *table, Diag *diag)
{
    return kafka_validate_table(table, false, diag);
}

static SourceChangelog kafka_source_changelog(const CatalogTable *table)
{
    return kafka_table_source_changelog(table, false);
}

static int kafka_source(const SourceSpec *spec, SourceReader **reader, Diag *diag)
{
    return kafka_create_source(spec, false, reader, diag);
}

static int kafka_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag)
{
    return kafka_create_sink(spec, false, writer, diag);
}

static const ConnectorOption KAFKA_OPTIONS[] = {
    {"topic", false, "topic name, or a list separated by ';'"},
    {"topic-pattern", false, "regular expression of the topics to read"},
    {"properties.bootstrap.servers", true, "Kafka brokers, host:port[,host:port...]"},
    {"properties.group.id", false, "consumer group (group-offsets, committing positions)"},
    {"properties.*", false, "librdkafka client properties"},
    {"format", false, "value format: json, csv, raw, debezium-json, canal-json"},
    {"value.format", false, "value format (instead of 'format')"},
    {"key.format", false, "key format: json, csv, raw"},
    {"key.fields", false, "columns of the key, separated by ';'"},
    {"key.fields-prefix", false, "prefix of the key columns' names"},
    {"value.fields-include", false, "ALL or EXCEPT_KEY"},
    {"scan.startup.mode", false,
     "earliest-offset, latest-offset, group-offsets, timestamp, specific-offsets"},
    {"scan.startup.timestamp-millis", false, "start timestamp (timestamp mode)"},
    {"scan.startup.specific-offsets", false, "'partition:0,offset:42;partition:1,offset:300'"},
    {"scan.bounded.mode", false, "latest-offset, group-offsets, timestamp, specific-offsets"},
    {"scan.bounded.timestamp-millis", false, "end timestamp (timestamp bounded mode)"},
    {"scan.bounded.specific-offsets", false, "end offsets per partition"},
    {"scan.topic-partition-discovery.interval", false, "accepted: partitions are read at start"},
    {"scan.parallelism", false, "accepted"},
    {"sink.partitioner", false, "default, fixed or round-robin"},
    {"sink.delivery-guarantee", false, "none or at-least-once"},
    {"sink.semantic", false, "accepted (deprecated)"},
    {"sink.transactional-id-prefix", false, "accepted"},
    {"sink.parallelism", false, "accepted"},
    {"json.*", false, "json format options"},
    {"csv.*", false, "csv format options"},
    {"raw.*", false, "raw format options"},
    {"debezium-json.*", false, "debezium-json format options"},
    {"canal-json.*", false, "canal-json format options"},
    {"key.json.*", false, "key json format options"},
    {"key.csv.*", false, "key csv format options"},
    {"key.raw.*", false, "key raw format options"},
    {"value.json.*", false, "value json format options"},
    {"value.csv.*", false, "value csv format options"},
    {"value.raw.*", false, "value raw format options"},
    {"value.debezium-json.*", false, "value debezium-json format options"},
    {"value.canal-json.*", false, "value canal-json format options"},
};

/* A changelog value format (debezium-json, canal-json) carries every row kind. */
static SinkChangelog kafka_sink_changelog(const CatalogTable *table)
{
    return kafka_table_source_changelog(table, false) == SOURCE_CHANGELOG_ALL
               ? SINK_CHANGELOG_ALL
               : SINK_CHANGELOG_INSERT_ONLY;
}

const Connector connector_kafka = {
    .name = "kafka",
    .options = KAFKA_OPTIONS,
    .option_count = sizeof KAFKA_OPTIONS / sizeof KAFKA_OPTIONS[0],
    .validate = kafka_validate,
    .is_bounded = kafka_table_is_bounded,
    .estimate_rows = NULL,
    .create_source = kafka_source,
    .create_sink = kafka_sink,
    .source_changelog = kafka_source_changelog,
    .sink_changelog = kafka_sink_changelog,
    .sink_metadata_keys = KAFKA_SINK_METADATA_KEYS,
    .sink_update_hint = "use the 'upsert-kafka' connector with a PRIMARY KEY, or a changelog "
                        "format ('debezium-json' or 'canal-json')",
    .supports_watermark_push_down = true,
};
