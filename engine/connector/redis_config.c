/*
 * redis_config.c - the 'redis' connector (a lookup table and a sink)
 * through hiredis: its options, the table's layout (redis_internal.h),
 * the connection, the encoding of values as Redis strings, the commands
 * of a lookup and the rows of their replies, and the connector entry.
 *
 * Options follow jeff-zou's flink-connector-redis (the family most Flink
 * SQL users already write): 'host', 'port' (6379), 'password',
 * 'database' (0), 'timeout' (ms, 2000), 'redis-mode' ('single'),
 * 'command', 'value.data.structure' ('column' | 'row'),
 * 'lookup.max-retries' (1), 'ttl' (seconds, sink); joinery adds
 * 'username' (a Redis 6 ACL user for AUTH) and the 'hmget' command.
 *
 * Invariant: the password goes to Redis in AUTH only; no message holds it
 * (the option itself is masked by engine/base/sensitive.h's rule).
 */
#include "engine/connector/redis_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

#include "engine/connector/lookup.h"

static const struct {
    const char *name;
    RedisDataType data_type;
} COMMANDS[] = {
    {"get", REDIS_STRING}, {"set", REDIS_STRING},     {"hget", REDIS_HASH},
    {"hset", REDIS_HASH},  {"hmget", REDIS_HASH_ROW},
};

static int64_t option_int(const CatalogTable *table, const char *key, int64_t fallback)
{
    int64_t value;
    const char *text = catalog_table_option(table, key);
    return text && connector_parse_int64(text, &value) ? value : fallback;
}

int redis_layout(const CatalogTable *table, RedisLayout *layout, Diag *diag)
{
    memset(layout, 0, sizeof *layout);
    const char *command = catalog_table_option(table, "command");
    size_t c = 0;
    while (c < sizeof COMMANDS / sizeof COMMANDS[0] &&
           (!command || strcasecmp(command, COMMANDS[c].name) != 0))
        c++;
    if (c == sizeof COMMANDS / sizeof COMMANDS[0])
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Table '%s': option 'command' = '%s' is not supported; a redis table "
                          "is read and written with 'get' / 'set' (strings), 'hget' / 'hset' "
                          "(one hash field a row) or 'hmget' (a hash a row).",
                          table->name, command ? command : "");
    layout->data_type = COMMANDS[c].data_type;
    layout->key_columns = layout->data_type == REDIS_HASH ? 2 : 1;
    const char *structure = catalog_table_option(table, "value.data.structure");
    if (structure && strcasecmp(structure, "row") != 0 && strcasecmp(structure, "column") != 0)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': option 'value.data.structure' must be 'column' or 'row', "
                          "not '%s'.",
                          table->name, structure);
    layout->row_value = structure && strcasecmp(structure, "row") == 0;
    if (layout->row_value && layout->data_type == REDIS_HASH_ROW)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Table '%s': 'command' = 'hmget' keeps each column in its own hash "
                          "field; 'value.data.structure' = 'row' does not apply.",
                          table->name);
    const char *host = catalog_table_option(table, "host");
    snprintf(layout->host, sizeof layout->host, "%s", host ? host : "");
    layout->port = (int)option_int(table, "port", 6379);
    layout->database = (int)option_int(table, "database", 0);
    layout->timeout_millis = (int)option_int(table, "timeout", 2000);
    snprintf(layout->store, sizeof layout->store, "Redis at %s:%d/%d", layout->host, layout->port,
             layout->database);
    return JOINERY_OK;
}

/* The text of a Redis error reply or of a context's error, for messages. */
static const char *context_error(const redisContext *context)
{
    return context && context->errstr[0] ? context->errstr : "connection failed";
}

redisContext *redis_connect(const CatalogTable *table, const RedisLayout *layout, Diag *diag)
{
    struct timeval timeout = {layout->timeout_millis / 1000,
                              (layout->timeout_millis % 1000) * 1000};
    redisContext *context = redisConnectWithTimeout(layout->host, layout->port, timeout);
    if (!context || context->err) {
        diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot connect to %s: %s", table->name,
                   layout->store, context_error(context));
        if (context)
            redisFree(context);
        return NULL;
    }
    redisSetTimeout(context, timeout);
    const char *password = catalog_table_option(table, "password");
    const char *username = catalog_table_option(table, "username");
    const char *argv[3];
    size_t lengths[3];
    int argc = 0;
    if (password) {
        argv[argc] = "AUTH";
        lengths[argc++] = 4;
        if (username) {
            argv[argc] = username;
            lengths[argc++] = strlen(username);
        }
        argv[argc] = password;
        lengths[argc++] = strlen(password);
        redisReply *reply = redisCommandArgv(context, argc, argv, lengths);
        if (!reply || reply->type == REDIS_REPLY_ERROR) {
            diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': authentication to %s failed: %s",
                       table->name, layout->store, reply ? reply->str : context_error(context));
            if (reply)
                freeReplyObject(reply);
            redisFree(context);
            return NULL;
        }
        freeReplyObject(reply);
    }
    redisReply *reply = redisCommand(context, "SELECT %d", layout->database);
    bool failed = !reply || reply->type == REDIS_REPLY_ERROR;
    if (failed)
        diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': cannot use %s: %s", table->name,
                   layout->store, reply ? reply->str : context_error(context));
    if (reply)
        freeReplyObject(reply);
    if (failed) {
        redisFree(context);
        return NULL;
    }
    return context;
}

int redis_async_prepare(redisAsyncContext *context, const CatalogTable *table,
                        const RedisLayout *layout, redisCallbackFn *callback, void *data)
{
    const char *password = catalog_table_option(table, "password");
    const char *username = catalog_table_option(table, "username");
    if (password) {
        const char *argv[3] = {"AUTH", username ? username : password, password};
        size_t lengths[3] = {4, strlen(argv[1]), strlen(password)};
        if (redisAsyncCommandArgv(context, callback, data, username ? 3 : 2, argv, lengths) !=
            REDIS_OK)
            return -1;
    }
    return redisAsyncCommand(context, callback, data, "SELECT %d", layout->database) == REDIS_OK
               ? 0
               : -1;
}

int redis_value_to_text(DataType type, Value value, StrBuf *out)
{
    switch (type.id) {
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        return strbuf_append(out, value.s.ptr, value.s.len);
    case TYPE_BOOLEAN:
        return strbuf_append_cstr(out, value.i ? "true" : "false");
    case TYPE_DATE:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ:
        return strbuf_printf(out, "%lld", (long long)value.i);
    default:
        return value_format_text(type, value, out);
    }
}

int redis_text_to_field(RowBuilder *builder, uint32_t field, DataType type, const char *text,
                        size_t length, char *error, size_t error_size)
{
    Value value;
    switch (type.id) {
    case TYPE_CHAR:
    case TYPE_VARCHAR:
        row_builder_set_string(builder, field, text, (uint32_t)length);
        return 0;
    case TYPE_DATE:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ: {
        DataType integer = type_make(TYPE_BIGINT, true);
        if (value_parse_text(integer, text, (uint32_t)length, NULL, &value, error, error_size) != 0)
            return -1;
        row_builder_set_int64(builder, field, value.i);
        return 0;
    }
    default:
        if (value_parse_text(type, text, (uint32_t)length, NULL, &value, error, error_size) != 0)
            return -1;
        value_to_builder(builder, field, type, value);
        return 0;
    }
}

void redis_command_begin(RedisCommand *command)
{
    strbuf_clear(&command->text);
    command->argc = 0;
}

int redis_command_add(RedisCommand *command, const char *text, size_t length)
{
    if (command->argc == (int)(sizeof command->argv / sizeof command->argv[0]))
        return -1;
    command->offsets[command->argc] = command->text.length;
    command->lengths[command->argc] = length;
    command->argc++;
    return strbuf_append(&command->text, text, length) != 0 ||
                   strbuf_append_char(&command->text, '\0') != 0
               ? -1
               : 0;
}

int redis_command_add_value(RedisCommand *command, DataType type, Value value)
{
    if (command->argc == (int)(sizeof command->argv / sizeof command->argv[0]))
        return -1;
    size_t start = command->text.length;
    command->offsets[command->argc] = start;
    if (redis_value_to_text(type, value, &command->text) != 0)
        return -1;
    command->lengths[command->argc] = command->text.length - start;
    command->argc++;
    return strbuf_append_char(&command->text, '\0');
}

void redis_command_finish(RedisCommand *command)
{
    for (int i = 0; i < command->argc; i++)
        command->argv[i] = command->text.data + command->offsets[i];
}

int redis_lookup_command(const LookupSpec *spec, const RedisLayout *layout, const Row *key,
                         RedisCommand *command)
{
    const CatalogTable *table = spec->table;
    redis_command_begin(command);
    static const char *const NAMES[] = {"GET", "HGET", "HMGET"};
    const char *name = NAMES[layout->data_type];
    int failed = redis_command_add(command, name, strlen(name));
    for (uint32_t k = 0; k < layout->key_columns; k++)
        failed |= redis_command_add_value(command, spec->key_types[k],
                                          value_from_row(key, k, spec->key_types[k]));
    if (layout->data_type == REDIS_HASH_ROW)
        for (size_t c = 1; c < table->column_count; c++)
            failed |=
                redis_command_add(command, table->columns[c].name, strlen(table->columns[c].name));
    redis_command_finish(command);
    return failed ? -1 : 0;
}

/* The key's text for messages ("user:1" or "user:1" / "field"). */
static void key_text(const LookupSpec *spec, const RedisLayout *layout, const Row *key, char *out,
                     size_t size)
{
    StrBuf text = STRBUF_INIT;
    for (uint32_t k = 0; k < layout->key_columns; k++) {
        if (k)
            strbuf_append_cstr(&text, "' field '");
        redis_value_to_text(spec->key_types[k], value_from_row(key, k, spec->key_types[k]), &text);
    }
    snprintf(out, size, "%.*s", (int)(text.length < 200 ? text.length : 200),
             text.data ? text.data : "");
    strbuf_free(&text);
}

int redis_reply_to_row(const LookupSpec *spec, const RedisLayout *layout, const redisReply *reply,
                       const Row *key, RowBuilder *builder, Row **row, Diag *diag)
{
    const CatalogTable *table = spec->table;
    *row = NULL;
    char key_shown[240];
    key_text(spec, layout, key, key_shown, sizeof key_shown);
    if (reply->type == REDIS_REPLY_ERROR)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Table '%s': looking up key '%s' in %s failed: %s", table->name,
                          key_shown, layout->store, reply->str);
    /* the text of each table column: from the key, the value, or the hash fields */
    enum { MAX_COLUMNS = 64 };
    const char *texts[MAX_COLUMNS] = {0};
    size_t lengths[MAX_COLUMNS] = {0};
    bool present[MAX_COLUMNS] = {0};
    if (table->column_count > MAX_COLUMNS)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "Table '%s': more than %d columns.",
                          table->name, MAX_COLUMNS);
    bool expect_array = layout->data_type == REDIS_HASH_ROW;
    if (reply->type == REDIS_REPLY_NIL)
        return JOINERY_OK;
    if ((expect_array && reply->type != REDIS_REPLY_ARRAY) ||
        (!expect_array && reply->type != REDIS_REPLY_STRING))
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Table '%s': key '%s' in %s does not hold what 'command' reads (a "
                          "reply of type %d).",
                          table->name, key_shown, layout->store, reply->type);
    if (expect_array) {
        bool any = false;
        for (size_t c = 1; c < table->column_count && c - 1 < reply->elements; c++) {
            const redisReply *element = reply->element[c - 1];
            if (element->type == REDIS_REPLY_STRING) {
                texts[c] = element->str;
                lengths[c] = element->len;
                present[c] = any = true;
            }
        }
        if (!any)
            return JOINERY_OK; /* no such hash (or none of its fields) */
    } else if (layout->row_value) {
        const char *from = reply->str, *end = reply->str + reply->len;
        size_t c = 0;
        for (; c < table->column_count; c++) {
            const char *stop = memchr(from, '\x01', (size_t)(end - from));
            if (!stop)
                stop = end;
            texts[c] = from;
            lengths[c] = (size_t)(stop - from);
            present[c] = lengths[c] > 0 || type_is_string(table->columns[c].type.id);
            if (stop == end)
                break;
            from = stop + 1;
        }
        if (c + 1 != table->column_count)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': the value of key '%s' in %s has %zu fields "
                              "separated by '\\x01', not %zu (one per column).",
                              table->name, key_shown, layout->store, c + 1, table->column_count);
    } else {
        size_t c = layout->key_columns; /* the value column */
        texts[c] = reply->str;
        lengths[c] = reply->len;
        present[c] = true;
    }
    row_builder_begin(builder, spec->field_count, ROW_KIND_INSERT);
    for (uint32_t f = 0; f < spec->field_count; f++) {
        uint32_t c = spec->columns[f];
        if (c < layout->key_columns && !layout->row_value) {
            value_to_builder(builder, f, spec->types[f],
                             value_from_row(key, c, spec->key_types[c]));
            continue;
        }
        if (!present[c]) {
            row_builder_set_null(builder, f);
            continue;
        }
        char error[160];
        if (redis_text_to_field(builder, f, spec->types[f], texts[c], lengths[c], error,
                                sizeof error) != 0)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Table '%s': column '%s' of key '%s' in %s: %s", table->name,
                              table->columns[c].name, key_shown, layout->store, error);
    }
    *row = row_builder_finish(builder);
    return *row ? JOINERY_OK : diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

static bool type_supported(DataType type)
{
    switch (type.id) {
    case TYPE_CHAR:
    case TYPE_VARCHAR:
    case TYPE_BOOLEAN:
    case TYPE_TINYINT:
    case TYPE_SMALLINT:
    case TYPE_INT:
    case TYPE_BIGINT:
    case TYPE_FLOAT:
    case TYPE_DOUBLE:
    case TYPE_DECIMAL:
    case TYPE_DATE:
    case TYPE_TIME:
    case TYPE_TIMESTAMP:
    case TYPE_TIMESTAMP_LTZ:
        return true;
    default:
        return false;
    }
}

static int redis_validate(const CatalogTable *table, Diag *diag)
{
    static const struct {
        const char *key;
        int64_t min, max;
    } INTEGERS[] = {{"port", 1, 65535},
                    {"database", 0, 100000},
                    {"timeout", 1, 3600000},
                    {"ttl", 1, 2147483647},
                    {"lookup.max-retries", 0, 1000}};
    for (size_t i = 0; i < sizeof INTEGERS / sizeof INTEGERS[0]; i++) {
        const char *text = catalog_table_option(table, INTEGERS[i].key);
        int64_t value;
        if (text && (!connector_parse_int64(text, &value) || value < INTEGERS[i].min ||
                     value > INTEGERS[i].max))
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Table '%s': option '%s' must be an integer from %lld to %lld, "
                              "not '%s'.",
                              table->name, INTEGERS[i].key, (long long)INTEGERS[i].min,
                              (long long)INTEGERS[i].max, text);
    }
    const char *mode = catalog_table_option(table, "redis-mode");
    if (mode && strcasecmp(mode, "single") != 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Table '%s': option 'redis-mode' = '%s' is not supported yet (only "
                          "'single').",
                          table->name, mode);
    RedisLayout layout;
    int status = redis_layout(table, &layout, diag);
    if (status != JOINERY_OK)
        return status;
    uint32_t physical = 0;
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (column->kind != CATALOG_COLUMN_PHYSICAL)
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Table '%s': column '%s': a redis table has physical columns only.",
                              table->name, column->name);
        if (!type_supported(column->type)) {
            char declared[128];
            type_format(column->type, declared, sizeof declared);
            return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                              "Table '%s': column '%s' of type %s is not supported by the redis "
                              "connector.",
                              table->name, column->name, declared);
        }
        physical++;
    }
    uint32_t values = physical > layout.key_columns ? physical - layout.key_columns : 0;
    bool fits = layout.row_value || layout.data_type == REDIS_HASH_ROW ? values >= 1 : values == 1;
    if (!fits)
        return diag_error(
            diag, JOINERY_ERROR_VALIDATE,
            "Table '%s': with 'command' = '%s' the table has %s (the key%s first), not %u "
            "columns.",
            table->name, catalog_table_option(table, "command"),
            layout.data_type == REDIS_HASH ? (layout.row_value ? "at least 3 columns" : "3 columns")
            : layout.row_value || layout.data_type == REDIS_HASH_ROW ? "at least 2 columns"
                                                                     : "2 columns",
            layout.data_type == REDIS_HASH ? " and the hash field" : "", physical);
    return JOINERY_OK;
}

static bool redis_is_bounded(const CatalogTable *table)
{
    (void)table;
    return true;
}

static const ConnectorOption REDIS_OPTIONS[] = {
    {"host", true, "the Redis server's host"},
    {"port", false, "its port (default 6379)"},
    {"username", false, "a Redis 6 ACL user for AUTH (joinery's; default: none)"},
    {"password", false, "password for AUTH (masked everywhere)"},
    {"database", false, "the database number (default 0)"},
    {"timeout", false, "connect and command timeout in milliseconds (default 2000)"},
    {"redis-mode", false, "'single' (cluster and sentinel not yet)"},
    {"command", true,
     "get / set (strings), hget / hset (a hash field a row), hmget (a hash a row)"},
    {"value.data.structure", false, "'column' (default: the value is one column) or 'row'"},
    {"lookup.max-retries", false, "reconnects after a broken connection (default 1)"},
    {"ttl", false, "sink: seconds until a written key expires"},
    {"sink.parallelism", false, "parallelism of the sink"},
};

const Connector connector_redis = {
    .name = "redis",
    .options = REDIS_OPTIONS,
    .option_count = sizeof REDIS_OPTIONS / sizeof REDIS_OPTIONS[0],
    .validate = redis_validate,
    .is_bounded = redis_is_bounded,
    .estimate_rows = NULL,
    .create_source = NULL,
    .create_sink = redis_create_sink,
    .create_lookup = redis_create_lookup,
    .sink_changelog = NULL,
    .sink_update_hint = NULL,
};
