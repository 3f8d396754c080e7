/*
 * check_kafka.c - Check suite for the Kafka connectors and the changelog
 * formats: option validation (kafka, upsert-kafka), startup/bounded mode
 * and specific-offsets parsing, Flink's split assignment, debezium-json,
 * canal-json and raw decoding and encoding, Flink's SASL JAAS login
 * translated into librdkafka's configuration, and a round trip through an
 * in-process librdkafka mock cluster (sink, bounded parallel source,
 * metadata columns, upsert tombstones, bad records named by topic,
 * partition and offset, skipped and counted with ignore-parse-errors), and
 * the exactly-once sink's transactions (begun at the first record, pending
 * at a barrier, committed when that checkpoint completes, held records,
 * abort on failure, a restart with the same transactional.id) and its
 * recovery (a restored checkpoint's transaction sent again unless its commit
 * marker says it was committed; the kept records' encoding).
 * The mock cluster listens on 127.0.0.1 only.
 */
#include <check.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"
#include "engine/connector/kafka_internal.h"
#include "engine/exec/snapshot.h"
#include "engine/format/format.h"
#include "tests/unit/connector_fixture.h"

/* ------------------------------------------------------------ helpers */

static DataType bigint_type(void)
{
    return type_make(TYPE_BIGINT, true);
}

static DataType string_type(void)
{
    return type_make_varchar(TYPE_STRING_LENGTH, true);
}

/* A table of the fixture's kind, with a one-column primary key when primary_key is set. */
static CatalogTable *make_keyed_table(const char *name, const TestColumn *columns,
                                      size_t column_count, const char *const *options,
                                      size_t option_count, const char *primary_key)
{
    CatalogTable *table = make_table(name, columns, column_count, options, option_count);
    if (primary_key) {
        table->primary_key = arena_calloc(&table->arena, 1, sizeof *table->primary_key);
        table->primary_key[0] = arena_strdup(&table->arena, primary_key);
        table->primary_key_count = 1;
    }
    return table;
}

static const TestColumn TWO_COLUMNS[] = {
    {"id", {.id = TYPE_BIGINT, .nullable = true}, NULL},
    {"name", {.id = TYPE_VARCHAR, .precision = 2147483647, .nullable = true}, NULL}};

/* Validates a two-column table (id BIGINT, name STRING) with these options. */
static int validate(const char *const *options, size_t count, const char *primary_key, Diag *diag)
{
    CatalogTable *table = make_keyed_table("t", TWO_COLUMNS, 2, options, count, primary_key);
    diag_clear(diag);
    int status = connector_validate_table(table, diag);
    catalog_table_free(table);
    return status;
}

#define OPTION_COUNT(array) (sizeof(array) / sizeof(array)[0] / 2)

/* ------------------------------------------------------------ options */

START_TEST(test_modes_and_offsets)
{
    KafkaStartupMode startup;
    ck_assert(kafka_startup_mode_from_name("earliest-offset", &startup));
    ck_assert_int_eq(startup, KAFKA_STARTUP_EARLIEST);
    ck_assert(kafka_startup_mode_from_name("specific-offsets", &startup));
    ck_assert_int_eq(startup, KAFKA_STARTUP_SPECIFIC_OFFSETS);
    ck_assert(!kafka_startup_mode_from_name("earliest", &startup));
    ck_assert(!kafka_startup_mode_from_name(NULL, &startup));
    KafkaBoundedMode bounded;
    ck_assert(kafka_bounded_mode_from_name("latest-offset", &bounded));
    ck_assert_int_eq(bounded, KAFKA_BOUNDED_LATEST);
    ck_assert(kafka_bounded_mode_from_name("unbounded", &bounded));
    ck_assert_int_eq(bounded, KAFKA_BOUNDED_UNBOUNDED);
    ck_assert(!kafka_bounded_mode_from_name("earliest-offset", &bounded));
    KafkaPartitioner partitioner;
    ck_assert(kafka_partitioner_from_name("round-robin", &partitioner));
    ck_assert_int_eq(partitioner, KAFKA_PARTITIONER_ROUND_ROBIN);
    ck_assert(!kafka_partitioner_from_name("com.acme.MyPartitioner", &partitioner));

    KafkaPartitionOffset offsets[4];
    size_t count;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(kafka_parse_specific_offsets("k",
                                                  "partition:0,offset:42;partition:1,offset:300",
                                                  offsets, 4, &count, &diag),
                     JOINERY_OK);
    ck_assert_uint_eq(count, 2);
    ck_assert_int_eq(offsets[0].partition, 0);
    ck_assert_int_eq(offsets[0].offset, 42);
    ck_assert_int_eq(offsets[1].partition, 1);
    ck_assert_int_eq(offsets[1].offset, 300);
    ck_assert_int_eq(
        kafka_parse_specific_offsets("k", " partition:7 , offset:9 ;", offsets, 4, &count, &diag),
        JOINERY_OK);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(offsets[0].partition, 7);
    const char *bad[] = {"",
                         "partition:0",
                         "partition:x,offset:1",
                         "offset:1,partition:0",
                         "partition:0,offset:-1",
                         "partition:0,offset:1;;"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        diag_clear(&diag);
        ck_assert_int_eq(kafka_parse_specific_offsets("scan.startup.specific-offsets", bad[i],
                                                      offsets, 4, &count, &diag),
                         JOINERY_ERROR_VALIDATE);
        ck_assert_ptr_nonnull(strstr(diag.message, "should follow the format"));
    }
    diag_clear(&diag);
    ck_assert_int_eq(kafka_parse_specific_offsets(
                         "k", "partition:0,offset:1;partition:1,offset:1;partition:2,offset:1",
                         offsets, 2, &count, &diag),
                     JOINERY_ERROR_VALIDATE);
}
END_TEST

START_TEST(test_split_owner)
{
    /* Flink: start = ((topic.hashCode() * 31) & 0x7FFFFFFF) % readers; owner = (start + p) %
       readers "orders".hashCode() = -1008770331 */
    int32_t hash = -1008770331;
    uint32_t start = (uint32_t)(((uint32_t)hash * 31u) & 0x7FFFFFFFu) % 3u;
    for (int32_t p = 0; p < 6; p++)
        ck_assert_int_eq(kafka_split_owner("orders", p, 3), (int)((start + (uint32_t)p) % 3u));
    ck_assert_int_eq(kafka_split_owner("orders", 5, 1), 0);
    /* every partition has exactly one owner among the readers */
    for (int readers = 1; readers <= 5; readers++)
        for (int32_t p = 0; p < 10; p++) {
            int owner = kafka_split_owner("t\xc3\xa9st", p, readers);
            ck_assert(owner >= 0 && owner < readers);
        }
}
END_TEST

START_TEST(test_validation)
{
    Diag diag;
    const char *ok[] = {"connector",
                        "kafka",
                        "topic",
                        "a;b",
                        "properties.bootstrap.servers",
                        "127.0.0.1:9092",
                        "format",
                        "json",
                        "scan.startup.mode",
                        "earliest-offset"};
    ck_assert_int_eq(validate(ok, OPTION_COUNT(ok), NULL, &diag), JOINERY_OK);

    const char *no_topic[] = {"connector",
                              "kafka",
                              "properties.bootstrap.servers",
                              "h:1",
                              "format",
                              "json",
                              "scan.startup.mode",
                              "earliest-offset"};
    ck_assert_int_eq(validate(no_topic, OPTION_COUNT(no_topic), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'topic' or 'topic-pattern'"));

    const char *both[] = {
        "connector", "kafka",  "topic", "a", "topic-pattern", "a.*", "properties.bootstrap.servers",
        "h:1",       "format", "json"};
    ck_assert_int_eq(validate(both, OPTION_COUNT(both), NULL, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "shouldn't be set together"));

    const char *mode[] = {"connector",
                          "kafka",
                          "topic",
                          "a",
                          "properties.bootstrap.servers",
                          "h:1",
                          "format",
                          "json",
                          "scan.startup.mode",
                          "earliest"};
    ck_assert_int_eq(validate(mode, OPTION_COUNT(mode), NULL, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "scan.startup.mode"));

    const char *timestamp[] = {"connector",
                               "kafka",
                               "topic",
                               "a",
                               "properties.bootstrap.servers",
                               "h:1",
                               "format",
                               "json",
                               "scan.startup.mode",
                               "timestamp"};
    ck_assert_int_eq(validate(timestamp, OPTION_COUNT(timestamp), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "scan.startup.timestamp-millis"));

    const char *specific[] = {"connector",
                              "kafka",
                              "topic",
                              "a;b",
                              "properties.bootstrap.servers",
                              "h:1",
                              "format",
                              "json",
                              "scan.startup.mode",
                              "specific-offsets",
                              "scan.startup.specific-offsets",
                              "partition:0,offset:1"};
    ck_assert_int_eq(validate(specific, OPTION_COUNT(specific), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "single topic"));

    const char *bounded[] = {"connector",
                             "kafka",
                             "topic",
                             "a",
                             "properties.bootstrap.servers",
                             "h:1",
                             "format",
                             "json",
                             "scan.startup.mode",
                             "earliest-offset",
                             "scan.bounded.mode",
                             "specific-offsets",
                             "scan.bounded.specific-offsets",
                             "partition:0;offset:1"};
    ck_assert_int_eq(validate(bounded, OPTION_COUNT(bounded), NULL, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "partition:0,offset:42"));

    const char *property[] = {"connector",
                              "kafka",
                              "topic",
                              "a",
                              "properties.bootstrap.servers",
                              "h:1",
                              "format",
                              "json",
                              "properties.no.such.thing",
                              "1"};
    ck_assert_int_eq(validate(property, OPTION_COUNT(property), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "no.such.thing"));

    /* a secret value is never printed */
    const char *secret[] = {"connector",
                            "kafka",
                            "topic",
                            "a",
                            "properties.bootstrap.servers",
                            "h:1",
                            "format",
                            "json",
                            "properties.sasl.mechanism",
                            "PLAIN",
                            "properties.ssl.key.password",
                            "hunter2",
                            "properties.enable.idempotence",
                            "hunter2"};
    CatalogTable *table = make_keyed_table("t", TWO_COLUMNS, 2, secret, OPTION_COUNT(secret), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "enable.idempotence"));
    catalog_table_free(table);
    const char *secret_bad[] = {"connector",
                                "kafka",
                                "topic",
                                "a",
                                "properties.bootstrap.servers",
                                "h:1",
                                "format",
                                "json",
                                "properties.compression.codec",
                                "hunter2"};
    ck_assert_int_eq(validate(secret_bad, OPTION_COUNT(secret_bad), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "hunter2")); /* not a secret key: shown */
    const char *secret_hidden[] = {"connector",
                                   "kafka",
                                   "topic",
                                   "a",
                                   "properties.bootstrap.servers",
                                   "h:1",
                                   "format",
                                   "json",
                                   "properties.sasl.password",
                                   "hunter2",
                                   "properties.message.max.bytes",
                                   "x"};
    ck_assert_int_eq(validate(secret_hidden, OPTION_COUNT(secret_hidden), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_null(strstr(diag.message, "hunter2"));

    const char *group[] = {"connector", "kafka",  "topic", "a", "properties.bootstrap.servers",
                           "h:1",       "format", "json"};
    ck_assert_int_eq(validate(group, OPTION_COUNT(group), NULL, &diag), JOINERY_OK);

    const char *partitioner[] = {"connector",
                                 "kafka",
                                 "topic",
                                 "a",
                                 "properties.bootstrap.servers",
                                 "h:1",
                                 "format",
                                 "json",
                                 "sink.partitioner",
                                 "hash"};
    ck_assert_int_eq(validate(partitioner, OPTION_COUNT(partitioner), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "round-robin"));

    const char *key_fields[] = {
        "connector",  "kafka",  "topic", "a",          "properties.bootstrap.servers",
        "h:1",        "format", "json",  "key.format", "json",
        "key.fields", "nope"};
    ck_assert_int_eq(validate(key_fields, OPTION_COUNT(key_fields), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'nope'"));

    const char *raw[] = {"connector", "kafka",  "topic", "a", "properties.bootstrap.servers",
                         "h:1",       "format", "raw"};
    ck_assert_int_eq(validate(raw, OPTION_COUNT(raw), NULL, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "only one physical column"));

    const char *typo[] = {"connector",
                          "kafka",
                          "topic",
                          "a",
                          "properties.bootstrap.servers",
                          "h:1",
                          "format",
                          "json",
                          "scan.startup.mod",
                          "earliest-offset"};
    ck_assert_int_eq(validate(typo, OPTION_COUNT(typo), NULL, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "Did you mean 'scan.startup.mode'?"));

    /* upsert-kafka */
    const char *upsert[] = {
        "connector",  "upsert-kafka", "topic",        "a",   "properties.bootstrap.servers", "h:1",
        "key.format", "json",         "value.format", "json"};
    ck_assert_int_eq(validate(upsert, OPTION_COUNT(upsert), "id", &diag), JOINERY_OK);
    ck_assert_int_eq(validate(upsert, OPTION_COUNT(upsert), NULL, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "PRIMARY KEY"));
    const char *upsert_cdc[] = {"connector",
                                "upsert-kafka",
                                "topic",
                                "a",
                                "properties.bootstrap.servers",
                                "h:1",
                                "key.format",
                                "json",
                                "value.format",
                                "debezium-json"};
    ck_assert_int_eq(validate(upsert_cdc, OPTION_COUNT(upsert_cdc), "id", &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "insert-only"));

    /* changelog modes and boundedness */
    const Connector *kafka = connector_find("kafka");
    const Connector *upsert_kafka = connector_find("upsert-kafka");
    ck_assert_ptr_nonnull(kafka);
    ck_assert_ptr_nonnull(upsert_kafka);
    ck_assert_ptr_nonnull(strstr(kafka->sink_update_hint, "upsert-kafka"));
    const char *cdc[] = {"connector",
                         "kafka",
                         "topic",
                         "a",
                         "properties.bootstrap.servers",
                         "h:1",
                         "format",
                         "debezium-json",
                         "scan.bounded.mode",
                         "latest-offset"};
    table = make_keyed_table("t", TWO_COLUMNS, 2, cdc, OPTION_COUNT(cdc), NULL);
    ck_assert_int_eq(kafka->source_changelog(table), SOURCE_CHANGELOG_ALL);
    ck_assert_int_eq(connector_sink_changelog(kafka, table), SINK_CHANGELOG_ALL);
    ck_assert(kafka->is_bounded(table));
    ck_assert_int_eq(upsert_kafka->source_changelog(table), SOURCE_CHANGELOG_UPSERT);
    ck_assert_int_eq(connector_sink_changelog(upsert_kafka, table), SINK_CHANGELOG_UPSERT);
    catalog_table_free(table);
    table = make_keyed_table("t", TWO_COLUMNS, 2, ok, OPTION_COUNT(ok), NULL);
    ck_assert_int_eq(kafka->source_changelog(table), SOURCE_CHANGELOG_INSERT_ONLY);
    ck_assert_int_eq(connector_sink_changelog(kafka, table), SINK_CHANGELOG_INSERT_ONLY);
    ck_assert(!kafka->is_bounded(table));
    catalog_table_free(table);
}
END_TEST

/* ------------------------------------------------------------ SASL JAAS */

/* The librdkafka configuration of a kafka table with these extra options; NULL on error. */
static rd_kafka_conf_t *jaas_conf(const char *mechanism, const char *jaas, const char *extra_key,
                                  const char *extra_value, Diag *diag)
{
    const char *options[] = {"connector",
                             "kafka",
                             "topic",
                             "a",
                             "properties.bootstrap.servers",
                             "h:1",
                             "format",
                             "json",
                             "properties.security.protocol",
                             "SASL_PLAINTEXT",
                             "properties.sasl.jaas.config",
                             jaas,
                             mechanism ? "properties.sasl.mechanism" : "properties.client.id",
                             mechanism ? mechanism : "c",
                             extra_key ? extra_key : "properties.acks",
                             extra_key ? extra_value : "all"};
    CatalogTable *table =
        make_keyed_table("t", TWO_COLUMNS, 2, options, OPTION_COUNT(options), NULL);
    diag_clear(diag);
    rd_kafka_conf_t *conf = NULL;
    if (kafka_make_conf(table, true, &conf, diag) != JOINERY_OK)
        conf = NULL;
    catalog_table_free(table);
    return conf;
}

static void assert_conf_string(const rd_kafka_conf_t *conf, const char *name, const char *expected)
{
    char value[512];
    size_t size = sizeof value;
    ck_assert_int_eq(rd_kafka_conf_get(conf, name, value, &size), RD_KAFKA_CONF_OK);
    ck_assert_str_eq(value, expected);
}

START_TEST(test_sasl_jaas_config)
{
    Diag diag;
    /* Flink's documented PLAIN login, as users write it */
    rd_kafka_conf_t *conf =
        jaas_conf("PLAIN",
                  "org.apache.kafka.common.security.plain.PlainLoginModule required "
                  "username=\"u\" password=\"p\";",
                  NULL, NULL, &diag);
    ck_assert_msg(conf != NULL, "%s", diag.message);
    assert_conf_string(conf, "sasl.username", "u");
    assert_conf_string(conf, "sasl.password", "p");
    assert_conf_string(conf, "sasl.mechanisms", "PLAIN");
    assert_conf_string(conf, "security.protocol", "sasl_plaintext");
    rd_kafka_conf_destroy(conf);
    /* SCRAM, Flink's shaded class name, escapes, unquoted words, comments, other flags */
    conf = jaas_conf("SCRAM-SHA-512",
                     "org.apache.flink.kafka.shaded.org.apache.kafka.common.security.scram."
                     "ScramLoginModule  optional /* who */ username=alice\n"
                     "  password=\"a \\\"quoted\\\" \\\\ pass\" ; ",
                     NULL, NULL, &diag);
    ck_assert_msg(conf != NULL, "%s", diag.message);
    assert_conf_string(conf, "sasl.username", "alice");
    assert_conf_string(conf, "sasl.password", "a \"quoted\" \\ pass");
    assert_conf_string(conf, "sasl.mechanisms", "SCRAM-SHA-512");
    rd_kafka_conf_destroy(conf);
    /* errors: each names what is wrong and never shows the password */
    static const struct {
        const char *mechanism;
        const char *jaas;
        const char *extra_key;
        const char *message;
    } BAD[] = {
        {NULL,
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
         "password=\"hunter2\";",
         NULL, "not set (Kafka's default: GSSAPI)"},
        {"SCRAM-SHA-256",
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
         "password=\"hunter2\";",
         NULL, "needs 'properties.sasl.mechanism' = 'PLAIN', but it is 'SCRAM-SHA-256'"},
        {"PLAIN",
         "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
         "password=\"hunter2\";",
         NULL, "'SCRAM-SHA-256' or 'SCRAM-SHA-512'"},
        {"GSSAPI",
         "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true "
         "keyTab=\"hunter2\";",
         NULL, "Unsupported login module 'com.sun.security.auth.module.Krb5LoginModule'"},
        {"PLAIN", "hunter2", NULL, "does not start with a login module class"},
        {"PLAIN",
         "org.apache.kafka.common.security.plain.PlainLoginModule username=\"u\" "
         "password=\"hunter2\";",
         NULL, "control flag"},
        {"PLAIN",
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
         "password=\"hunter2\"",
         NULL, "does not end with ';'"},
        {"PLAIN",
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
         "password=\"hunter2;",
         NULL, "unterminated"},
        {"PLAIN",
         "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"hunter2\";",
         NULL, "username is missing"},
        {"PLAIN",
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
         "password=\"hunter2\"; org.apache.kafka.common.security.plain.PlainLoginModule "
         "required username=\"v\" password=\"hunter2\";",
         NULL, "more than one login module"},
        {"SCRAM-SHA-256",
         "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
         "password=\"hunter2\" tokenauth=\"true\";",
         NULL, "tokenauth=true"},
        {"PLAIN",
         "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
         "password=\"hunter2\";",
         "properties.sasl.password", "both give the SASL login"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        conf = jaas_conf(BAD[i].mechanism, BAD[i].jaas, BAD[i].extra_key, "hunter2", &diag);
        ck_assert_msg(conf == NULL, "case %zu accepted", i);
        ck_assert_msg(strstr(diag.message, BAD[i].message) != NULL, "case %zu: %s", i,
                      diag.message);
        ck_assert_msg(strstr(diag.message, "hunter2") == NULL, "case %zu: %s", i, diag.message);
    }
}
END_TEST

START_TEST(test_metadata_validation)
{
    Diag diag;
    const char *options[] = {"connector",
                             "kafka",
                             "topic",
                             "a",
                             "properties.bootstrap.servers",
                             "h:1",
                             "format",
                             "json",
                             "scan.startup.mode",
                             "earliest-offset"};
    TestColumn good[] = {{"id", bigint_type(), NULL},
                         {"o", bigint_type(), "offset"},
                         {"p", type_make(TYPE_INT, false), "partition"},
                         {"ts", type_make_timestamp(TYPE_TIMESTAMP_LTZ, 3, true), "timestamp"},
                         {"topic", string_type(), "topic"}};
    CatalogTable *table = make_keyed_table("t", good, 5, options, OPTION_COUNT(options), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_OK);
    catalog_table_free(table);
    /* headers: MAP<STRING, BYTES> only */
    TestColumn headers[] = {{"id", bigint_type(), NULL}, {"h", string_type(), "headers"}};
    table = make_keyed_table("t", headers, 2, options, OPTION_COUNT(options), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "MAP<STRING, BYTES>"));
    catalog_table_free(table);
    DataType bytes = type_make_binary(TYPE_VARBINARY, TYPE_STRING_LENGTH, true);
    TestColumn map_headers[] = {{"id", bigint_type(), NULL},
                                {"h", type_make_map(string_type(), bytes, false), "headers"}};
    table = make_keyed_table("t", map_headers, 2, options, OPTION_COUNT(options), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_OK);
    catalog_table_free(table);
    TestColumn string_headers[] = {
        {"id", bigint_type(), NULL},
        {"h", type_make_map(string_type(), string_type(), false), "headers"}};
    table = make_keyed_table("t", string_headers, 2, options, OPTION_COUNT(options), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    catalog_table_free(table);
    TestColumn wrong[] = {{"id", bigint_type(), NULL}, {"o", string_type(), "offset"}};
    table = make_keyed_table("t", wrong, 2, options, OPTION_COUNT(options), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'offset'"));
    catalog_table_free(table);
    TestColumn unknown[] = {{"id", bigint_type(), NULL}, {"x", string_type(), "value.source.db"}};
    table = make_keyed_table("t", unknown, 2, options, OPTION_COUNT(options), NULL);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "value.source.db"));
    catalog_table_free(table);
}
END_TEST

/* ------------------------------------------------------------ formats */

static FormatDecoder *two_field_decoder(FormatKind kind, bool schema_include)
{
    FormatOptions options;
    format_options_init(&options, kind);
    options.schema_include = schema_include;
    const char *names[] = {"id", "name"};
    DataType types[] = {bigint_type(), string_type()};
    FormatDecoder *decoder = format_decoder_create(&options, 2, names, types);
    ck_assert_ptr_nonnull(decoder);
    return decoder;
}

/* Decodes and renders the rows as "+I 1 a|-U 1 a|..." (NULL as "null"). */
static int decode_text(FormatDecoder *decoder, const char *record, char *out, size_t size,
                       char *error)
{
    uint32_t count = 0;
    int status = format_decode_changelog(decoder, record, strlen(record), &count, error, 256);
    out[0] = '\0';
    for (uint32_t i = 0; status == FORMAT_RECORD_ROW && i < count; i++) {
        RowKind kind;
        const Value *values = format_decoded_row(decoder, i, &kind);
        char id[32];
        if (values[0].is_null)
            snprintf(id, sizeof id, "null");
        else
            snprintf(id, sizeof id, "%lld", (long long)values[0].i);
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s %s %.*s", i ? "|" : "", row_kind_name(kind), id,
                 values[1].is_null ? 4 : (int)values[1].s.len,
                 values[1].is_null ? "null" : values[1].s.ptr);
    }
    return status;
}

START_TEST(test_debezium_decoding)
{
    FormatDecoder *decoder = two_field_decoder(FORMAT_KIND_DEBEZIUM_JSON, false);
    char out[512], error[256];
    ck_assert_int_eq(
        decode_text(decoder,
                    "{\"before\":null,\"after\":{\"id\":1,\"name\":\"a\"},\"op\":\"c\","
                    "\"source\":{\"db\":\"x\"},\"ts_ms\":1}",
                    out, sizeof out, error),
        FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "+I 1 a");
    ck_assert_int_eq(decode_text(decoder,
                                 "{\"before\":{\"id\":1,\"name\":\"a\"},\"after\":{\"id\":1,"
                                 "\"name\":\"b\\\"q\"},\"op\":\"u\"}",
                                 out, sizeof out, error),
                     FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "-U 1 a|+U 1 b\"q");
    ck_assert_int_eq(decode_text(decoder, "{\"before\":{\"id\":2,\"name\":null},\"op\":\"d\"}", out,
                                 sizeof out, error),
                     FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "-D 2 null");
    ck_assert_int_eq(
        decode_text(decoder, "{\"after\":{\"id\":3},\"op\":\"r\"}", out, sizeof out, error),
        FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "+I 3 null");
    ck_assert_int_eq(decode_text(decoder, "", out, sizeof out, error), FORMAT_RECORD_EMPTY);
    ck_assert_int_eq(decode_text(decoder, "{\"before\":null,\"after\":{\"id\":1},\"op\":\"u\"}",
                                 out, sizeof out, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "REPLICA IDENTITY"));
    ck_assert_int_eq(
        decode_text(decoder, "{\"after\":{\"id\":1},\"op\":\"x\"}", out, sizeof out, error),
        JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "Unknown \"op\""));
    ck_assert_int_eq(
        decode_text(decoder, "{\"after\":{\"id\":\"abc\"},\"op\":\"c\"}", out, sizeof out, error),
        JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "in \"after\": field 'id'"));
    ck_assert_int_eq(decode_text(decoder, "{\"after\":{\"id\":1}", out, sizeof out, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "malformed JSON"));
    ck_assert_int_eq(decode_text(decoder, "{\"after\":{\"id\":1}}", out, sizeof out, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "'op'"));
    ck_assert_int_eq(
        decode_text(decoder, "{\"schema\":{},\"payload\":{\"op\":\"c\"}}", out, sizeof out, error),
        JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "schema-include"));
    format_decoder_free(decoder);

    decoder = two_field_decoder(FORMAT_KIND_DEBEZIUM_JSON, true);
    ck_assert_int_eq(decode_text(decoder,
                                 "{\"schema\":{\"type\":\"struct\"},\"payload\":{\"before\":null,"
                                 "\"after\":{\"id\":9,\"name\":\"z\"},\"op\":\"c\"}}",
                                 out, sizeof out, error),
                     FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "+I 9 z");
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_canal_decoding)
{
    FormatDecoder *decoder = two_field_decoder(FORMAT_KIND_CANAL_JSON, false);
    char out[512], error[256];
    ck_assert_int_eq(decode_text(decoder,
                                 "{\"data\":[{\"id\":1,\"name\":\"a\"},{\"id\":2,\"name\":\"b\"}],"
                                 "\"database\":\"db\",\"table\":\"t\",\"type\":\"INSERT\"}",
                                 out, sizeof out, error),
                     FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "+I 1 a|+I 2 b");
    ck_assert_int_eq(decode_text(decoder,
                                 "{\"data\":[{\"id\":1,\"name\":\"c\"},{\"id\":2,\"name\":\"d\"}],"
                                 "\"old\":[{\"name\":\"a\"},{\"id\":7}],\"type\":\"UPDATE\"}",
                                 out, sizeof out, error),
                     FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "-U 1 a|+U 1 c|-U 7 d|+U 2 d");
    ck_assert_int_eq(
        decode_text(decoder, "{\"data\":[{\"id\":5}],\"type\":\"DELETE\"}", out, sizeof out, error),
        FORMAT_RECORD_ROW);
    ck_assert_str_eq(out, "-D 5 null");
    uint32_t count = 99;
    const char *ddl = "{\"data\":null,\"type\":\"CREATE\",\"isDdl\":true,\"sql\":\"CREATE TABLE\"}";
    ck_assert_int_eq(format_decode_changelog(decoder, ddl, strlen(ddl), &count, error, 256),
                     FORMAT_RECORD_ROW);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(
        decode_text(decoder, "{\"data\":[{\"id\":1}],\"type\":\"MERGE\"}", out, sizeof out, error),
        JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "Unknown \"type\""));
    ck_assert_int_eq(
        decode_text(decoder, "{\"data\":[{\"id\":1}],\"type\":\"UPDATE\"}", out, sizeof out, error),
        JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "'old'"));
    ck_assert_int_eq(decode_text(decoder,
                                 "{\"data\":[{\"id\":1},{\"id\":true}],\"type\":\"INSERT\"}", out,
                                 sizeof out, error),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(error, "\"data\"[1]"));
    ck_assert_int_eq(decode_text(decoder, "{\"data\":[{\"id\":1} {\"id\":2}],\"type\":\"INSERT\"}",
                                 out, sizeof out, error),
                     JOINERY_ERROR_RUNTIME);
    /* many elements grow the decoded rows */
    char big[8192];
    size_t used = (size_t)snprintf(big, sizeof big, "{\"type\":\"INSERT\",\"data\":[");
    for (int i = 0; i < 100; i++)
        used += (size_t)snprintf(big + used, sizeof big - used, "%s{\"id\":%d,\"name\":\"n%d\"}",
                                 i ? "," : "", i, i);
    snprintf(big + used, sizeof big - used, "]}");
    ck_assert_int_eq(format_decode_changelog(decoder, big, strlen(big), &count, error, 256),
                     FORMAT_RECORD_ROW);
    ck_assert_uint_eq(count, 100);
    RowKind kind;
    const Value *last = format_decoded_row(decoder, 99, &kind);
    ck_assert_int_eq(last[0].i, 99);
    ck_assert_int_eq(last[1].s.len, 3);
    ck_assert_int_eq(memcmp(last[1].s.ptr, "n99", 3), 0);
    format_decoder_free(decoder);
}
END_TEST

START_TEST(test_raw_and_encoding)
{
    FormatOptions options;
    format_options_init(&options, FORMAT_KIND_RAW);
    const char *name = "line";
    DataType type = string_type();
    FormatDecoder *decoder = format_decoder_create(&options, 1, &name, &type);
    Value value;
    char error[256];
    ck_assert_int_eq(format_decode(decoder, "a,b\r", 4, &value, error, sizeof error),
                     FORMAT_RECORD_ROW);
    ck_assert_uint_eq(value.s.len, 4); /* raw keeps every byte */
    format_decoder_free(decoder);
    Diag diag;
    diag_clear(&diag);
    DataType two[] = {bigint_type(), string_type()};
    ck_assert_int_eq(format_check_fields(FORMAT_KIND_RAW, 2, two, "t", &diag),
                     JOINERY_ERROR_VALIDATE);
    diag_clear(&diag);
    ck_assert_int_eq(format_check_fields(FORMAT_KIND_RAW, 1, two, "t", &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_int_eq(format_check_fields(FORMAT_KIND_JSON, 2, two, "t", &diag), JOINERY_OK);

    const char *names[] = {"id", "name"};
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 2, ROW_KIND_DELETE);
    row_builder_set_int64(&builder, 0, 4);
    row_builder_set_string(&builder, 1, "x", 1);
    Row *row = row_builder_finish(&builder);
    StrBuf out = STRBUF_INIT;
    format_options_init(&options, FORMAT_KIND_DEBEZIUM_JSON);
    FormatEncoder *encoder = format_encoder_create(&options, 2, names, two);
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_OK);
    ck_assert_str_eq(out.data,
                     "{\"before\":{\"id\":4,\"name\":\"x\"},\"after\":null,\"op\":\"d\"}");
    format_encoder_free(encoder);
    /* what debezium-json writes, it reads back */
    decoder = two_field_decoder(FORMAT_KIND_DEBEZIUM_JSON, false);
    char text[128];
    ck_assert_int_eq(decode_text(decoder, out.data, text, sizeof text, error), FORMAT_RECORD_ROW);
    ck_assert_str_eq(text, "-D 4 x");
    format_decoder_free(decoder);
    strbuf_clear(&out);
    row_set_kind(row, ROW_KIND_UPDATE_AFTER);
    format_options_init(&options, FORMAT_KIND_CANAL_JSON);
    encoder = format_encoder_create(&options, 2, names, two);
    ck_assert_int_eq(format_encode_row(encoder, row, &out), JOINERY_OK);
    ck_assert_str_eq(out.data, "{\"data\":[{\"id\":4,\"name\":\"x\"}],\"type\":\"INSERT\"}");
    format_encoder_free(encoder);
    strbuf_free(&out);
    row_builder_free(&builder);

    /* format option parsing for the new formats */
    const char *table_options[] = {"debezium-json.schema-include", "true",
                                   "debezium-json.ignore-parse-errors", "true"};
    CatalogTable *table = make_keyed_table("t", TWO_COLUMNS, 2, table_options, 2, NULL);
    diag_clear(&diag);
    ck_assert_int_eq(
        format_options_from_table(table, "", FORMAT_KIND_DEBEZIUM_JSON, &options, &diag),
        JOINERY_OK);
    ck_assert(options.schema_include);
    ck_assert(options.ignore_parse_errors);
    ck_assert_int_eq(format_options_from_table(table, "", FORMAT_KIND_CANAL_JSON, &options, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "does not apply"));
    catalog_table_free(table);
}
END_TEST

/* ------------------------------------------------------------ mock cluster round trip */

static rd_kafka_t *mock_handle;
static rd_kafka_mock_cluster_t *mock_cluster;
static char bootstrap[256];

static void setup_cluster(void)
{
    char error[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", error, sizeof error);
    mock_handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
    ck_assert_ptr_nonnull(mock_handle);
    mock_cluster = rd_kafka_mock_cluster_new(mock_handle, 1);
    ck_assert_ptr_nonnull(mock_cluster);
    snprintf(bootstrap, sizeof bootstrap, "%s", rd_kafka_mock_cluster_bootstraps(mock_cluster));
    ck_assert_int_eq(rd_kafka_mock_topic_create(mock_cluster, "rows", 3, 1), 0);
    ck_assert_int_eq(rd_kafka_mock_topic_create(mock_cluster, "bad", 2, 1), 0);
    ck_assert_int_eq(rd_kafka_mock_topic_create(mock_cluster, "upserts", 2, 1), 0);
    ck_assert_int_eq(rd_kafka_mock_topic_create(mock_cluster, "resume", 2, 1), 0);
    ck_assert_int_eq(rd_kafka_mock_topic_create(mock_cluster, "eos", 1, 1), 0);
}

static void teardown_cluster(void)
{
    rd_kafka_mock_cluster_destroy(mock_cluster);
    rd_kafka_destroy(mock_handle);
}

/* Produces records (value NULL: tombstone) to one partition with a plain producer. */
static void produce(const char *topic, int32_t partition, const char *key, const char *value)
{
    char error[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, error, sizeof error);
    rd_kafka_conf_set(conf, "log_level", "0", error, sizeof error);
    rd_kafka_t *producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
    ck_assert_ptr_nonnull(producer);
    ck_assert_int_eq(
        rd_kafka_producev(
            producer, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key ? strlen(key) : 0),
            RD_KAFKA_V_VALUE((void *)value, value ? strlen(value) : 0), RD_KAFKA_V_END),
        0);
    ck_assert_int_eq(rd_kafka_flush(producer, 10000), 0);
    rd_kafka_destroy(producer);
}

typedef struct Collected {
    char lines[64][160];
    int count;
    uint64_t skipped;
} Collected;

/* Reads a table to its end with a reader of `subtask` of `parallelism`. */
static int read_table(const CatalogTable *table, int subtask, int parallelism, Collected *out,
                      Diag *diag)
{
    SourceSpec spec;
    uint32_t columns[8];
    DataType types[8];
    for (size_t i = 0; i < table->column_count; i++) {
        columns[i] = (uint32_t)i;
        types[i] = table->columns[i].type;
    }
    memset(&spec, 0, sizeof spec);
    spec.table = table;
    spec.field_count = (uint32_t)table->column_count;
    spec.columns = columns;
    spec.types = types;
    spec.subtask_index = subtask;
    spec.parallelism = parallelism;
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    SourceReader *reader = NULL;
    diag_clear(diag);
    int status = connector->create_source(&spec, &reader, diag);
    if (status != JOINERY_OK)
        return status;
    Row *slots[ROW_BATCH_CAPACITY];
    Arena arena;
    arena_init(&arena, 0);
    int64_t now = 0;
    for (int polls = 0; polls < 200000; polls++) {
        RowBatch batch = {slots, 0, 4}; /* small batches exercise pending rows */
        int64_t next = 0;
        status = reader->vtable->poll(reader, &batch, &arena, 4, now++, &next, diag);
        if (status < 0 || status == SOURCE_POLL_END)
            break;
        for (uint32_t r = 0; r < batch.count && out->count < 64; r++) {
            const Row *row = batch.rows[r];
            char *line = out->lines[out->count++];
            int used = snprintf(line, 160, "%s", row_kind_name(row_kind(row)));
            for (uint32_t f = 0; f < row_field_count(row); f++) {
                Value value = value_from_row(row, f, types[f]);
                if (value.is_null)
                    used += snprintf(line + used, 160 - (size_t)used, " null");
                else if (type_is_string(types[f].id))
                    used += snprintf(line + used, 160 - (size_t)used, " %.*s", (int)value.s.len,
                                     value.s.ptr);
                else
                    used += snprintf(line + used, 160 - (size_t)used, " %lld", (long long)value.i);
            }
        }
        arena_reset(&arena);
        if (status == SOURCE_POLL_IDLE)
            usleep(1000);
    }
    out->skipped = reader->skipped_rows;
    arena_destroy(&arena);
    reader->vtable->close(reader);
    return status;
}

static int compare_lines(const void *a, const void *b)
{
    return strcmp(a, b);
}

START_TEST(test_round_trip)
{
    /* sink: 9 rows, round-robin over the 3 partitions */
    const char *sink_options[] = {"connector",
                                  "kafka",
                                  "topic",
                                  "rows",
                                  "properties.bootstrap.servers",
                                  bootstrap,
                                  "format",
                                  "json",
                                  "key.format",
                                  "json",
                                  "key.fields",
                                  "id",
                                  "sink.partitioner",
                                  "round-robin"};
    CatalogTable *sink_table =
        make_keyed_table("sink", TWO_COLUMNS, 2, sink_options, OPTION_COUNT(sink_options), NULL);
    DataType types[] = {bigint_type(), string_type()};
    const char *names[] = {"EXPR$0", "EXPR$1"}; /* query names: the table's are written */
    SinkSpec sink_spec = {sink_table, 2, types, names, NULL, NULL, NULL};
    SinkWriter *writer = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("kafka")->create_sink(&sink_spec, &writer, &diag), JOINERY_OK);
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 0);
    Row *rows[9];
    for (int i = 0; i < 9; i++) {
        char text[16];
        snprintf(text, sizeof text, "n%d", i);
        row_builder_begin(&builder, 2, ROW_KIND_INSERT);
        row_builder_set_int64(&builder, 0, i);
        row_builder_set_string(&builder, 1, text, (uint32_t)strlen(text));
        rows[i] = row_copy(&arena, row_builder_finish(&builder));
    }
    RowBatch batch = {rows, 9, 9};
    ck_assert_int_eq(writer->vtable->write(writer, &batch, &diag), JOINERY_OK);
    ck_assert_int_eq(writer->vtable->finish(writer, &diag), JOINERY_OK);
    ck_assert_uint_eq(writer->rows_written, 9);
    /* an update row is refused with the upsert-kafka hint */
    row_set_kind(rows[0], ROW_KIND_UPDATE_AFTER);
    RowBatch update = {rows, 1, 1};
    ck_assert_int_eq(writer->vtable->write(writer, &update, &diag), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "upsert-kafka"));
    writer->vtable->close(writer);
    catalog_table_free(sink_table);

    /* bounded source, two readers: together exactly the rows, with metadata */
    const char *source_options[] = {"connector",
                                    "kafka",
                                    "topic",
                                    "rows",
                                    "properties.bootstrap.servers",
                                    bootstrap,
                                    "properties.group.id",
                                    "check",
                                    "format",
                                    "json",
                                    "scan.startup.mode",
                                    "earliest-offset",
                                    "scan.bounded.mode",
                                    "latest-offset"};
    TestColumn columns[] = {{"id", bigint_type(), NULL},
                            {"name", string_type(), NULL},
                            {"t", string_type(), "topic"},
                            {"p", type_make(TYPE_INT, true), "partition"}};
    CatalogTable *table =
        make_keyed_table("rows", columns, 4, source_options, OPTION_COUNT(source_options), NULL);
    Collected *all = calloc(1, sizeof *all);
    Collected *part = calloc(1, sizeof *part);
    for (int subtask = 0; subtask < 2; subtask++) {
        memset(part, 0, sizeof *part);
        ck_assert_int_eq(read_table(table, subtask, 2, part, &diag), SOURCE_POLL_END);
        for (int i = 0; i < part->count; i++)
            memcpy(all->lines[all->count++], part->lines[i], 160);
    }
    ck_assert_int_eq(all->count, 9);
    qsort(all->lines, (size_t)all->count, sizeof all->lines[0], compare_lines);
    for (int i = 0; i < 9; i++) {
        char expected[64];
        snprintf(expected, sizeof expected, "+I %d n%d rows %d", i, i, i % 3);
        ck_assert_str_eq(all->lines[i], expected);
    }
    /* the positions were committed: group-offsets now starts at the end */
    catalog_table_free(table);
    const char *group_options[] = {"connector",
                                   "kafka",
                                   "topic",
                                   "rows",
                                   "properties.bootstrap.servers",
                                   bootstrap,
                                   "properties.group.id",
                                   "check",
                                   "format",
                                   "json",
                                   "scan.startup.mode",
                                   "group-offsets",
                                   "scan.bounded.mode",
                                   "latest-offset"};
    table = make_keyed_table("rows", columns, 4, group_options, OPTION_COUNT(group_options), NULL);
    memset(all, 0, sizeof *all);
    ck_assert_int_eq(read_table(table, 0, 1, all, &diag), SOURCE_POLL_END);
    ck_assert_int_eq(all->count, 0);
    catalog_table_free(table);
    /* specific offsets: partition 1 from offset 2 to its end (3 rows: 1, 4, 7) */
    const char *specific_options[] = {"connector",
                                      "kafka",
                                      "topic",
                                      "rows",
                                      "properties.bootstrap.servers",
                                      bootstrap,
                                      "format",
                                      "json",
                                      "scan.startup.mode",
                                      "specific-offsets",
                                      "scan.startup.specific-offsets",
                                      "partition:0,offset:3;partition:1,offset:2;partition:2,"
                                      "offset:3",
                                      "scan.bounded.mode",
                                      "latest-offset"};
    table = make_keyed_table("rows", columns, 4, specific_options, OPTION_COUNT(specific_options),
                             NULL);
    memset(all, 0, sizeof *all);
    ck_assert_int_eq(read_table(table, 0, 1, all, &diag), SOURCE_POLL_END);
    ck_assert_int_eq(all->count, 1);
    ck_assert_str_eq(all->lines[0], "+I 7 n7 rows 1");
    catalog_table_free(table);
    free(all);
    free(part);
    arena_destroy(&arena);
    row_builder_free(&builder);
}
END_TEST

START_TEST(test_bad_records)
{
    produce("bad", 0, NULL, "{\"id\":1,\"name\":\"ok\"}");
    produce("bad", 0, NULL, "{\"id\":\"x\",\"name\":\"wrong type\"}");
    produce("bad", 1, NULL, "{\"id\":2,");
    produce("bad", 1, NULL, NULL); /* a tombstone: no row for a plain kafka table */
    char large[3000];
    memset(large, 'a', sizeof large);
    memcpy(large, "{\"id\":3,\"name\":\"", 16);
    memcpy(large + sizeof large - 3, "\"}", 3);
    produce("bad", 1, NULL, large);
    const char *options[] = {"connector",
                             "kafka",
                             "topic",
                             "bad",
                             "properties.bootstrap.servers",
                             bootstrap,
                             "format",
                             "json",
                             "scan.startup.mode",
                             "earliest-offset",
                             "scan.bounded.mode",
                             "latest-offset",
                             "properties.message.max.bytes",
                             "2000"};
    CatalogTable *table =
        make_keyed_table("bad", TWO_COLUMNS, 2, options, OPTION_COUNT(options), NULL);
    Collected *got = calloc(1, sizeof *got);
    Diag diag;
    ck_assert_int_eq(read_table(table, 0, 1, got, &diag), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "topic 'bad'"));
    ck_assert_ptr_nonnull(strstr(diag.message, "offset"));
    ck_assert(strstr(diag.message, "partition 0, offset 1") ||
              strstr(diag.message, "partition 1, offset 0"));
    catalog_table_free(table);
    const char *skipping[] = {"connector",
                              "kafka",
                              "topic",
                              "bad",
                              "properties.bootstrap.servers",
                              bootstrap,
                              "format",
                              "json",
                              "scan.startup.mode",
                              "earliest-offset",
                              "scan.bounded.mode",
                              "latest-offset",
                              "properties.message.max.bytes",
                              "2000",
                              "json.ignore-parse-errors",
                              "true"};
    table = make_keyed_table("bad", TWO_COLUMNS, 2, skipping, OPTION_COUNT(skipping), NULL);
    memset(got, 0, sizeof *got);
    ck_assert_int_eq(read_table(table, 0, 1, got, &diag), SOURCE_POLL_END);
    ck_assert_int_eq(got->count, 1);
    ck_assert_str_eq(got->lines[0], "+I 1 ok");
    ck_assert_uint_eq(got->skipped, 3); /* wrong type, malformed, too large */
    catalog_table_free(table);
    free(got);
}
END_TEST

START_TEST(test_upsert_round_trip)
{
    const char *options[] = {"connector",
                             "upsert-kafka",
                             "topic",
                             "upserts",
                             "properties.bootstrap.servers",
                             bootstrap,
                             "key.format",
                             "json",
                             "value.format",
                             "json",
                             "value.fields-include",
                             "EXCEPT_KEY",
                             "scan.bounded.mode",
                             "latest-offset"};
    CatalogTable *table =
        make_keyed_table("u", TWO_COLUMNS, 2, options, OPTION_COUNT(options), "id");
    DataType types[] = {bigint_type(), string_type()};
    const char *names[] = {"id", "name"};
    SinkSpec sink_spec = {table, 2, types, names, NULL, NULL, NULL};
    SinkWriter *writer = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("upsert-kafka")->create_sink(&sink_spec, &writer, &diag),
                     JOINERY_OK);
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 0);
    const struct {
        RowKind kind;
        int id;
        const char *name;
    } changes[] = {{ROW_KIND_INSERT, 1, "a"},
                   {ROW_KIND_UPDATE_BEFORE, 1, "a"},
                   {ROW_KIND_UPDATE_AFTER, 1, "b"},
                   {ROW_KIND_INSERT, 2, "c"},
                   {ROW_KIND_DELETE, 2, "c"}};
    Row *rows[5];
    for (int i = 0; i < 5; i++) {
        row_builder_begin(&builder, 2, changes[i].kind);
        row_builder_set_int64(&builder, 0, changes[i].id);
        row_builder_set_string(&builder, 1, changes[i].name, 1);
        rows[i] = row_copy(&arena, row_builder_finish(&builder));
    }
    RowBatch batch = {rows, 5, 5};
    ck_assert_int_eq(writer->vtable->write(writer, &batch, &diag), JOINERY_OK);
    ck_assert_int_eq(writer->vtable->finish(writer, &diag), JOINERY_OK);
    ck_assert_uint_eq(writer->rows_written, 4); /* -U is not written */
    writer->vtable->close(writer);
    Collected *got = calloc(1, sizeof *got);
    ck_assert_int_eq(read_table(table, 0, 1, got, &diag), SOURCE_POLL_END);
    ck_assert_int_eq(got->count, 4);
    qsort(got->lines, (size_t)got->count, sizeof got->lines[0], compare_lines);
    ck_assert_str_eq(got->lines[0], "+U 1 a");
    ck_assert_str_eq(got->lines[1], "+U 1 b");
    ck_assert_str_eq(got->lines[2], "+U 2 c");
    ck_assert_str_eq(got->lines[3], "-D 2 null"); /* the tombstone: key only */
    free(got);
    catalog_table_free(table);
    arena_destroy(&arena);
    row_builder_free(&builder);
}
END_TEST

/* Polls `reader` until `want` rows came (or its end), as lines "id name" into out. */
static int poll_rows(SourceReader *reader, int want, Collected *out, Diag *diag)
{
    Row *slots[ROW_BATCH_CAPACITY];
    Arena arena;
    arena_init(&arena, 0);
    int status = JOINERY_OK;
    DataType types[] = {bigint_type(), string_type()};
    for (int polls = 0; polls < 200000 && out->count < want; polls++) {
        RowBatch batch = {slots, 0, 3};
        int64_t next = 0;
        status = reader->vtable->poll(reader, &batch, &arena, 3, polls, &next, diag);
        if (status < 0 || status == SOURCE_POLL_END)
            break;
        for (uint32_t r = 0; r < batch.count && out->count < 64; r++) {
            Value id = value_from_row(batch.rows[r], 0, types[0]);
            Value name = value_from_row(batch.rows[r], 1, types[1]);
            snprintf(out->lines[out->count++], 160, "%lld %.*s", (long long)id.i, (int)name.s.len,
                     name.s.ptr);
        }
        arena_reset(&arena);
        if (status == SOURCE_POLL_IDLE)
            usleep(1000);
    }
    arena_destroy(&arena);
    return status;
}

/* A reader restored from another's position goes on with exactly the next rows. */
START_TEST(test_resume_position)
{
    for (int i = 0; i < 10; i++) {
        char value[64];
        snprintf(value, sizeof value, "{\"id\":%d,\"name\":\"n%d\"}", i, i);
        produce("resume", i % 2, NULL, value);
    }
    const char *options[] = {"connector",
                             "kafka",
                             "topic",
                             "resume",
                             "properties.bootstrap.servers",
                             bootstrap,
                             "format",
                             "json",
                             "scan.startup.mode",
                             "earliest-offset",
                             "scan.bounded.mode",
                             "latest-offset"};
    CatalogTable *table =
        make_keyed_table("resume", TWO_COLUMNS, 2, options, OPTION_COUNT(options), NULL);
    SourceSpec spec;
    uint32_t columns[] = {0, 1};
    DataType types[] = {bigint_type(), string_type()};
    memset(&spec, 0, sizeof spec);
    spec.table = table;
    spec.field_count = 2;
    spec.columns = columns;
    spec.types = types;
    spec.parallelism = 1;
    Diag diag;
    diag_clear(&diag);
    SourceReader *first = NULL, *second = NULL;
    ck_assert_int_eq(connector_find("kafka")->create_source(&spec, &first, &diag), JOINERY_OK);
    Collected before = {0}, after = {0};
    poll_rows(first, 4, &before, &diag);
    ck_assert_int_ge(before.count, 4);
    SnapshotBuffer position = {0};
    StateWriter writer = snapshot_buffer_writer(&position);
    ck_assert_int_eq(first->vtable->snapshot_position(first, &writer), JOINERY_OK);
    first->vtable->close(first); /* not stopped cleanly: nothing committed */
    ck_assert_int_eq(connector_find("kafka")->create_source(&spec, &second, &diag), JOINERY_OK);
    StateReader reader = snapshot_buffer_reader(&position);
    ck_assert_msg(second->vtable->restore_position(second, &reader, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_int_eq(poll_rows(second, 64, &after, &diag), SOURCE_POLL_END);
    second->vtable->close(second);
    snapshot_buffer_free(&position);
    /* together every record once */
    Collected all = before;
    for (int i = 0; i < after.count; i++)
        memcpy(all.lines[all.count++], after.lines[i], 160);
    ck_assert_int_eq(all.count, 10);
    qsort(all.lines, (size_t)all.count, sizeof all.lines[0], compare_lines);
    for (int i = 0; i < 10; i++) {
        char expected[32];
        snprintf(expected, sizeof expected, "%d n%d", i, i);
        ck_assert_str_eq(all.lines[i], expected);
    }
    catalog_table_free(table);
}
END_TEST

/* ------------------------------------------------------------ exactly-once sink */

START_TEST(test_exactly_once_validation)
{
    Diag diag;
    const char *no_prefix[] = {"connector",
                               "kafka",
                               "topic",
                               "t",
                               "properties.bootstrap.servers",
                               "h:1",
                               "format",
                               "json",
                               "sink.delivery-guarantee",
                               "exactly-once"};
    ck_assert_int_eq(validate(no_prefix, OPTION_COUNT(no_prefix), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_str_eq(diag.message, "sink.transactional-id-prefix must be specified when using "
                                   "DeliveryGuarantee.EXACTLY_ONCE.");
    const char *with_prefix[] = {"connector",
                                 "kafka",
                                 "topic",
                                 "t",
                                 "properties.bootstrap.servers",
                                 "h:1",
                                 "format",
                                 "json",
                                 "sink.delivery-guarantee",
                                 "EXACTLY_ONCE",
                                 "sink.transactional-id-prefix",
                                 "job-a"};
    ck_assert_int_eq(validate(with_prefix, OPTION_COUNT(with_prefix), NULL, &diag), JOINERY_OK);
    const char *bad_value[] = {"connector",
                               "kafka",
                               "topic",
                               "t",
                               "properties.bootstrap.servers",
                               "h:1",
                               "format",
                               "json",
                               "sink.delivery-guarantee",
                               "twice"};
    ck_assert_int_eq(validate(bad_value, OPTION_COUNT(bad_value), NULL, &diag),
                     JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(
        strstr(diag.message, "Could not parse value 'twice' for key 'sink.delivery-guarantee'"));
    const char *upsert[] = {"connector",
                            "upsert-kafka",
                            "topic",
                            "t",
                            "properties.bootstrap.servers",
                            "h:1",
                            "key.format",
                            "json",
                            "value.format",
                            "json",
                            "sink.delivery-guarantee",
                            "exactly-once"};
    ck_assert_int_eq(validate(upsert, OPTION_COUNT(upsert), "id", &diag),
                     JOINERY_ERROR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(diag.message, "'kafka' connector only"));
}
END_TEST

/* An exactly-once sink of (id, name) into topic "eos" with transactional-id prefix `prefix`. */
static CatalogTable *make_eos_table(const char *prefix)
{
    const char *options[] = {"connector",
                             "kafka",
                             "topic",
                             "eos",
                             "properties.bootstrap.servers",
                             bootstrap,
                             "format",
                             "json",
                             "sink.delivery-guarantee",
                             "exactly-once",
                             "sink.transactional-id-prefix",
                             prefix};
    return make_keyed_table("eos_sink", TWO_COLUMNS, 2, options, OPTION_COUNT(options), NULL);
}

/* Writes rows first .. first + count - 1 to `writer`. */
static int write_rows(SinkWriter *writer, int first, int count, Diag *diag)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Arena arena;
    arena_init(&arena, 0);
    Row *rows[16];
    for (int i = 0; i < count; i++) {
        char text[16];
        snprintf(text, sizeof text, "n%d", first + i);
        row_builder_begin(&builder, 2, ROW_KIND_INSERT);
        row_builder_set_int64(&builder, 0, first + i);
        row_builder_set_string(&builder, 1, text, (uint32_t)strlen(text));
        rows[i] = row_copy(&arena, row_builder_finish(&builder));
    }
    RowBatch batch = {rows, (uint32_t)count, (uint32_t)count};
    int status = writer->vtable->write(writer, &batch, diag);
    arena_destroy(&arena);
    row_builder_free(&builder);
    return status;
}

/*
 * The barrier of checkpoint `id`: flush, then prepare_commit (as op_sink does); returns the
 * pending checkpoint id the snapshot holds, and the snapshot in *snapshot when it is not
 * NULL (the caller frees it). The snapshot: pending id, lineage, record count, the records'
 * length and the records.
 */
static int64_t barrier_snapshot(SinkWriter *writer, int64_t id, SnapshotBuffer *snapshot,
                                Diag *diag)
{
    SnapshotBuffer buffer = {0};
    StateWriter out = snapshot_buffer_writer(&buffer);
    ck_assert_int_eq(writer->vtable->flush(writer, diag), JOINERY_OK);
    ck_assert_msg(writer->vtable->prepare_commit(writer, id, &out, diag) == JOINERY_OK, "%s",
                  diag->message);
    StateReader in = snapshot_buffer_reader(&buffer);
    int64_t pending = -1, lineage = 0, count = -1, length = -1;
    ck_assert_int_eq(byte_read_int64(&in, &pending), JOINERY_OK);
    ck_assert_int_eq(byte_read_int64(&in, &lineage), JOINERY_OK);
    ck_assert_int_eq(byte_read_int64(&in, &count), JOINERY_OK);
    ck_assert_int_eq(byte_read_int64(&in, &length), JOINERY_OK);
    ck_assert_int_ne(lineage, 0);
    ck_assert_uint_eq(buffer.read_offset + (size_t)length, buffer.length); /* the whole state */
    KafkaTransactionCounts counts;
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_int_eq(counts.pending_checkpoint, pending);
    ck_assert_int_eq(counts.kept_records, count); /* every record of the open transaction */
    ck_assert_int_eq(pending == 0, count == 0);
    buffer.read_offset = 0;
    if (snapshot)
        *snapshot = buffer;
    else
        snapshot_buffer_free(&buffer);
    return pending;
}

static int64_t barrier(SinkWriter *writer, int64_t id, Diag *diag)
{
    return barrier_snapshot(writer, id, NULL, diag);
}

START_TEST(test_exactly_once_transactions)
{
    CatalogTable *table = make_eos_table("check-eos");
    DataType types[] = {bigint_type(), string_type()};
    const char *names[] = {"id", "name"};
    SinkSpec spec = {table, 2, types, names, NULL, NULL, NULL};
    SinkWriter *writer = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_find("kafka")->create_sink(&spec, &writer, &diag) == JOINERY_OK, "%s",
                  diag.message);
    ck_assert_ptr_nonnull(writer->vtable->prepare_commit);
    KafkaTransactionCounts counts;
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.begun, 0); /* a transaction begins at the first record */
    /* a barrier with nothing written: nothing pending */
    ck_assert_int_eq(barrier(writer, 1, &diag), 0);
    ck_assert_int_eq(write_rows(writer, 0, 3, &diag), JOINERY_OK);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.begun, 1);
    ck_assert_int_eq(barrier(writer, 2, &diag), 2);
    /* after the barrier, before checkpoint 2 completes: held, no new transaction */
    ck_assert_int_eq(write_rows(writer, 3, 2, &diag), JOINERY_OK);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.begun, 1);
    ck_assert_uint_eq(counts.held_records, 2);
    ck_assert_uint_eq(counts.committed, 0);
    ck_assert_int_eq(counts.pending_checkpoint, 2);
    /* completion of an older checkpoint commits nothing */
    ck_assert_int_eq(writer->vtable->commit(writer, 1, &diag), JOINERY_OK);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.committed, 0);
    /* checkpoint 2 completes: committed, the held records begin the next transaction */
    ck_assert_int_eq(writer->vtable->commit(writer, 2, &diag), JOINERY_OK);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.committed, 1);
    ck_assert_uint_eq(counts.begun, 2);
    ck_assert_uint_eq(counts.held_records, 0);
    ck_assert_int_eq(counts.pending_checkpoint, 0);
    ck_assert_int_eq(writer->vtable->commit(writer, 2, &diag), JOINERY_OK); /* idempotent */
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.committed, 1);
    /* checkpoint 3 never completes: its transaction stays open; records after its barrier
       are held and join it at barrier 4, whose completion commits them all */
    ck_assert_int_eq(barrier(writer, 3, &diag), 3);
    ck_assert_int_eq(write_rows(writer, 5, 1, &diag), JOINERY_OK);
    ck_assert_int_eq(barrier(writer, 4, &diag), 4);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.held_records, 0);
    ck_assert_uint_eq(counts.committed, 1);
    ck_assert_uint_eq(counts.begun, 2);
    ck_assert_int_eq(writer->vtable->commit(writer, 3, &diag), JOINERY_OK); /* 4 is pending */
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.committed, 1);
    ck_assert_int_eq(writer->vtable->commit(writer, 4, &diag), JOINERY_OK);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.committed, 2);
    /* end of input commits the last transaction (records held after barrier 5 included) */
    ck_assert_int_eq(write_rows(writer, 6, 2, &diag), JOINERY_OK);
    ck_assert_int_eq(barrier(writer, 5, &diag), 5);
    ck_assert_int_eq(write_rows(writer, 8, 2, &diag), JOINERY_OK);
    ck_assert_msg(writer->vtable->finish(writer, &diag) == JOINERY_OK, "%s", diag.message);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.committed, 4);
    ck_assert_uint_eq(counts.begun, 4);
    ck_assert_uint_eq(counts.aborted, 0);
    ck_assert_uint_eq(writer->rows_written, 10);
    writer->vtable->close(writer);

    /* a failed job aborts its open transaction */
    ck_assert_int_eq(connector_find("kafka")->create_sink(&spec, &writer, &diag), JOINERY_OK);
    ck_assert_int_eq(write_rows(writer, 100, 2, &diag), JOINERY_OK);
    StrBuf note = STRBUF_INIT;
    writer->vtable->abort(writer, &note);
    ck_assert_msg(strstr(strbuf_cstr(&note), "(2 records) was aborted") != NULL, "%s",
                  strbuf_cstr(&note));
    strbuf_free(&note);
    kafka_sink_transaction_counts(writer, &counts);
    ck_assert_uint_eq(counts.aborted, 1);
    ck_assert_uint_eq(counts.committed, 0);
    writer->vtable->close(writer);

    /* every record of the committed transactions is in the topic once, in order (the mock
       of librdkafka 2.0.2 hands aborted records to read_committed readers too, so this
       reads the first run's 10 records and the aborted 2 after them) */
    const char *source_options[] = {"connector",
                                    "kafka",
                                    "topic",
                                    "eos",
                                    "properties.bootstrap.servers",
                                    bootstrap,
                                    "format",
                                    "json",
                                    "scan.startup.mode",
                                    "earliest-offset",
                                    "scan.bounded.mode",
                                    "latest-offset"};
    CatalogTable *source =
        make_keyed_table("eos", TWO_COLUMNS, 2, source_options, OPTION_COUNT(source_options), NULL);
    Collected *read = calloc(1, sizeof *read);
    read_table(source, 0, 1, read, &diag);
    ck_assert_int_ge(read->count, 10);
    for (int i = 0; i < 10; i++) {
        char expected[32];
        snprintf(expected, sizeof expected, "+I %d n%d", i, i);
        ck_assert_str_eq(read->lines[i], expected);
    }
    free(read);
    catalog_table_free(source);
    catalog_table_free(table);
}
END_TEST

/*
 * A restart: a second writer with the same transactional.id starts (init_transactions) while
 * the first has a transaction open, and commits its own. librdkafka 2.0.2's mock gives the
 * second producer a new producer id instead of bumping the first one's epoch, so the first
 * is not fenced there (a real broker fences it); this shows what the mock can: the same id
 * is taken again and its transactions commit.
 */
START_TEST(test_exactly_once_restart)
{
    CatalogTable *table = make_eos_table("check-restart");
    DataType types[] = {bigint_type(), string_type()};
    const char *names[] = {"id", "name"};
    SinkSpec spec = {table, 2, types, names, NULL, NULL, NULL};
    SinkWriter *first = NULL, *second = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("kafka")->create_sink(&spec, &first, &diag), JOINERY_OK);
    ck_assert_int_eq(write_rows(first, 0, 2, &diag), JOINERY_OK);
    ck_assert_int_eq(first->vtable->flush(first, &diag), JOINERY_OK);
    ck_assert_msg(connector_find("kafka")->create_sink(&spec, &second, &diag) == JOINERY_OK, "%s",
                  diag.message);
    first->vtable->close(first); /* killed: its transaction is never committed */
    ck_assert_int_eq(write_rows(second, 2, 1, &diag), JOINERY_OK);
    ck_assert_int_eq(barrier(second, 7, &diag), 7);
    ck_assert_int_eq(second->vtable->commit(second, 7, &diag), JOINERY_OK);
    KafkaTransactionCounts counts;
    kafka_sink_transaction_counts(second, &counts);
    ck_assert_uint_eq(counts.begun, 1);
    ck_assert_uint_eq(counts.committed, 1);
    ck_assert_msg(second->vtable->finish(second, &diag) == JOINERY_OK, "%s", diag.message);
    kafka_sink_transaction_counts(second, &counts);
    ck_assert_uint_eq(counts.committed, 1); /* nothing left open: no empty transaction */
    second->vtable->close(second);
    catalog_table_free(table);
}
END_TEST

/* The kept records' encoding: partition, timestamp, key and value (either may be absent),
   headers (a header without value); a record cut short is refused. */
START_TEST(test_kept_records)
{
    StrBuf kept = STRBUF_INIT;
    rd_kafka_headers_t *headers = rd_kafka_headers_new(2);
    ck_assert_int_eq(rd_kafka_header_add(headers, "trace", -1, "t1", 2), 0);
    ck_assert_int_eq(rd_kafka_header_add(headers, "empty", -1, NULL, 0), 0);
    ck_assert_int_eq(kafka_kept_append(&kept, 3, 1234, headers, NULL, 0, "v", 1), 0);
    ck_assert_int_eq(kafka_kept_append(&kept, RD_KAFKA_PARTITION_UA, 0, NULL, "k", 1, NULL, 0), 0);
    rd_kafka_headers_destroy(headers);
    size_t offset = 0;
    KafkaKeptRecord record;
    ck_assert_int_eq(kafka_kept_next(kept.data, kept.length, &offset, &record), 1);
    ck_assert_int_eq(record.partition, 3);
    ck_assert_int_eq(record.timestamp, 1234);
    ck_assert_ptr_null(record.key);
    ck_assert_uint_eq(record.value_length, 1);
    ck_assert_int_eq(memcmp(record.value, "v", 1), 0);
    ck_assert_uint_eq(rd_kafka_header_cnt(record.headers), 2);
    const void *value;
    size_t size;
    ck_assert_int_eq(rd_kafka_header_get_last(record.headers, "trace", &value, &size), 0);
    ck_assert_uint_eq(size, 2);
    ck_assert_int_eq(memcmp(value, "t1", 2), 0);
    ck_assert_int_eq(rd_kafka_header_get_last(record.headers, "empty", &value, &size), 0);
    ck_assert_ptr_null(value);
    rd_kafka_headers_destroy(record.headers);
    ck_assert_int_eq(kafka_kept_next(kept.data, kept.length, &offset, &record), 1);
    ck_assert_int_eq(record.partition, RD_KAFKA_PARTITION_UA);
    ck_assert_uint_eq(record.key_length, 1);
    ck_assert_ptr_null(record.value); /* a tombstone */
    ck_assert_ptr_null(record.headers);
    ck_assert_int_eq(kafka_kept_next(kept.data, kept.length, &offset, &record), 0);
    offset = 0;
    ck_assert_int_eq(kafka_kept_next(kept.data, kept.length - 1, &offset, &record), 1);
    rd_kafka_headers_destroy(record.headers);
    ck_assert_int_eq(kafka_kept_next(kept.data, kept.length - 1, &offset, &record), -1);
    strbuf_free(&kept);
}
END_TEST

/*
 * The commit marker as a broker leaves it when the marker's transaction commits: librdkafka
 * 2.0.2's mock answers TxnOffsetCommit without storing the offset, so this commits it
 * outside a transaction (group `group`, partition 0 of `topic`, metadata of `lineage`).
 */
static void commit_marker(const char *group, const char *topic, int64_t checkpoint,
                          uint64_t lineage)
{
    char error[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, error, sizeof error);
    rd_kafka_conf_set(conf, "log_level", "0", error, sizeof error);
    rd_kafka_conf_set(conf, "group.id", group, error, sizeof error);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", error, sizeof error);
    rd_kafka_t *consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    ck_assert_ptr_nonnull(consumer);
    rd_kafka_topic_partition_list_t *offsets = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_t *marker = rd_kafka_topic_partition_list_add(offsets, topic, 0);
    char metadata[KAFKA_MARKER_METADATA_SIZE];
    kafka_marker_metadata(lineage, metadata);
    marker->offset = checkpoint;
    marker->metadata = strdup(metadata);
    marker->metadata_size = strlen(metadata);
    ck_assert_int_eq(rd_kafka_commit(consumer, offsets, 0), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_topic_partition_list_destroy(offsets);
    rd_kafka_destroy(consumer);
}

/* A new writer restored from `snapshot` (it must read it whole); its counts in *counts. */
static SinkWriter *restored_writer(const SinkSpec *spec, SnapshotBuffer *snapshot,
                                   KafkaTransactionCounts *counts, Diag *diag)
{
    SinkWriter *writer = NULL;
    ck_assert_int_eq(connector_find("kafka")->create_sink(spec, &writer, diag), JOINERY_OK);
    snapshot->read_offset = 0;
    StateReader in = snapshot_buffer_reader(snapshot);
    ck_assert_msg(writer->vtable->restore_pending(writer, &in, diag) == JOINERY_OK, "%s",
                  diag->message);
    ck_assert_uint_eq(snapshot->read_offset, snapshot->length);
    kafka_sink_transaction_counts(writer, counts);
    return writer;
}

/* The snapshot's lineage (its second number). */
static uint64_t snapshot_lineage(const SnapshotBuffer *snapshot)
{
    int64_t lineage;
    memcpy(&lineage, snapshot->bytes + sizeof(int64_t), sizeof lineage);
    return (uint64_t)lineage;
}

/*
 * Recovery: a run killed after checkpoint 1 completed and before its sink committed leaves
 * the transaction uncommitted; the restore finds no commit marker and sends the
 * checkpoint's records again, in one transaction committed at once. With the marker of
 * checkpoint 1 (what the broker keeps when that commit went through) a restore from it
 * sends nothing; a marker of another lineage or of an earlier checkpoint does not count.
 */
START_TEST(test_exactly_once_recovery)
{
    CatalogTable *table = make_eos_table("check-recover");
    DataType types[] = {bigint_type(), string_type()};
    const char *names[] = {"id", "name"};
    SinkSpec spec = {table, 2, types, names, NULL, NULL, NULL};
    SinkWriter *first = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("kafka")->create_sink(&spec, &first, &diag), JOINERY_OK);
    ck_assert_int_eq(write_rows(first, 0, 3, &diag), JOINERY_OK);
    SnapshotBuffer one;
    ck_assert_int_eq(barrier_snapshot(first, 1, &one, &diag), 1);
    ck_assert_int_eq(write_rows(first, 3, 1, &diag), JOINERY_OK); /* held: replayed */
    first->vtable->close(first); /* killed before checkpoint 1's commit */

    KafkaTransactionCounts counts;
    SinkWriter *second = restored_writer(&spec, &one, &counts, &diag);
    ck_assert_int_eq(counts.restored_checkpoint, 1);
    ck_assert_int_eq(counts.restored_marker, -1);
    ck_assert_uint_eq(counts.resent_records, 3);
    ck_assert_uint_eq(counts.begun, 1);
    ck_assert_uint_eq(counts.committed, 1);
    ck_assert_uint_eq(counts.kept_records, 0);
    StrBuf metrics = STRBUF_INIT;
    second->vtable->format_metrics(second, &metrics);
    ck_assert_msg(strstr(strbuf_cstr(&metrics),
                         "Kafka transaction of eos_sink restored from chk-1: 3 records sent "
                         "again (commit marker none: never committed)\n") != NULL,
                  "%s", strbuf_cstr(&metrics));
    ck_assert_msg(strstr(strbuf_cstr(&metrics), "Kafka records of eos_sink kept until their "
                                                "commit: 0 now (0 bytes), at most 3 (") != NULL,
                  "%s", strbuf_cstr(&metrics));
    strbuf_clear(&metrics);
    /* the restored writer goes on in the checkpoint's lineage: checkpoint 2 */
    ck_assert_int_eq(write_rows(second, 3, 2, &diag), JOINERY_OK);
    SnapshotBuffer two;
    ck_assert_int_eq(barrier_snapshot(second, 2, &two, &diag), 2);
    ck_assert_uint_eq(snapshot_lineage(&two), snapshot_lineage(&one));
    second->vtable->close(second); /* killed before checkpoint 2's commit */

    /* checkpoint 1's commit went through (its marker): nothing is sent again */
    commit_marker("check-recover-joinery-commits", "eos", 1, snapshot_lineage(&one));
    SinkWriter *third = restored_writer(&spec, &one, &counts, &diag);
    ck_assert_int_eq(counts.restored_marker, 1);
    ck_assert_uint_eq(counts.resent_records, 0);
    ck_assert_uint_eq(counts.begun, 0);
    third->vtable->format_metrics(third, &metrics);
    ck_assert_msg(strstr(strbuf_cstr(&metrics),
                         "Kafka transaction of eos_sink restored from chk-1: committed before "
                         "(commit marker chk-1)\n") != NULL,
                  "%s", strbuf_cstr(&metrics));
    strbuf_free(&metrics);
    third->vtable->close(third);
    /* ... but checkpoint 2's did not (the marker is below 2): its 2 records again */
    SinkWriter *fourth = restored_writer(&spec, &two, &counts, &diag);
    ck_assert_int_eq(counts.restored_marker, 1);
    ck_assert_uint_eq(counts.resent_records, 2);
    ck_assert_uint_eq(counts.committed, 1);
    fourth->vtable->close(fourth);
    /* a marker of another lineage (a job with the same prefix that did not restore from
       these checkpoints) says nothing about them */
    commit_marker("check-recover-joinery-commits", "eos", 5, snapshot_lineage(&one) ^ 1);
    SinkWriter *fifth = restored_writer(&spec, &one, &counts, &diag);
    ck_assert_int_eq(counts.restored_marker, -1);
    ck_assert_uint_eq(counts.resent_records, 3);
    fifth->vtable->close(fifth);
    snapshot_buffer_free(&one);
    snapshot_buffer_free(&two);

    /* the records sent again are the checkpoint's, in order: the topic holds the first run's
       3 (aborted: the mock hands them out), the second's 3 again and its 2, the fourth's 2
       again and the fifth's 3 */
    const char *source_options[] = {"connector",
                                    "kafka",
                                    "topic",
                                    "eos",
                                    "properties.bootstrap.servers",
                                    bootstrap,
                                    "format",
                                    "json",
                                    "scan.startup.mode",
                                    "earliest-offset",
                                    "scan.bounded.mode",
                                    "latest-offset"};
    CatalogTable *source =
        make_keyed_table("eos", TWO_COLUMNS, 2, source_options, OPTION_COUNT(source_options), NULL);
    Collected *read = calloc(1, sizeof *read);
    read_table(source, 0, 1, read, &diag);
    const int expected[] = {0, 1, 2, 0, 1, 2, 3, 4, 3, 4, 0, 1, 2};
    ck_assert_int_eq(read->count, 13);
    for (int i = 0; i < 13; i++) {
        char line[32];
        snprintf(line, sizeof line, "+I %d n%d", expected[i], expected[i]);
        ck_assert_str_eq(read->lines[i], line);
    }
    free(read);
    catalog_table_free(source);
    catalog_table_free(table);
}
END_TEST

static Suite *kafka_suite(void)
{
    Suite *suite = suite_create("kafka");
    TCase *options = tcase_create("options");
    tcase_add_test(options, test_modes_and_offsets);
    tcase_add_test(options, test_split_owner);
    tcase_add_test(options, test_validation);
    tcase_add_test(options, test_metadata_validation);
    tcase_add_test(options, test_sasl_jaas_config);
    tcase_add_test(options, test_exactly_once_validation);
    tcase_add_test(options, test_kept_records);
    suite_add_tcase(suite, options);
    TCase *formats = tcase_create("formats");
    tcase_add_test(formats, test_debezium_decoding);
    tcase_add_test(formats, test_canal_decoding);
    tcase_add_test(formats, test_raw_and_encoding);
    suite_add_tcase(suite, formats);
    TCase *cluster = tcase_create("mock cluster");
    tcase_add_checked_fixture(cluster, setup_cluster, teardown_cluster);
    tcase_set_timeout(cluster, 120);
    tcase_add_test(cluster, test_round_trip);
    tcase_add_test(cluster, test_resume_position);
    tcase_add_test(cluster, test_bad_records);
    tcase_add_test(cluster, test_upsert_round_trip);
    tcase_add_test(cluster, test_exactly_once_transactions);
    tcase_add_test(cluster, test_exactly_once_restart);
    tcase_add_test(cluster, test_exactly_once_recovery);
    suite_add_tcase(suite, cluster);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(kafka_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
