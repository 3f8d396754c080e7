/*
 * kafka_config.c - what the 'kafka' and 'upsert-kafka' connectors know
 * about a table before any client runs: option parsing (startup and bounded
 * modes, specific offsets, the sink partitioner), the record layout, the
 * librdkafka client configuration, validation at CREATE TABLE, and the
 * 'kafka' connector entry itself. kafka_source.c and kafka_sink.c build
 * their clients from what this file reads (kafka_internal.h).
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
 * Secrets: values of sensitive options (engine/base/sensitive.h) are
 * never printed. Only 'properties.*' reach librdkafka; a handful of
 * Java-client-only keys (serializers, max.poll.records) are ignored, and
 * 'properties.sasl.jaas.config' is translated (kafka_jaas.c).
 */
#include "engine/connector/kafka_internal.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/map.h"
#include "engine/base/sensitive.h"
#include "engine/base/utf8.h"
#include "engine/base/value.h"
#include "engine/format/format.h"

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
    size_t length = strlen(topic);
    for (size_t i = 0; i < length;) {
        uint32_t code;
        size_t consumed;
        if (!utf8_decode(topic + i, length - i, &code, &consumed))
            code = 0xFFFD; /* as Java decodes an ill-formed sequence */
        i += consumed;
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

KafkaMetadata kafka_metadata_from_key(const char *key)
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

const char *kafka_connector_name(bool upsert)
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

int kafka_read_layout(const CatalogTable *table, bool upsert, KafkaLayout *layout, Diag *diag)
{
    memset(layout, 0, sizeof *layout);
    layout->upsert = upsert;
    const char *name = kafka_connector_name(upsert);
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
void kafka_layout_key_fields(const KafkaLayout *layout, const CatalogTable *table,
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
uint32_t kafka_layout_value_columns(const KafkaLayout *layout, const CatalogTable *table,
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

int kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value,
                   const char *option_key, Diag *diag)
{
    char reason[512];
    rd_kafka_conf_res_t result = rd_kafka_conf_set(conf, name, value, reason, sizeof reason);
    if (result == RD_KAFKA_CONF_OK)
        return JOINERY_OK;
    bool secret = sensitive_option(option_key, value);
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
int kafka_make_conf(const CatalogTable *table, bool consumer, rd_kafka_conf_t **result, Diag *diag)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    if (!conf)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    rd_kafka_conf_set_log_cb(conf, kafka_log_discard);
    int status = JOINERY_OK;
    if (consumer) {
        status = kafka_conf_set(conf, "enable.auto.commit", "false", "enable.auto.commit", diag);
        if (status == JOINERY_OK)
            status = kafka_conf_set(conf, "enable.auto.offset.store", "false",
                                    "enable.auto.offset.store", diag);
        if (status == JOINERY_OK)
            status =
                kafka_conf_set(conf, "enable.partition.eof", "true", "enable.partition.eof", diag);
    } else {
        status = kafka_conf_set(conf, "enable.idempotence", "true", "enable.idempotence", diag);
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
        if (strcmp(name, "sasl.jaas.config") == 0)
            status = kafka_conf_set_jaas(conf, table, value, diag); /* kafka_jaas.c */
        else
            status = kafka_conf_set(conf, name, value, key, diag);
    }
    if (status != JOINERY_OK) {
        rd_kafka_conf_destroy(conf);
        return status;
    }
    *result = conf;
    return JOINERY_OK;
}

/* An integer property of the configuration (librdkafka's default when unset). */
int64_t kafka_conf_get_int(const rd_kafka_conf_t *conf, const char *name, int64_t fallback)
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
size_t kafka_split_topics(const char *list, Arena *arena, char **topics, size_t capacity)
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

int kafka_count_topics(const char *list)
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

/*
 * Reads the scan.* options. The group id a group-offsets mode needs is
 * checked only `for_source`: a table used as a sink alone needs none.
 */
int kafka_read_scan_options(const CatalogTable *table, bool upsert, bool for_source,
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
                        kafka_count_topics(catalog_table_option(table, "topic")) == 1;
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
                          kafka_connector_name(upsert));
    return JOINERY_OK;
}

static int validate_metadata_columns(const CatalogTable *table, bool upsert, Diag *diag)
{
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (column->kind != CATALOG_COLUMN_METADATA)
            continue;
        const char *key = column->metadata_key ? column->metadata_key : column->name;
        KafkaMetadata kind = kafka_metadata_from_key(key);
        if (kind == KAFKA_METADATA_NONE)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid metadata key '%s' in column '%s' of table '%s'. The %s "
                              "table supports the following metadata keys for reading: topic, "
                              "partition, headers, leader-epoch, offset, timestamp, "
                              "timestamp-type (format metadata such as 'value.source.timestamp' "
                              "is not supported yet)",
                              key, column->name, table->name, kafka_connector_name(upsert));
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
                          kafka_connector_name(upsert));
    if (topic && kafka_count_topics(topic) == 0)
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
                          kafka_connector_name(upsert));
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
    KafkaDeliveryGuarantee guarantee;
    status = kafka_read_delivery_guarantee(table, &guarantee, diag);
    if (status != JOINERY_OK)
        return status;
    if (guarantee == KAFKA_DELIVERY_EXACTLY_ONCE && upsert)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "'sink.delivery-guarantee' = 'exactly-once' is supported by the 'kafka' "
                          "connector only (an upsert-kafka sink is at-least-once, with an "
                          "idempotent producer; its replays are harmless by key)");
    const char *prefix = catalog_table_option(table, "sink.transactional-id-prefix");
    if (guarantee == KAFKA_DELIVERY_EXACTLY_ONCE && (!prefix || !*prefix))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "sink.transactional-id-prefix must be specified when using "
                          "DeliveryGuarantee.EXACTLY_ONCE.");
    status = validate_metadata_columns(table, upsert, diag);
    if (status != JOINERY_OK)
        return status;
    /* every value field set must be one the format can carry */
    int columns[512];
    DataType types[512];
    if (table->column_count <= 512) {
        uint32_t count = kafka_layout_value_columns(&layout, table, columns);
        for (uint32_t i = 0; i < count; i++)
            types[i] = table->columns[columns[i]].type;
        status = format_check_fields(layout.value_kind, count, types, table->name, diag);
        if (status == JOINERY_OK && layout.has_key) {
            const char *names[KAFKA_MAX_KEY_FIELDS];
            kafka_layout_key_fields(&layout, table, names, types);
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

int kafka_read_delivery_guarantee(const CatalogTable *table, KafkaDeliveryGuarantee *result,
                                  Diag *diag)
{
    static const char *const NAMES[] = {"none", "at-least-once", "exactly-once"};
    *result = KAFKA_DELIVERY_AT_LEAST_ONCE;
    const char *key = "sink.delivery-guarantee";
    const char *value = catalog_table_option(table, key);
    if (!value) { /* Flink's deprecated key, in its own spelling */
        key = "sink.semantic";
        value = catalog_table_option(table, key);
    }
    if (!value)
        return JOINERY_OK;
    for (int i = 0; i < 3; i++) {
        const char *name = NAMES[i];
        bool same = strlen(name) == strlen(value);
        for (size_t c = 0; same && name[c]; c++) /* Flink: case-insensitive, '_' for '-' */
            same =
                tolower((unsigned char)value[c]) == name[c] || (name[c] == '-' && value[c] == '_');
        if (same) {
            *result = (KafkaDeliveryGuarantee)i;
            return JOINERY_OK;
        }
    }
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Could not parse value '%s' for key '%s'. Supported values are [none, "
                      "at-least-once, exactly-once].",
                      value, key);
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

/* ================================================================ clock */

bool kafka_retry_pause(volatile int *cancel)
{
    for (int step = 0; step < 10; step++) {
        if (cancel && *cancel)
            return true;
        usleep(20 * 1000);
    }
    return cancel && *cancel;
}

int kafka_start_failure(volatile int *cancel)
{
    return cancel && *cancel ? JOINERY_CANCELLED : JOINERY_ERROR_RUNTIME;
}

int64_t kafka_monotonic_millis(void)
{
    return datetime_monotonic_nanos() / 1000000;
}

int64_t kafka_start_deadline_millis(const CatalogTable *table)
{
    const char *value = catalog_table_option(table, "properties.default.api.timeout.ms");
    if (value) {
        char *end = NULL;
        long long millis = strtoll(value, &end, 10);
        if (end != value && *end == '\0' && millis > 0)
            return (int64_t)millis;
    }
    return KAFKA_START_DEADLINE_MS;
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
    {"sink.delivery-guarantee", false, "none, at-least-once or exactly-once"},
    {"sink.semantic", false, "deprecated spelling of sink.delivery-guarantee"},
    {"sink.transactional-id-prefix", false, "transactional.id prefix (exactly-once)"},
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
