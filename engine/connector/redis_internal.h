/*
 * redis_internal.h - what the redis connector's files share
 * (redis_config.c: options, the table's layout, the connection, value
 * encoding, the connector entry; redis_lookup.c; redis_sink.c).
 *
 * Layout (the option names and value encodings of jeff-zou's
 * flink-connector-redis, the Redis connector Flink SQL users use most;
 * `command` names the Redis data type):
 *   - 'get' / 'set' (strings): the first column is the key; with
 *     'value.data.structure' = 'column' (default) exactly one more column,
 *     the value; with 'row' the value is every column, the key included,
 *     joined by '\x01'.
 *   - 'hget' / 'hset' (hashes, one field a row): the first column is the
 *     key, the second the hash field, then the value ('column': exactly
 *     one) or, with 'row', every column joined by '\x01'.
 *   - 'hmget' (joinery's: a hash a row): the first column is the key, each
 *     other column is the hash field of its name (HMGET key c2 c3 ...).
 * Values are text: numbers and strings as written; BOOLEAN "true" /
 * "false"; DATE days since 1970-01-01, TIME milliseconds of the day,
 * TIMESTAMP milliseconds since the epoch (jeff-zou's encodings). A key
 * is the text of its column the same way.
 *
 * Invariant: the password goes to Redis in AUTH only; no message holds it.
 */
#ifndef JOINERY_CONNECTOR_REDIS_INTERNAL_H
#define JOINERY_CONNECTOR_REDIS_INTERNAL_H

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"

typedef enum RedisDataType {
    REDIS_STRING,   /* get / set */
    REDIS_HASH,     /* hget / hset: key, field, value */
    REDIS_HASH_ROW, /* hmget: key, then fields named as columns */
} RedisDataType;

typedef struct RedisLayout {
    RedisDataType data_type;
    bool row_value;       /* 'value.data.structure' = 'row' */
    uint32_t key_columns; /* 1 (key) or 2 (key, hash field) */
    char host[256];
    int port;
    int database;
    int timeout_millis;
    char store[320]; /* "Redis at host:port/database" */
} RedisLayout;

/* Reads the table's options (validated when the table was created). */
int redis_layout(const CatalogTable *table, RedisLayout *layout, Diag *diag);

/*
 * Opens a blocking connection, authenticates (AUTH [username] password)
 * and selects the database; NULL with diag set naming the table and the
 * store (connection refused, authentication failed).
 */
redisContext *redis_connect(const CatalogTable *table, const RedisLayout *layout, Diag *diag);

/*
 * Sends AUTH and SELECT on a new asynchronous context (no wait; their
 * replies come first). 0, or -1 when hiredis could not queue them.
 */
int redis_async_prepare(redisAsyncContext *context, const CatalogTable *table,
                        const RedisLayout *layout, redisCallbackFn *callback, void *data);

/* Appends the text of a non-NULL value (a key, a field value). -1: no memory. */
int redis_value_to_text(DataType type, Value value, StrBuf *out);

/* Sets field `field` from its text. 0, or -1 with a reason in `error`. */
int redis_text_to_field(RowBuilder *builder, uint32_t field, DataType type, const char *text,
                        size_t length, char *error, size_t error_size);

/*
 * Builds the result row of a lookup from the reply (GET / HGET: a string
 * or nil; HMGET: an array). `key` holds the key fields; fields are the
 * spec's produced columns (`columns`, `types`). *row NULL: no match.
 * JOINERY_OK or an error naming table, store and key (a reply of the
 * wrong type: the key holds another data type).
 */
struct LookupSpec;
int redis_reply_to_row(const struct LookupSpec *spec, const RedisLayout *layout,
                       const redisReply *reply, const Row *key, RowBuilder *builder, Row **row,
                       Diag *diag);

/* Appends the lookup command's arguments for `key` (argv / lengths into `arguments`). */
typedef struct RedisCommand {
    StrBuf text; /* the arguments, NUL-separated */
    size_t offsets[80];
    size_t lengths[80];
    const char *argv[80];
    int argc;
} RedisCommand;

void redis_command_begin(RedisCommand *command);
int redis_command_add(RedisCommand *command, const char *text, size_t length);
int redis_command_add_value(RedisCommand *command, DataType type, Value value);
/* Fixes argv once every argument is in. */
void redis_command_finish(RedisCommand *command);

/* The GET / HGET / HMGET of a lookup key. -1: no memory. */
int redis_lookup_command(const struct LookupSpec *spec, const RedisLayout *layout, const Row *key,
                         RedisCommand *command);

int redis_create_lookup(const struct LookupSpec *spec, struct LookupFunction **function,
                        Diag *diag);
int redis_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag);

#endif
