/*
 * redis_sink.c - writes rows into Redis (the redis connector's sink), by
 * the key the layout builds (redis_internal.h), as jeff-zou's connector
 * does: +I and +U write, -D deletes, -U is dropped (the +U after it
 * overwrites the key).
 *   - 'set': SET key value [EX ttl]; a NULL value (column layout) DELs.
 *     -D: DEL key.
 *   - 'hset': HSET key field value [+ EXPIRE key ttl]; a NULL value HDELs.
 *     -D: HDEL key field.
 *   - 'hmget': HSET key c2 v2 c3 v3 ... of the non-NULL columns, HDEL of
 *     the NULL ones [+ EXPIRE]. -D: DEL key.
 * With 'value.data.structure' = 'row' the value is every column's text
 * joined by '\x01' (a NULL as empty). Each RowBatch is written as one
 * pipeline (every command appended, then every reply read) before write
 * returns; a failed command fails the job with Redis's reply, naming the
 * table, the store and the key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/redis_internal.h"

typedef struct RedisWriter {
    SinkWriter base;
    RedisLayout layout;
    redisContext *context;
    int64_t ttl;
    uint32_t columns[64]; /* table column of each sink field */
    int32_t fields[64];   /* sink field of each table column, -1: none */
    RedisCommand command;
    StrBuf value;
    uint32_t pending; /* commands appended, replies not read */
} RedisWriter;

static int write_failed(RedisWriter *writer, const char *reason, Diag *diag)
{
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Table '%s': writing to %s failed: %s",
                      writer->base.spec->table->name, writer->layout.store, reason);
}

/* The value of table column c in `row` (NULL when the sink does not write it, or NULL). */
static bool column_value(const RedisWriter *writer, const Row *row, uint32_t c, DataType *type,
                         Value *value)
{
    int32_t field = writer->fields[c];
    if (field < 0 || row_is_null(row, (uint32_t)field))
        return false;
    *type = writer->base.spec->types[field];
    *value = value_from_row(row, (uint32_t)field, *type);
    return true;
}

static int add_column(RedisWriter *writer, const Row *row, uint32_t c)
{
    DataType type;
    Value value;
    if (!column_value(writer, row, c, &type, &value))
        return redis_command_add(&writer->command, "", 0);
    return redis_command_add_value(&writer->command, type, value);
}

static int append(RedisWriter *writer, Diag *diag)
{
    redis_command_finish(&writer->command);
    if (redisAppendCommandArgv(writer->context, writer->command.argc, writer->command.argv,
                               writer->command.lengths) != REDIS_OK)
        return write_failed(writer, writer->context->errstr, diag);
    writer->pending++;
    return JOINERY_OK;
}

static int begin(RedisWriter *writer, const char *name, const Row *row, uint32_t keys)
{
    redis_command_begin(&writer->command);
    int failed = redis_command_add(&writer->command, name, strlen(name));
    for (uint32_t k = 0; k < keys; k++)
        failed |= add_column(writer, row, k);
    return failed;
}

static int append_expire(RedisWriter *writer, const Row *row, Diag *diag)
{
    if (writer->ttl <= 0)
        return JOINERY_OK;
    char ttl[32];
    snprintf(ttl, sizeof ttl, "%lld", (long long)writer->ttl);
    if (begin(writer, "EXPIRE", row, 1) != 0 ||
        redis_command_add(&writer->command, ttl, strlen(ttl)) != 0)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return append(writer, diag);
}

/* The commands of one row. */
static int append_row(RedisWriter *writer, const Row *row, Diag *diag)
{
    const CatalogTable *table = writer->base.spec->table;
    const RedisLayout *layout = &writer->layout;
    bool is_delete = row_kind(row) == ROW_KIND_DELETE;
    uint32_t keys = layout->key_columns;
    uint32_t value_column = keys;
    bool value_null = !layout->row_value && layout->data_type != REDIS_HASH_ROW &&
                      (writer->fields[value_column] < 0 ||
                       row_is_null(row, (uint32_t)writer->fields[value_column]));
    for (uint32_t k = 0; k < keys; k++)
        if (writer->fields[k] < 0 || row_is_null(row, (uint32_t)writer->fields[k]))
            return write_failed(writer, "a row with a NULL key", diag);
    int failed = 0;
    if (layout->data_type == REDIS_HASH_ROW) {
        if (is_delete) {
            failed = begin(writer, "DEL", row, 1);
            return failed ? diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory")
                          : append(writer, diag);
        }
        bool any_set = false, any_null = false;
        failed = begin(writer, "HSET", row, 1);
        for (uint32_t c = 1; c < table->column_count; c++) {
            DataType type;
            Value value;
            if (!column_value(writer, row, c, &type, &value)) {
                any_null |= writer->fields[c] >= 0;
                continue;
            }
            failed |= redis_command_add(&writer->command, table->columns[c].name,
                                        strlen(table->columns[c].name));
            failed |= redis_command_add_value(&writer->command, type, value);
            any_set = true;
        }
        if (failed)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        int status = any_set ? append(writer, diag) : JOINERY_OK;
        if (status == JOINERY_OK && any_null) {
            failed = begin(writer, "HDEL", row, 1);
            for (uint32_t c = 1; c < table->column_count; c++)
                if (writer->fields[c] >= 0 && row_is_null(row, (uint32_t)writer->fields[c]))
                    failed |= redis_command_add(&writer->command, table->columns[c].name,
                                                strlen(table->columns[c].name));
            status = failed ? diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory")
                            : append(writer, diag);
        }
        return status == JOINERY_OK ? append_expire(writer, row, diag) : status;
    }
    bool is_hash = layout->data_type == REDIS_HASH;
    if (is_delete || value_null) {
        failed = begin(writer, is_hash ? "HDEL" : "DEL", row, keys);
        return failed ? diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory")
                      : append(writer, diag);
    }
    failed = begin(writer, is_hash ? "HSET" : "SET", row, keys);
    if (layout->row_value) {
        strbuf_clear(&writer->value);
        for (uint32_t c = 0; c < table->column_count; c++) {
            DataType type;
            Value value;
            if (c > 0)
                failed |= strbuf_append_char(&writer->value, '\x01');
            if (column_value(writer, row, c, &type, &value))
                failed |= redis_value_to_text(type, value, &writer->value);
        }
        failed |= redis_command_add(&writer->command, writer->value.data ? writer->value.data : "",
                                    writer->value.length);
    } else {
        failed |= add_column(writer, row, value_column);
    }
    if (!is_hash && writer->ttl > 0) {
        char ttl[32];
        snprintf(ttl, sizeof ttl, "%lld", (long long)writer->ttl);
        failed |= redis_command_add(&writer->command, "EX", 2);
        failed |= redis_command_add(&writer->command, ttl, strlen(ttl));
    }
    if (failed)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    int status = append(writer, diag);
    return status == JOINERY_OK && is_hash ? append_expire(writer, row, diag) : status;
}

/* Reads the replies of every command appended; the first error fails. */
static int read_replies(RedisWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    for (; writer->pending > 0; writer->pending--) {
        void *reply_pointer = NULL;
        if (redisGetReply(writer->context, &reply_pointer) != REDIS_OK) {
            writer->pending = 0;
            return status == JOINERY_OK ? write_failed(writer, writer->context->errstr, diag)
                                        : status;
        }
        redisReply *reply = reply_pointer;
        if (reply->type == REDIS_REPLY_ERROR && status == JOINERY_OK)
            status = write_failed(writer, reply->str, diag);
        freeReplyObject(reply);
    }
    return status;
}

static int redis_sink_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    RedisWriter *writer = base->impl;
    int status = JOINERY_OK;
    uint64_t written = 0;
    for (uint32_t i = 0; i < batch->count && status == JOINERY_OK; i++) {
        if (row_kind(batch->rows[i]) == ROW_KIND_UPDATE_BEFORE)
            continue;
        status = append_row(writer, batch->rows[i], diag);
        written++;
    }
    int read = read_replies(writer, diag);
    if (status == JOINERY_OK)
        status = read;
    if (status == JOINERY_OK)
        base->rows_written += written;
    return status;
}

static int redis_sink_finish(SinkWriter *base, Diag *diag)
{
    (void)base;
    (void)diag;
    return JOINERY_OK; /* every batch was written before write returned */
}

static void redis_sink_abort(SinkWriter *base, StrBuf *note)
{
    RedisWriter *writer = base->impl;
    strbuf_printf(note, "%s keeps the %llu rows written before the failure.", writer->layout.store,
                  (unsigned long long)base->rows_written);
}

static void redis_sink_close(SinkWriter *base)
{
    RedisWriter *writer = base->impl;
    if (writer->context)
        redisFree(writer->context);
    strbuf_free(&writer->command.text);
    strbuf_free(&writer->value);
    free(writer);
}

static const SinkWriterVtable REDIS_WRITER = {
    .write = redis_sink_write,
    .finish = redis_sink_finish,
    .abort = redis_sink_abort,
    .close = redis_sink_close,
};

int redis_create_sink(const SinkSpec *spec, SinkWriter **created, Diag *diag)
{
    const CatalogTable *table = spec->table;
    RedisWriter *writer = calloc(1, sizeof *writer);
    if (!writer)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a redis sink");
    writer->base.vtable = &REDIS_WRITER;
    writer->base.spec = spec;
    writer->base.impl = writer;
    int64_t ttl = 0;
    const char *text = catalog_table_option(table, "ttl");
    if (text)
        connector_parse_int64(text, &ttl);
    writer->ttl = ttl;
    int status = redis_layout(table, &writer->layout, diag);
    if (status == JOINERY_OK && (table->column_count > 64 || spec->field_count > 64))
        status = diag_error(diag, JOINERY_ERROR_UNSUPPORTED, "Table '%s': more than 64 columns.",
                            table->name);
    for (size_t c = 0; c < table->column_count && status == JOINERY_OK; c++)
        writer->fields[c] = -1;
    for (uint32_t f = 0; f < spec->field_count && status == JOINERY_OK; f++) {
        size_t c = 0;
        while (c < table->column_count && strcasecmp(table->columns[c].name, spec->names[f]) != 0)
            c++;
        if (c == table->column_count)
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "Table '%s': sink column '%s' is not a column of the table.",
                                table->name, spec->names[f]);
        else
            writer->fields[c] = (int32_t)f;
    }
    if (status == JOINERY_OK) {
        writer->context = redis_connect(table, &writer->layout, diag);
        status = writer->context ? JOINERY_OK : diag->status;
    }
    if (status != JOINERY_OK) {
        redis_sink_close(&writer->base);
        return status;
    }
    *created = &writer->base;
    return JOINERY_OK;
}
