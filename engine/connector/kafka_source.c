/*
 * kafka_source.c - the reader of the 'kafka' and 'upsert-kafka' connectors
 * (kafka_create_source): partition discovery and assignment, start and end
 * offsets, polling and decoding records into rows, commits on close.
 *
 * The partitions of 'topic' (a ';' list) or 'topic-pattern' are found from
 * the cluster's metadata when the reader is created and split across the
 * SourceSpec's readers as Flink's enumerator does (kafka_split_owner); each
 * reader assign()s its partitions - no group rebalance - at start offsets
 * from scan.startup.mode. With scan.bounded.mode the end offset of every
 * partition is captured at start; a partition is finished when its position
 * reaches it and the reader ends when all are. poll never blocks: it takes
 * what the consumer queue holds (rd_kafka_consume_batch_queue with timeout
 * 0) and returns SOURCE_POLL_IDLE when nothing is ready. Messages of a batch
 * are decoded straight into rows in the caller's arena; a message whose
 * change event gives more rows than the batch holds keeps the rest pending
 * for the next poll. The reader keeps each partition's position (next
 * offset) and commits them to 'properties.group.id' on close once the job
 * stopped cleanly. A bad record (undecodable, or larger than
 * 'properties.message.max.bytes') fails the job naming topic, partition and
 * offset, or is skipped and counted in skipped_rows with the format's
 * ignore-parse-errors.
 */
#include "engine/connector/kafka_internal.h"

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
    KAFKA_CONSUME_BATCH = 1024, /* messages taken from the queue at once */
    KAFKA_IDLE_POLL_MS = 5,
};

/* ================================================================ source */

typedef struct KafkaPartitionState {
    const char *topic; /* the reader's copy */
    int32_t partition;
    int64_t start;    /* offset or librdkafka logical offset to assign */
    int64_t end;      /* bounded: first offset not to read; -1 unbounded */
    int64_t position; /* next offset to read; -1 before the first message */
    bool finished;
    /* restored from a checkpoint inside a record: rows of the record at `start` that went
       out before it (skipped when it is read again) */
    uint32_t skip_rows;
    int64_t skip_offset;
} KafkaPartitionState;

/* Where a produced field comes from. */
typedef struct KafkaFieldSource {
    int32_t value_index; /* value decoder field, -1 when not in the value */
    int32_t key_index;   /* key decoder field, -1 when not in the key */
    KafkaMetadata metadata;
} KafkaFieldSource;

enum { KAFKA_SKIP_REPORT_RECORDS = 5 }; /* skipped records listed one by one, per reader */

typedef struct KafkaReader {
    SourceReader base;
    volatile int *cancel_requested; /* SourceSpec.cancel_requested: start look-ups give up */
    Arena arena;                    /* topic names, states */
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
        /* where, for SHOW JOB METRICS: the first few by topic, partition and offset */
        if (reader->base.skipped_rows++ < KAFKA_SKIP_REPORT_RECORDS)
            strbuf_printf(&reader->base.skip_report, "topic '%s', partition %d, offset %lld: %s\n",
                          rd_kafka_topic_name(message->rkt), (int)message->partition,
                          (long long)message->offset, reason);
        else if (reader->base.skipped_rows == KAFKA_SKIP_REPORT_RECORDS + 1)
            strbuf_append_cstr(&reader->base.skip_report,
                               "(and more: only the first are listed)\n");
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
        if (state->skip_rows && message->offset == state->skip_offset) {
            reader->pending_next =
                state->skip_rows < reader->pending_count ? state->skip_rows : reader->pending_count;
            state->skip_rows = 0;
        }
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
    strbuf_free(&reader->base.skip_report);
    strbuf_free(&reader->base.warnings);
    free(reader->header_entries);
    arena_destroy(&reader->arena);
    free(reader);
}

/*
 * The position (checkpoints): per assigned partition its topic, number, the
 * offset to go on from (the next offset not read, or the record some of
 * whose rows went out - with how many did - or, before the first record, the
 * resolved start) and whether a bounded read finished it.
 */
static int reader_assign(KafkaReader *reader, Diag *diag);

static int kafka_snapshot_position(SourceReader *base, const ByteWriter *out)
{
    KafkaReader *reader = (KafkaReader *)base;
    int status = byte_write_int64(out, (int64_t)reader->partition_count);
    bool partial = reader->current && reader->pending_next < reader->pending_count;
    for (size_t i = 0; i < reader->partition_count && status == JOINERY_OK; i++) {
        const KafkaPartitionState *state = &reader->partitions[i];
        int64_t resume = state->position >= 0 ? state->position : state->start;
        int64_t skip = 0;
        if (partial && reader->current_split == i) {
            resume = reader->current->offset;
            skip = reader->pending_next;
        } else if (state->skip_rows) { /* restored inside a record not read again yet */
            resume = state->skip_offset;
            skip = state->skip_rows;
        }
        int64_t length = (int64_t)strlen(state->topic);
        int64_t fields[4] = {state->partition, resume, state->finished, skip};
        status = byte_write_int64(out, length);
        if (status == JOINERY_OK)
            status = out->write(out->context, state->topic, (size_t)length);
        if (status == JOINERY_OK)
            status = out->write(out->context, fields, sizeof fields);
    }
    return status;
}

static int kafka_restore_position(SourceReader *base, const ByteReader *in, Diag *diag)
{
    KafkaReader *reader = (KafkaReader *)base;
    int64_t count = 0;
    if (byte_read_int64(in, &count) != JOINERY_OK || count < 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The checkpointed position of table '%s' is cut short",
                          reader->table_name);
    if ((size_t)count != reader->partition_count)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot resume table '%s': the checkpoint read %lld partitions, this "
                          "reader is assigned %zu",
                          reader->table_name, (long long)count, reader->partition_count);
    for (int64_t p = 0; p < count; p++) {
        int64_t length = 0, fields[4];
        char topic[512];
        if (byte_read_int64(in, &length) != JOINERY_OK || length <= 0 ||
            length >= (int64_t)sizeof topic ||
            in->read(in->context, topic, (size_t)length) != JOINERY_OK ||
            in->read(in->context, fields, sizeof fields) != JOINERY_OK)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "The checkpointed position of table '%s' is cut short",
                              reader->table_name);
        topic[length] = '\0';
        KafkaPartitionState *state = NULL;
        for (size_t i = 0; i < reader->partition_count && !state; i++)
            if (reader->partitions[i].partition == (int32_t)fields[0] &&
                strcmp(reader->partitions[i].topic, topic) == 0)
                state = &reader->partitions[i];
        if (!state)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Cannot resume table '%s': partition %lld of topic '%s' in the "
                              "checkpoint is not assigned to this reader",
                              reader->table_name, (long long)fields[0], topic);
        state->start = fields[1];
        state->position = fields[1] >= 0 ? fields[1] : -1;
        state->skip_rows = (uint32_t)fields[3];
        state->skip_offset = fields[1];
        if (fields[2])
            reader_finish_partition(reader, state);
    }
    /* messages fetched from the creation's offsets are dropped by position */
    for (size_t i = reader->message_next; i < reader->message_count; i++)
        rd_kafka_message_destroy(reader->messages[i]);
    reader->message_next = reader->message_count = 0;
    if (reader->queue) {
        rd_kafka_queue_destroy(reader->queue);
        reader->queue = NULL;
    }
    return reader_assign(reader, diag);
}

static const SourceReaderVtable KAFKA_READER = {
    .poll = kafka_poll,
    .close = kafka_close_reader,
    .snapshot_position = kafka_snapshot_position,
    .restore_position = kafka_restore_position,
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
    size_t topic_count =
        topic_list ? kafka_split_topics(topic_list, &reader->arena, topics, 256) : 0;
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
    const char *servers = catalog_table_option(table, "properties.bootstrap.servers");
    int64_t started = kafka_monotonic_millis();
    int64_t deadline = started + kafka_start_deadline_millis(table);
    bool missing;
    bool reported = false;
    do {
        if (metadata)
            rd_kafka_metadata_destroy(metadata);
        metadata = NULL;
        /* short attempts, so that Ctrl-C stops the wait at once */
        if (spec->cancel_requested && *spec->cancel_requested) {
            if (pattern)
                regfree(&regex);
            return diag_error(diag, JOINERY_CANCELLED,
                              "cancelled while waiting for the Kafka cluster at '%s'", servers);
        }
        int64_t now = kafka_monotonic_millis();
        if (!reported && now - started >= 1000 && spec->progress) {
            char line[400];
            snprintf(line, sizeof line,
                     "Waiting for the Kafka cluster at '%s' (table '%s', up to %lld s; Ctrl-C "
                     "stops)...",
                     servers ? servers : "", table->name, (long long)((deadline - started) / 1000));
            spec->progress(spec->progress_context, line);
            reported = true;
        }
        int64_t attempt = deadline - now < KAFKA_WAIT_STEP_MS ? deadline - now : KAFKA_WAIT_STEP_MS;
        err =
            rd_kafka_metadata(reader->consumer, 1, NULL, &metadata, attempt > 0 ? (int)attempt : 1);
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
        if (kafka_monotonic_millis() >= deadline || kafka_retry_pause(spec->cancel_requested))
            break;
    } while (1);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (pattern)
            regfree(&regex);
        return diag_error(diag, kafka_start_failure(spec->cancel_requested),
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
    int64_t deadline = kafka_monotonic_millis() + KAFKA_START_DEADLINE_MS;
    rd_kafka_resp_err_t err;
    for (;;) {
        err = rd_kafka_query_watermark_offsets(reader->consumer, state->topic, state->partition,
                                               low, high, KAFKA_METADATA_TIMEOUT_MS);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR || kafka_monotonic_millis() >= deadline ||
            kafka_retry_pause(reader->cancel_requested))
            break;
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return diag_error(diag, kafka_start_failure(reader->cancel_requested),
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
    int64_t deadline = kafka_monotonic_millis() + KAFKA_START_DEADLINE_MS;
    rd_kafka_resp_err_t err;
    for (;;) {
        err = by_timestamp
                  ? rd_kafka_offsets_for_times(reader->consumer, list, KAFKA_METADATA_TIMEOUT_MS)
                  : rd_kafka_committed(reader->consumer, list, KAFKA_METADATA_TIMEOUT_MS);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR || kafka_monotonic_millis() >= deadline)
            break;
        for (int i = 0; by_timestamp && i < list->cnt; i++)
            list->elems[i].offset = timestamp;
        if (kafka_retry_pause(reader->cancel_requested))
            break;
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rd_kafka_topic_partition_list_destroy(list);
        return diag_error(diag, kafka_start_failure(reader->cancel_requested),
                          "Cannot read the %s offsets of table '%s': %s",
                          by_timestamp ? "timestamp" : "committed", reader->table_name,
                          rd_kafka_err2str(err));
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
    uint32_t value_count = kafka_layout_value_columns(layout, table, value_columns);
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
        kafka_layout_key_fields(layout, table, names, types);
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
            source->metadata = kafka_metadata_from_key(
                definition->metadata_key ? definition->metadata_key : definition->name);
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
    reader->cancel_requested = spec->cancel_requested;
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
        status = kafka_conf_set(conf, "group.id", group, "properties.group.id", diag);
    }
    if (status == JOINERY_OK && !catalog_table_option(table, "properties.auto.offset.reset")) {
        /* group-offsets without a committed offset fails, as Flink's default ('none') */
        status = kafka_conf_set(conf, "auto.offset.reset",
                                scan->startup == KAFKA_STARTUP_GROUP_OFFSETS ? "error" : "earliest",
                                "properties.auto.offset.reset", diag);
    }
    if (status == JOINERY_OK) {
        reader->max_record_bytes = kafka_conf_get_int(conf, "message.max.bytes", 1000000);
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
