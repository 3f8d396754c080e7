/*
 * check_connector.c - Check suite for the connectors (engine/connector):
 * option validation messages, datagen (determinism, sequences, bounds,
 * rate limiting, parallel splits), the filesystem source and sink on real
 * files in a temporary directory (JSON and CSV, directories, bad records,
 * skipping, missing paths, metadata, parallel splits), print and blackhole.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"
#include "tests/unit/connector_fixture.h"

/* ------------------------------------------------------------ helpers */

static char temporary_directory[256];

static void setup_directory(void)
{
    snprintf(temporary_directory, sizeof temporary_directory, "/tmp/joinery-connector-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(temporary_directory));
}

static void teardown_directory(void)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", temporary_directory);
    ck_assert_int_eq(system(command), 0);
}

static const char *temp_path(const char *name)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 512, "%s/%s", temporary_directory, name);
    return path;
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

static DataType int_type(void)
{
    return type_make(TYPE_INT, true);
}

static DataType string_type(void)
{
    return type_make_varchar(TYPE_STRING_LENGTH, true);
}

/* ------------------------------------------------------------ registry */

static int validate(const char *const *options, size_t count, Diag *diag)
{
    TestColumn columns[] = {{"id", int_type(), NULL}, {"name", string_type(), NULL}};
    CatalogTable *table = make_table("t", columns, 2, options, count);
    diag_clear(diag);
    int status = connector_validate_table(table, diag);
    catalog_table_free(table);
    return status;
}

START_TEST(test_registry_find)
{
    ck_assert_ptr_nonnull(connector_find("datagen"));
    ck_assert_ptr_nonnull(connector_find("filesystem"));
    ck_assert_ptr_nonnull(connector_find("print"));
    ck_assert_ptr_nonnull(connector_find("blackhole"));
    ck_assert_ptr_nonnull(connector_find("nexmark"));
    ck_assert_ptr_nonnull(connector_find("redis"));
    ck_assert_ptr_null(connector_find("Datagen"));
    ck_assert_ptr_null(connector_find(NULL));
    const char *const *names = connector_names();
    size_t count = 0;
    while (names[count])
        ck_assert_ptr_eq(connector_find(names[count++]), connector_find(names[count - 1]));
    ck_assert_uint_eq(count, 9);
    ck_assert(connector_option_matches("fields.#.kind", "fields.id.kind"));
    ck_assert(!connector_option_matches("fields.#.kind", "fields.a.b.kind"));
    ck_assert(!connector_option_matches("fields.#.kind", "fields..kind"));
    ck_assert(connector_option_matches("properties.*", "properties.bootstrap.servers"));
    ck_assert(!connector_option_matches("properties.*", "properties."));
    ck_assert(!connector_option_matches("path", "paths"));
}
END_TEST

START_TEST(test_registry_messages)
{
    Diag diag;
    const char *none[] = {"path", "/tmp"};
    ck_assert_int_eq(validate(none, 1, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'connector'"));
    ck_assert_ptr_nonnull(
        strstr(diag.message,
               "blackhole, datagen, filesystem, jdbc, kafka, nexmark, print, redis, upsert-kafka"));

    const char *typo[] = {"connector", "datagn"};
    ck_assert_int_eq(validate(typo, 1, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'datagn'"));
    ck_assert_ptr_nonnull(strstr(diag.message, "Did you mean 'datagen'?"));
    ck_assert_ptr_nonnull(strstr(diag.message, "Available connectors: blackhole"));

    const char *missing[] = {"connector", "filesystem", "format", "json"};
    ck_assert_int_eq(validate(missing, 2, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "Missing required option 'path'"));

    const char *unknown[] = {"connector", "datagen", "rows-per-secnd", "5"};
    ck_assert_int_eq(validate(unknown, 2, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "Unsupported option 'rows-per-secnd'"));
    ck_assert_ptr_nonnull(strstr(diag.message, "Did you mean 'rows-per-second'?"));
    ck_assert_ptr_nonnull(strstr(diag.message, "Supported options: connector, rows-per-second"));

    const char *pattern[] = {"connector", "datagen", "fields.id.knd", "sequence"};
    ck_assert_int_eq(validate(pattern, 2, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "Did you mean 'fields.id.kind'?"));

    const char *good[] = {"connector",          "datagen", "fields.id.kind", "sequence",
                          "fields.id.start",    "1",       "fields.id.end",  "100",
                          "fields.name.length", "5"};
    ck_assert_int_eq(validate(good, 5, &diag), JOINERY_OK);

    const char *no_end[] = {"connector", "datagen",         "fields.id.kind",
                            "sequence",  "fields.id.start", "1"};
    ck_assert_int_eq(validate(no_end, 3, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "fields.id.end"));

    const char *bad_column[] = {"connector", "datagen", "fields.nope.kind", "random"};
    ck_assert_int_eq(validate(bad_column, 2, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'nope' is not a physical column"));

    const char *bad_kind[] = {"connector", "datagen", "fields.id.kind", "randm"};
    ck_assert_int_eq(validate(bad_kind, 2, &diag), JOINERY_ERROR_VALIDATE);

    const char *bad_rate[] = {"connector", "datagen", "rows-per-second", "-1"};
    ck_assert_int_eq(validate(bad_rate, 2, &diag), JOINERY_ERROR_VALIDATE);

    const char *monitor[] = {
        "connector", "filesystem", "path", "/tmp", "format", "json", "source.monitor-interval",
        "10 s"};
    ck_assert_int_eq(validate(monitor, 4, &diag), JOINERY_ERROR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(diag.message, "source.monitor-interval"));

    const char *bad_format[] = {"connector", "filesystem", "path", "/tmp", "format", "avro"};
    ck_assert_int_eq(validate(bad_format, 3, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'avro'"));

    const char *wrong_format_option[] = {
        "connector", "filesystem", "path", "/tmp", "format", "json", "csv.field-delimiter", ";"};
    ck_assert_int_eq(validate(wrong_format_option, 4, &diag), JOINERY_ERROR_VALIDATE);

    const char *fs_ok[] = {"connector",
                           "filesystem",
                           "path",
                           "/tmp",
                           "format",
                           "csv",
                           "csv.field-delimiter",
                           ";",
                           "sink.rolling-policy.file-size",
                           "1MB"};
    ck_assert_int_eq(validate(fs_ok, 5, &diag), JOINERY_OK);

    const char *print_ok[] = {"connector", "print",          "print-identifier",
                              "x",         "standard-error", "false"};
    ck_assert_int_eq(validate(print_ok, 3, &diag), JOINERY_OK);
}
END_TEST

/* ------------------------------------------------------------ datagen */

static CatalogTable *datagen_table(const char *const *options, size_t count)
{
    TestColumn columns[] = {
        {"id", type_make(TYPE_BIGINT, true), NULL},
        {"name", type_make_varchar(TYPE_STRING_LENGTH, true), NULL},
        {"amount", type_make_decimal(10, 2, true), NULL},
        {"score", type_make(TYPE_DOUBLE, true), NULL},
        {"flag", type_make(TYPE_BOOLEAN, true), NULL},
        {"day", type_make(TYPE_DATE, true), NULL},
        {"at", type_make_timestamp(TYPE_TIMESTAMP, 3, true), NULL},
        {"small", type_make(TYPE_TINYINT, true), NULL},
    };
    CatalogTable *table = make_table("gen", columns, 8, options, count);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    return table;
}

START_TEST(test_datagen_determinism)
{
    const char *options[] = {"connector",          "datagen", "number-of-rows",     "50",
                             "fields.name.length", "8",       "fields.amount.min",  "1.00",
                             "fields.amount.max",  "9.99",    "fields.small.min",   "-3",
                             "fields.small.max",   "3",       "fields.at.max-past", "1 h"};
    CatalogTable *table = datagen_table(options, 8);
    RowList first = {0}, second = {0}, other = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 42, &first, &diag, NULL), SOURCE_POLL_END);
    ck_assert_int_eq(read_all(table, 0, 1, 42, &second, &diag, NULL), SOURCE_POLL_END);
    ck_assert_int_eq(read_all(table, 0, 1, 43, &other, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(first.count, 50);
    ck_assert_uint_eq(second.count, 50);
    size_t differing = 0;
    for (size_t i = 0; i < first.count; i++) {
        ck_assert(row_content_equals(first.rows[i], second.rows[i]));
        if (!row_content_equals(first.rows[i], other.rows[i]))
            differing++;
        const Row *row = first.rows[i];
        uint32_t length;
        const char *name = row_get_string(row, 1, &length);
        ck_assert_uint_eq(length, 8);
        for (uint32_t c = 0; c < length; c++)
            ck_assert(strchr("0123456789abcdef", name[c]));
        ck_assert(row_get_int64(row, 2) >= 100 && row_get_int64(row, 2) <= 999);
        ck_assert(row_get_int64(row, 7) >= -3 && row_get_int64(row, 7) <= 3);
        ck_assert(row_kind(row) == ROW_KIND_INSERT);
    }
    ck_assert_uint_gt(differing, 40);
    row_list_free(&first);
    row_list_free(&second);
    row_list_free(&other);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_datagen_sequence_and_bounds)
{
    const char *options[] = {"connector",        "datagen",  "fields.id.kind",    "sequence",
                             "fields.id.start",  "5",        "fields.id.end",     "14",
                             "fields.name.kind", "sequence", "fields.name.start", "100",
                             "fields.name.end",  "1000"};
    CatalogTable *table = datagen_table(options, 7);
    ck_assert(connector_find("datagen")->is_bounded(table));
    RowList rows = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 1, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 10); /* the shortest sequence ends the source */
    for (size_t i = 0; i < rows.count; i++) {
        ck_assert_int_eq(row_get_int64(rows.rows[i], 0), 5 + (int64_t)i);
        uint32_t length;
        const char *name = row_get_string(rows.rows[i], 1, &length);
        char expected[16];
        snprintf(expected, sizeof expected, "%d", 100 + (int)i);
        ck_assert_uint_eq(length, strlen(expected));
        ck_assert(memcmp(name, expected, length) == 0);
    }
    row_list_free(&rows);
    catalog_table_free(table);

    const char *counted[] = {"connector",           "datagen", "number-of-rows", "2500",
                             "fields.day.max-past", "10 d"};
    table = datagen_table(counted, 3);
    ck_assert(connector_find("datagen")->is_bounded(table));
    ck_assert(connector_find("datagen")->estimate_rows(table) == 2500);
    ck_assert_int_eq(read_all(table, 0, 1, 1, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 2500);
    row_list_free(&rows);
    catalog_table_free(table);

    const char *unbounded[] = {"connector", "datagen"};
    table = datagen_table(unbounded, 1);
    ck_assert(!connector_find("datagen")->is_bounded(table));
    catalog_table_free(table);
}
END_TEST

START_TEST(test_datagen_rate_limit)
{
    const char *options[] = {"connector", "datagen", "rows-per-second", "10"};
    CatalogTable *table = datagen_table(options, 2);
    TestSpec spec;
    make_spec(&spec, table, 0, 1, 7);
    SourceReader *reader = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("datagen")->create_source(&spec.spec, &reader, &diag),
                     JOINERY_OK);
    Row *slots[ROW_BATCH_CAPACITY];
    Arena arena;
    arena_init(&arena, 0);
    RowBatch batch = {slots, 0, ROW_BATCH_CAPACITY};
    int64_t next = 0;
    /* the first poll emits one row, then the schedule is 10 rows a second */
    ck_assert_int_eq(reader->vtable->poll(reader, &batch, &arena, 100, 5000, &next, &diag),
                     SOURCE_POLL_ROWS);
    ck_assert_uint_eq(batch.count, 1);
    batch.count = 0;
    ck_assert_int_eq(reader->vtable->poll(reader, &batch, &arena, 100, 5050, &next, &diag),
                     SOURCE_POLL_IDLE);
    ck_assert_uint_eq(batch.count, 0);
    ck_assert_int_eq(next, 5100);
    ck_assert_int_eq(reader->vtable->poll(reader, &batch, &arena, 100, 5100, &next, &diag),
                     SOURCE_POLL_ROWS);
    ck_assert_uint_eq(batch.count, 1);
    batch.count = 0;
    ck_assert_int_eq(reader->vtable->poll(reader, &batch, &arena, 100, 6000, &next, &diag),
                     SOURCE_POLL_ROWS);
    ck_assert_uint_eq(batch.count, 9); /* 11 due by t0 + 1 s */
    batch.count = 0;
    ck_assert_int_eq(reader->vtable->poll(reader, &batch, &arena, 100, 6000, &next, &diag),
                     SOURCE_POLL_IDLE);
    ck_assert_int_eq(next, 6100);
    /* max_rows caps a poll far behind schedule */
    ck_assert_int_eq(reader->vtable->poll(reader, &batch, &arena, 4, 60000, &next, &diag),
                     SOURCE_POLL_ROWS);
    ck_assert_uint_eq(batch.count, 4);
    reader->vtable->close(reader);
    arena_destroy(&arena);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_datagen_parallel_union)
{
    const char *options[] = {"connector",      "datagen",  "number-of-rows",  "1001",
                             "fields.id.kind", "sequence", "fields.id.start", "1",
                             "fields.id.end",  "5000"};
    /* no DATE/TIMESTAMP columns: those are offsets from the poll's now_millis */
    TestColumn columns[] = {
        {"id", type_make(TYPE_BIGINT, true), NULL},
        {"name", type_make_varchar(12, true), NULL},
        {"amount", type_make_decimal(10, 2, true), NULL},
        {"score", type_make(TYPE_FLOAT, true), NULL},
        {"flag", type_make(TYPE_BOOLEAN, true), NULL},
    };
    CatalogTable *table = make_table("gen", columns, 5, options, 5);
    RowList whole = {0}, parts = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 9, &whole, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(whole.count, 1001);
    for (int subtask = 0; subtask < 3; subtask++) {
        RowList part = {0};
        ck_assert_int_eq(read_all(table, subtask, 3, 9, &part, &diag, NULL), SOURCE_POLL_END);
        ck_assert_uint_eq(part.count, 1001 / 3 + (1001 % 3 > subtask));
        for (size_t i = 0; i < part.count; i++)
            row_list_add(&parts, part.rows[i]);
        row_list_free(&part);
    }
    ck_assert(same_multiset(&whole, &parts));
    row_list_free(&whole);
    row_list_free(&parts);
    catalog_table_free(table);
}
END_TEST

/* ------------------------------------------------------------ filesystem */

static CatalogTable *orders_table(const char *path, const char *format, const char *const *extra,
                                  size_t extra_count)
{
    TestColumn columns[] = {
        {"id", type_make(TYPE_BIGINT, true), NULL},
        {"customer", string_type(), NULL},
        {"amount", type_make_decimal(10, 2, true), NULL},
        {"at", type_make_timestamp(TYPE_TIMESTAMP, 3, true), NULL},
    };
    const char *options[32] = {"connector", "filesystem", "path", path, "format", format};
    size_t count = 3;
    for (size_t i = 0; i < extra_count; i++) {
        options[2 * count] = extra[2 * i];
        options[2 * count + 1] = extra[2 * i + 1];
        count++;
    }
    CatalogTable *table = make_table("orders", columns, 4, options, count);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    return table;
}

static const char *ORDERS_JSON =
    "{\"id\": 1, \"customer\": \"alice\", \"amount\": 12.50, \"at\": \"2024-01-01 10:00:00\"}\n"
    "{\"id\": 9007199254740993, \"customer\": \"bob\", \"amount\": \"3.1\"}\n"
    "\n"
    "{\"id\": 3, \"customer\": \"carol \\\"c\\\"\", \"amount\": null, \"at\": null}\n";

START_TEST(test_filesystem_json_file)
{
    const char *path = temp_path("orders.json");
    write_file(path, ORDERS_JSON);
    CatalogTable *table = orders_table(path, "json", NULL, 0);
    ck_assert(connector_find("filesystem")->is_bounded(table));
    RowList rows = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 3);
    ck_assert_int_eq(row_get_int64(rows.rows[0], 0), 1);
    ck_assert_int_eq(row_get_int64(rows.rows[0], 2), 1250);
    ck_assert_int_eq(row_get_int64(rows.rows[1], 0), 9007199254740993LL);
    ck_assert_int_eq(row_get_int64(rows.rows[1], 2), 310);
    ck_assert(row_is_null(rows.rows[1], 3)); /* missing field -> NULL */
    uint32_t length;
    const char *name = row_get_string(rows.rows[2], 1, &length);
    ck_assert_uint_eq(length, 9);
    ck_assert(memcmp(name, "carol \"c\"", 9) == 0);
    ck_assert(row_is_null(rows.rows[2], 2));
    row_list_free(&rows);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_filesystem_bad_records)
{
    const char *path = temp_path("bad.json");
    write_file(path, "{\"id\": 1, \"amount\": 1}\n"
                     "{\"id\": 2, \"amount\": \"abc\"}\n"
                     "{\"id\": 3, \"amount\": 3\n"
                     "{\"id\": 4}\n");
    CatalogTable *table = orders_table(path, "json", NULL, 0);
    RowList rows = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), JOINERY_ERROR_RUNTIME);
    char expected[600];
    snprintf(expected, sizeof expected, "%s:2: field 'amount': not a valid DECIMAL(10, 2): \"abc\"",
             path);
    ck_assert_str_eq(diag.message, expected);
    row_list_free(&rows);
    catalog_table_free(table);

    const char *ignore[] = {"json.ignore-parse-errors", "true"};
    table = orders_table(path, "json", ignore, 1);
    uint64_t skipped = 0;
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, &skipped), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 2);
    ck_assert_uint_eq(skipped, 2);
    row_list_free(&rows);
    catalog_table_free(table);

    /* malformed JSON names the line */
    write_file(path, "{\"id\": 1}\n{\"id\": 2}\n{\"id\" 3}\n");
    table = orders_table(path, "json", NULL, 0);
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), JOINERY_ERROR_RUNTIME);
    snprintf(expected, sizeof expected, "%s:3: malformed JSON at byte", path);
    ck_assert_msg(strncmp(diag.message, expected, strlen(expected)) == 0, "%s", diag.message);
    row_list_free(&rows);
    catalog_table_free(table);

    const char *strict[] = {"json.fail-on-missing-field", "true"};
    write_file(path,
               "{\"id\": 1, \"customer\": \"a\", \"amount\": 1, \"at\": null}\n{\"id\": 2}\n");
    table = orders_table(path, "json", strict, 1);
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, ":2: field 'customer': missing"));
    row_list_free(&rows);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_filesystem_directory_and_metadata)
{
    const char *directory = temp_path("dir");
    ck_assert_int_eq(mkdir(directory, 0777), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/b.csv", directory);
    write_file(path, "3,carol,3.00,\n4,dave,4.00,2024-01-01 00:00:00\n");
    snprintf(path, sizeof path, "%s/a.csv", directory);
    write_file(path, "1,alice,1.00,\r\n2,\"b,ob\",2.00,\r\n");
    snprintf(path, sizeof path, "%s/_SUCCESS", directory);
    write_file(path, "garbage\n");
    snprintf(path, sizeof path, "%s/.hidden.csv", directory);
    write_file(path, "garbage\n");
    snprintf(path, sizeof path, "%s/sub", directory);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/sub/c.csv", directory);
    write_file(path, "5,eve,5.00,\n");

    TestColumn columns[] = {
        {"id", type_make(TYPE_BIGINT, true), NULL},
        {"file_name", string_type(), "file.name"},
        {"customer", string_type(), NULL},
        {"amount", type_make_decimal(10, 2, true), NULL},
        {"at", type_make_timestamp(TYPE_TIMESTAMP, 3, true), NULL},
        {"size", type_make(TYPE_BIGINT, true), "file.size"},
    };
    const char *options[] = {"connector", "filesystem", "path", directory, "format", "csv"};
    CatalogTable *table = make_table("dir_table", columns, 6, options, 3);
    Diag diag;
    diag_clear(&diag);
    ck_assert_msg(connector_validate_table(table, &diag) == JOINERY_OK, "%s", diag.message);
    RowList rows = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 5);
    const char *files[] = {"a.csv", "a.csv", "b.csv", "b.csv", "c.csv"};
    for (size_t i = 0; i < rows.count; i++) {
        ck_assert_int_eq(row_get_int64(rows.rows[i], 0), (int64_t)i + 1);
        uint32_t length;
        const char *name = row_get_string(rows.rows[i], 1, &length);
        ck_assert_uint_eq(length, strlen(files[i]));
        ck_assert(memcmp(name, files[i], length) == 0);
        ck_assert_int_gt(row_get_int64(rows.rows[i], 5), 0);
    }
    uint32_t length;
    const char *customer = row_get_string(rows.rows[1], 2, &length);
    ck_assert_uint_eq(length, 4);
    ck_assert(memcmp(customer, "b,ob", 4) == 0);
    ck_assert(row_is_null(rows.rows[0], 4));
    ck_assert(!row_is_null(rows.rows[3], 4));
    row_list_free(&rows);

    /* parallel readers split the records; their union is the whole */
    RowList whole = {0}, parts = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &whole, &diag, NULL), SOURCE_POLL_END);
    for (int subtask = 0; subtask < 2; subtask++) {
        RowList part = {0};
        ck_assert_int_eq(read_all(table, subtask, 2, 0, &part, &diag, NULL), SOURCE_POLL_END);
        ck_assert_uint_gt(part.count, 0);
        for (size_t i = 0; i < part.count; i++)
            row_list_add(&parts, part.rows[i]);
        row_list_free(&part);
    }
    ck_assert(same_multiset(&whole, &parts));
    row_list_free(&whole);
    row_list_free(&parts);
    catalog_table_free(table);

    const char *bad_metadata[] = {"connector", "filesystem", "path", directory, "format", "csv"};
    TestColumn bad_columns[] = {{"id", int_type(), NULL}, {"x", int_type(), "file.nope"}};
    table = make_table("t", bad_columns, 2, bad_metadata, 3);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "file.nope"));
    catalog_table_free(table);
}
END_TEST

START_TEST(test_filesystem_missing_path)
{
    const char *path = temp_path("does-not-exist.json");
    CatalogTable *table = orders_table(path, "json", NULL, 0);
    RowList rows = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, path));
    ck_assert_ptr_nonnull(strstr(diag.message, "does not exist"));
    catalog_table_free(table);
}
END_TEST

START_TEST(test_filesystem_csv_errors)
{
    const char *path = temp_path("bad.csv");
    write_file(path, "# header comment\n1,a,1.00,\n2,b,oops,\n3,c\n4,d,4.00,\n");
    const char *options[] = {"csv.allow-comments", "true"};
    CatalogTable *table = orders_table(path, "csv", options, 1);
    RowList rows = {0};
    Diag diag;
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, ":3: field 'amount'"));
    row_list_free(&rows);
    catalog_table_free(table);
    const char *ignore[] = {"csv.allow-comments", "true", "csv.ignore-parse-errors", "true"};
    table = orders_table(path, "csv", ignore, 2);
    uint64_t skipped = 0;
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, &skipped), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 2);
    ck_assert_uint_eq(skipped, 2);
    row_list_free(&rows);
    catalog_table_free(table);
}
END_TEST

/* 2024-01-01 10:00:00.5 */
static int64_t epoch_millis_for_test(void)
{
    return datetime_days_from_civil(2024, 1, 1) * 86400000 + 36000500;
}

static Row *order_row(RowBuilder *builder, int64_t id, const char *customer, int64_t cents,
                      RowKind kind)
{
    row_builder_begin(builder, 4, kind);
    row_builder_set_int64(builder, 0, id);
    if (customer)
        row_builder_set_string(builder, 1, customer, (uint32_t)strlen(customer));
    else
        row_builder_set_null(builder, 1);
    row_builder_set_int64(builder, 2, cents);
    row_builder_set_int64(builder, 3, epoch_millis_for_test());
    return row_copy_heap(row_builder_finish(builder));
}

START_TEST(test_filesystem_sink_round_trip)
{
    const char *formats[] = {"json", "csv"};
    for (int f = 0; f < 2; f++) {
        const char *path = temp_path(f == 0 ? "out.json" : "out.csv");
        CatalogTable *table = orders_table(path, formats[f], NULL, 0);
        const char *names[] = {"id", "customer", "amount", "at"};
        DataType types[4];
        for (int i = 0; i < 4; i++)
            types[i] = table->columns[i].type;
        SinkSpec spec = {table, 4, types, names, NULL, NULL, NULL};
        SinkWriter *writer = NULL;
        Diag diag;
        diag_clear(&diag);
        ck_assert_int_eq(connector_find("filesystem")->create_sink(&spec, &writer, &diag),
                         JOINERY_OK);
        RowBuilder builder;
        row_builder_init(&builder);
        Row *rows[3] = {order_row(&builder, 1, "alice", 1250, ROW_KIND_INSERT),
                        order_row(&builder, 2, "b, \"o\"\nb", 5, ROW_KIND_INSERT),
                        order_row(&builder, 3, NULL, -100, ROW_KIND_INSERT)};
        RowBatch batch = {rows, 3, 3};
        ck_assert_int_eq(writer->vtable->write(writer, &batch, &diag), JOINERY_OK);
        ck_assert_int_eq(writer->vtable->finish(writer, &diag), JOINERY_OK);
        ck_assert_uint_eq(writer->rows_written, 3);
        writer->vtable->close(writer);

        RowList back = {0};
        ck_assert_int_eq(read_all(table, 0, 1, 0, &back, &diag, NULL), SOURCE_POLL_END);
        ck_assert_uint_eq(back.count, 3);
        for (int i = 0; i < 3; i++) {
            if (f == 1 && i == 2) {
                /* CSV writes NULL strings as empty fields, read back as "" (as Flink) */
                ck_assert_int_eq(row_get_int64(back.rows[i], 2), -100);
                continue;
            }
            ck_assert_msg(row_content_equals(rows[i], back.rows[i]), "format %s row %d", formats[f],
                          i);
        }
        row_list_free(&back);

        /* updates are refused */
        ck_assert_int_eq(connector_find("filesystem")->create_sink(&spec, &writer, &diag),
                         JOINERY_OK);
        row_set_kind(rows[0], ROW_KIND_UPDATE_BEFORE);
        RowBatch update = {rows, 1, 1};
        diag_clear(&diag);
        ck_assert_int_eq(writer->vtable->write(writer, &update, &diag), JOINERY_ERROR_RUNTIME);
        ck_assert_ptr_nonnull(
            strstr(diag.message, "filesystem sink only accepts insert-only rows"));
        writer->vtable->close(writer);
        for (int i = 0; i < 3; i++)
            free(rows[i]);
        row_builder_free(&builder);
        catalog_table_free(table);
    }
}
END_TEST

START_TEST(test_filesystem_sink_directory)
{
    const char *directory = temp_path("sink-dir");
    ck_assert_int_eq(mkdir(directory, 0777), 0);
    CatalogTable *table = orders_table(directory, "json", NULL, 0);
    const char *names[] = {"id", "customer", "amount", "at"};
    DataType types[4];
    for (int i = 0; i < 4; i++)
        types[i] = table->columns[i].type;
    SinkSpec spec = {table, 4, types, names, NULL, NULL, NULL};
    SinkWriter *writer = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("filesystem")->create_sink(&spec, &writer, &diag), JOINERY_OK);
    RowBuilder builder;
    row_builder_init(&builder);
    Row *rows[1] = {order_row(&builder, 7, "zed", 1, ROW_KIND_INSERT)};
    RowBatch batch = {rows, 1, 1};
    ck_assert_int_eq(writer->vtable->write(writer, &batch, &diag), JOINERY_OK);
    RowList back = {0};
    /* the in-progress part file is hidden from readers */
    ck_assert_int_eq(read_all(table, 0, 1, 0, &back, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(back.count, 0);
    ck_assert_int_eq(writer->vtable->finish(writer, &diag), JOINERY_OK);
    writer->vtable->close(writer);
    ck_assert_int_eq(read_all(table, 0, 1, 0, &back, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(back.count, 1);
    ck_assert(row_content_equals(rows[0], back.rows[0]));
    row_list_free(&back);
    free(rows[0]);
    row_builder_free(&builder);
    catalog_table_free(table);
}
END_TEST

/* ------------------------------------------------------------ print, blackhole */

typedef struct Lines {
    char text[8][256];
    int count;
} Lines;

static int collect_line(void *context, const char *line)
{
    Lines *lines = context;
    if (lines->count < 8)
        snprintf(lines->text[lines->count++], 256, "%s", line);
    return 0;
}

START_TEST(test_print_format)
{
    TestColumn columns[] = {
        {"id", int_type(), NULL},
        {"name", string_type(), NULL},
        {"amount", type_make_decimal(10, 2, true), NULL},
        {"ok", type_make(TYPE_BOOLEAN, true), NULL},
        {"at", type_make_timestamp(TYPE_TIMESTAMP, 3, true), NULL},
        {"ratio", type_make(TYPE_DOUBLE, true), NULL},
        {"f", type_make(TYPE_FLOAT, true), NULL},
    };
    const char *options[] = {"connector", "print"};
    CatalogTable *table = make_table("p", columns, 7, options, 1);
    DataType types[7];
    const char *names[7];
    for (int i = 0; i < 7; i++) {
        types[i] = columns[i].type;
        names[i] = columns[i].name;
    }
    Lines lines = {0};
    SinkSpec spec = {table, 7, types, names, collect_line, &lines, NULL};
    SinkWriter *writer = NULL;
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_find("print")->create_sink(&spec, &writer, &diag), JOINERY_OK);
    RowBuilder builder;
    row_builder_init(&builder);
    row_builder_begin(&builder, 7, ROW_KIND_INSERT);
    row_builder_set_int64(&builder, 0, 1);
    row_builder_set_string(&builder, 1, "alice", 5);
    row_builder_set_int64(&builder, 2, 1250);
    row_builder_set_int64(&builder, 3, 1);
    row_builder_set_int64(&builder, 4, datetime_days_from_civil(2024, 1, 2) * 86400000 + 3600000);
    row_builder_set_double(&builder, 5, 0.5);
    row_builder_set_double(&builder, 6, (double)0.1f);
    Row *first = row_copy_heap(row_builder_finish(&builder));
    row_builder_begin(&builder, 7, ROW_KIND_UPDATE_BEFORE);
    row_builder_set_int64(&builder, 0, 2);
    for (uint32_t i = 1; i < 7; i++)
        row_builder_set_null(&builder, i);
    Row *second = row_copy_heap(row_builder_finish(&builder));
    Row *rows[2] = {first, second};
    RowBatch batch = {rows, 2, 2};
    ck_assert_int_eq(writer->vtable->write(writer, &batch, &diag), JOINERY_OK);
    ck_assert_int_eq(writer->vtable->finish(writer, &diag), JOINERY_OK);
    writer->vtable->close(writer);
    ck_assert_int_eq(lines.count, 2);
    ck_assert_str_eq(lines.text[0], "+I[1, alice, 12.50, true, 2024-01-02T01:00, 0.5, 0.1]");
    ck_assert_str_eq(lines.text[1], "-U[2, null, null, null, null, null, null]");
    catalog_table_free(table);

    const char *with_identifier[] = {"connector", "print", "print-identifier", "sink1"};
    table = make_table("p", columns, 7, with_identifier, 2);
    spec.table = table;
    lines.count = 0;
    ck_assert_int_eq(connector_find("print")->create_sink(&spec, &writer, &diag), JOINERY_OK);
    RowBatch one = {rows, 1, 1};
    ck_assert_int_eq(writer->vtable->write(writer, &one, &diag), JOINERY_OK);
    writer->vtable->close(writer);
    ck_assert_str_eq(lines.text[0], "sink1> +I[1, alice, 12.50, true, 2024-01-02T01:00, 0.5, 0.1]");
    catalog_table_free(table);

    const char *blackhole[] = {"connector", "blackhole"};
    table = make_table("b", columns, 7, blackhole, 1);
    spec.table = table;
    ck_assert_int_eq(connector_find("blackhole")->create_sink(&spec, &writer, &diag), JOINERY_OK);
    ck_assert_int_eq(writer->vtable->write(writer, &batch, &diag), JOINERY_OK);
    ck_assert_uint_eq(writer->rows_written, 2);
    writer->vtable->close(writer);
    ck_assert_ptr_null(connector_find("blackhole")->create_source);
    catalog_table_free(table);
    free(first);
    free(second);
    row_builder_free(&builder);
}
END_TEST

static Suite *connector_suite(void)
{
    Suite *suite = suite_create("connector");
    TCase *registry = tcase_create("registry");
    tcase_add_test(registry, test_registry_find);
    tcase_add_test(registry, test_registry_messages);
    suite_add_tcase(suite, registry);
    TCase *datagen = tcase_create("datagen");
    tcase_add_test(datagen, test_datagen_determinism);
    tcase_add_test(datagen, test_datagen_sequence_and_bounds);
    tcase_add_test(datagen, test_datagen_rate_limit);
    tcase_add_test(datagen, test_datagen_parallel_union);
    suite_add_tcase(suite, datagen);
    TCase *filesystem = tcase_create("filesystem");
    tcase_add_checked_fixture(filesystem, setup_directory, teardown_directory);
    tcase_add_test(filesystem, test_filesystem_json_file);
    tcase_add_test(filesystem, test_filesystem_bad_records);
    tcase_add_test(filesystem, test_filesystem_directory_and_metadata);
    tcase_add_test(filesystem, test_filesystem_missing_path);
    tcase_add_test(filesystem, test_filesystem_csv_errors);
    tcase_add_test(filesystem, test_filesystem_sink_round_trip);
    tcase_add_test(filesystem, test_filesystem_sink_directory);
    suite_add_tcase(suite, filesystem);
    TCase *sinks = tcase_create("sinks");
    tcase_add_test(sinks, test_print_format);
    suite_add_tcase(suite, sinks);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(connector_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
