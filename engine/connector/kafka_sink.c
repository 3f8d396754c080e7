/*
 * kafka_sink.c - the writer of the 'kafka' and 'upsert-kafka' connectors
 * (kafka_create_sink).
 *
 * Rows are encoded (value, and key from 'key.fields' or the primary key) and
 * handed to an idempotent librdkafka producer (so retried produce requests
 * never duplicate); upsert-kafka writes a tombstone (null value) for -D and
 * drops -U. Delivery reports are served on every write; the first failed
 * delivery fails the job, and finish flushes with a bounded timeout
 * (message.timeout.ms plus a margin) and fails if anything is left
 * undelivered. sink.partitioner: default (librdkafka's, by key;
 * 'properties.partitioner' = 'murmur2_random' matches Java producers), fixed
 * (partition 0: one sink subtask), round-robin.
 *
 * 'sink.delivery-guarantee' = 'exactly-once' (Flink's two-phase commit
 * KafkaSink): the producer is transactional, transactional.id = the
 * table's 'sink.transactional-id-prefix' + "-0" (the one sink subtask),
 * the same on every run, so init_transactions at start fences a producer
 * left by an earlier run and aborts its open transaction. Records from one
 * barrier to the next form one transaction, begun at the first record. At
 * the barrier of checkpoint n (prepare_commit) the transaction is flushed
 * and becomes pending for n (the snapshot holds n); it is committed when n
 * is complete (commit), at the sink's next round. librdkafka allows one
 * open transaction per producer, so records written between the barrier and
 * the commit are held in memory (encoded) and produced into the next
 * transaction right after the commit. A checkpoint that never completes
 * leaves its transaction open: at the next barrier the held records join it
 * (they precede that barrier) and it becomes pending for the later
 * checkpoint, whose completion commits both (as Flink commits everything up
 * to the completed checkpoint). A failed job aborts the open transaction.
 * At end of input the open transaction is committed (without checkpoints
 * the whole run is one transaction, committed at the end of a bounded
 * input; an unbounded job without checkpoints never commits).
 * Recovery (kafka_sink_recovery.c): librdkafka cannot resume another process's
 * transaction (Flink resumes it by producer id and epoch), and a process killed after
 * checkpoint n is complete and before its commit leaves a transaction the restart's
 * init_transactions aborts. So the records of the open transaction are kept (encoded)
 * from their production until its commit and the snapshot at barrier n holds them; each
 * commit of a checkpoint's transaction carries its commit marker (the offset n of the
 * consumer group "<prefix>-joinery-commits" on the topic's partition 0, committed by the
 * transaction itself); a restore from n reads the marker and, when it is below n (the
 * transaction was never committed), produces the kept records again in a new
 * transaction committed with marker n. Memory: what one transaction holds (the records
 * of a checkpoint interval, and those held after its barrier), shown in SHOW JOB
 * METRICS. Test hook: JOINERY_TEST_KILL_BEFORE_KAFKA_COMMIT = k raises SIGKILL before
 * the k-th commit of a checkpoint's transaction (tests/checkpoint/kafka.sh).
 */
#include "engine/connector/kafka_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/map.h"
#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/format/format.h"

enum { KAFKA_FLUSH_MARGIN_MS = 10000 };

/* A record written after a barrier while the transaction before it waits for its commit. */
typedef struct HeldRecord {
    char *key;   /* NULL: no key */
    char *value; /* NULL: a null value (tombstone) */
    size_t key_length;
    size_t value_length;
    int32_t partition;
    int64_t timestamp;
    rd_kafka_headers_t *headers; /* owned until produced */
} HeldRecord;

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
    /* exactly-once: the transaction state (see the top of the file) */
    bool transactional;
    bool transaction_open;
    uint64_t transaction_records; /* produced into the open transaction */
    KafkaTransactionCounts counts;
    HeldRecord *held;
    size_t held_count;
    size_t held_capacity;
    uint64_t held_bytes;
    /* the open transaction's records, encoded as the snapshot holds them
       (kafka_sink_recovery.c), from their production until its commit */
    StrBuf kept;
    uint64_t peak_records; /* kept and held at once, at most */
    uint64_t peak_bytes;
    /* the commit marker (kafka_sink_recovery.c) */
    char *marker_group;
    rd_kafka_consumer_group_metadata_t *marker_metadata;
    uint64_t lineage;
    /* test hook: JOINERY_TEST_KILL_BEFORE_KAFKA_COMMIT = n raises SIGKILL before the n-th
       commit of a checkpoint's transaction (0: off) */
    long test_kill_before_commit;
    long checkpoint_commits;
} KafkaWriter;

static void kafka_delivery_report(rd_kafka_t *producer, const rd_kafka_message_t *message,
                                  void *opaque)
{
    (void)producer;
    (void)opaque; /* the client's opaque (none is set); the writer is the message's */
    KafkaWriter *writer = message->_private; /* RD_KAFKA_V_OPAQUE of rd_kafka_producev */
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

/* Fills `diag` from a transactional call's error (and frees it), naming the step. */
static int writer_transaction_error(KafkaWriter *writer, rd_kafka_error_t *error, const char *step,
                                    Diag *diag)
{
    bool fenced = rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__FENCED ||
                  rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR_PRODUCER_FENCED;
    diag_error(diag, JOINERY_ERROR_RUNTIME,
               "Cannot %s the Kafka transaction of table '%s' (topic '%s'): %s%s", step,
               writer->table_name, writer->topic_name, rd_kafka_error_string(error),
               fenced ? " (another producer with the same transactional.id started: "
                        "'sink.transactional-id-prefix' must be unique per sink)"
                      : "");
    rd_kafka_error_destroy(error);
    return JOINERY_ERROR_RUNTIME;
}

/* Begins a transaction unless one is open. */
static int writer_begin_transaction(KafkaWriter *writer, Diag *diag)
{
    if (writer->transaction_open)
        return JOINERY_OK;
    rd_kafka_error_t *error = rd_kafka_begin_transaction(writer->producer);
    if (error)
        return writer_transaction_error(writer, error, "begin", diag);
    writer->transaction_open = true;
    writer->transaction_records = 0;
    writer->counts.begun++;
    return JOINERY_OK;
}

/* Whether a failed transactional call may be tried again (at most three attempts). */
static bool writer_may_retry(const KafkaWriter *writer, const rd_kafka_error_t *error, int attempt)
{
    return attempt < 3 && rd_kafka_error_is_retriable(error) && !rd_kafka_error_is_fatal(error) &&
           !(writer->base.spec->cancel_requested && *writer->base.spec->cancel_requested);
}

/* Adds to the open transaction the commit marker of checkpoint `checkpoint`: the marker
   group's offset on partition 0 of the topic becomes the id when the transaction commits. */
static int writer_send_marker(KafkaWriter *writer, int64_t checkpoint, Diag *diag)
{
    rd_kafka_topic_partition_list_t *offsets = rd_kafka_topic_partition_list_new(1);
    if (!offsets)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
    rd_kafka_topic_partition_t *marker =
        rd_kafka_topic_partition_list_add(offsets, writer->topic_name, 0);
    char metadata[KAFKA_MARKER_METADATA_SIZE];
    kafka_marker_metadata(writer->lineage, metadata);
    marker->offset = checkpoint;
    marker->metadata = strdup(metadata); /* the list frees it */
    marker->metadata_size = strlen(metadata);
    int status = marker->metadata
                     ? JOINERY_OK
                     : diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
    for (int attempt = 1; status == JOINERY_OK; attempt++) {
        rd_kafka_error_t *error = rd_kafka_send_offsets_to_transaction(
            writer->producer, offsets, writer->marker_metadata, (int)writer->flush_timeout_ms);
        if (!error)
            break;
        if (writer_may_retry(writer, error, attempt)) {
            rd_kafka_error_destroy(error);
            continue;
        }
        status = writer_transaction_error(writer, error, "add the commit marker to", diag);
    }
    rd_kafka_topic_partition_list_destroy(offsets);
    return status;
}

/* Commits the open transaction, with the commit marker of the checkpoint it is pending for
   (none without one: the held records of finish; each attempt waits up to the flush timeout;
   what librdkafka calls retriable, such as that timeout, is tried again, three attempts in
   all). */
static int writer_commit_transaction(KafkaWriter *writer, Diag *diag)
{
    if (!writer->transaction_open)
        return JOINERY_OK;
    if (writer->counts.pending_checkpoint > 0) {
        int status = writer_send_marker(writer, writer->counts.pending_checkpoint, diag);
        if (status != JOINERY_OK)
            return status;
    }
    for (int attempt = 1;; attempt++) {
        rd_kafka_error_t *error =
            rd_kafka_commit_transaction(writer->producer, (int)writer->flush_timeout_ms);
        if (!error)
            break;
        if (writer_may_retry(writer, error, attempt)) {
            rd_kafka_error_destroy(error);
            continue;
        }
        return writer_transaction_error(writer, error, "commit", diag);
    }
    writer->transaction_open = false;
    writer->counts.committed++;
    writer->counts.pending_checkpoint = 0;
    strbuf_clear(&writer->kept);
    writer->counts.kept_records = 0;
    return JOINERY_OK;
}

/* Aborts the open transaction; false when it could not be (the broker aborts it at its
   transaction.timeout.ms, or the next run's init_transactions does). */
static bool writer_abort_transaction(KafkaWriter *writer)
{
    if (!writer->transaction_open)
        return true;
    writer->transaction_open = false;
    writer->counts.pending_checkpoint = 0;
    strbuf_clear(&writer->kept);
    writer->counts.kept_records = 0;
    rd_kafka_error_t *error = rd_kafka_abort_transaction(writer->producer, 10000);
    if (error) {
        rd_kafka_error_destroy(error);
        return false;
    }
    writer->counts.aborted++;
    return true;
}

/* Records between their production or holding and their commit: the most at once. */
static void writer_note_peak(KafkaWriter *writer)
{
    uint64_t records = writer->counts.kept_records + writer->held_count;
    uint64_t bytes = writer->kept.length + writer->held_bytes;
    if (records > writer->peak_records)
        writer->peak_records = records;
    if (bytes > writer->peak_bytes)
        writer->peak_bytes = bytes;
}

static void held_record_free(HeldRecord *record)
{
    free(record->key);
    free(record->value);
    if (record->headers)
        rd_kafka_headers_destroy(record->headers);
}

/* Keeps a record for the next transaction (a copy of key and value; takes the headers). */
static int writer_hold(KafkaWriter *writer, int32_t partition, int64_t timestamp,
                       rd_kafka_headers_t *headers, const void *key, size_t key_length,
                       const void *value, size_t value_length, Diag *diag)
{
    if (writer->held_count == writer->held_capacity) {
        size_t capacity = writer->held_capacity ? writer->held_capacity * 2 : 64;
        HeldRecord *grown = realloc(writer->held, capacity * sizeof *grown);
        if (!grown) {
            if (headers)
                rd_kafka_headers_destroy(headers);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
        }
        writer->held = grown;
        writer->held_capacity = capacity;
    }
    HeldRecord record = {NULL, NULL, key_length, value_length, partition, timestamp, headers};
    record.key = key ? malloc(key_length + 1) : NULL;
    record.value = value ? malloc(value_length + 1) : NULL;
    if ((key && !record.key) || (value && !record.value)) {
        held_record_free(&record);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
    }
    if (key)
        memcpy(record.key, key, key_length);
    if (value)
        memcpy(record.value, value, value_length);
    writer->held[writer->held_count++] = record;
    writer->counts.held_records = writer->held_count;
    writer->held_bytes += sizeof record + key_length + value_length;
    writer_note_peak(writer);
    return JOINERY_OK;
}

/* Hands one record to the producer (into the open transaction, exactly-once, where it is
   kept too until the commit); the producer owns `headers` on success, the caller
   otherwise. */
static int writer_send(KafkaWriter *writer, int32_t partition, int64_t timestamp,
                       rd_kafka_headers_t *headers, const void *key, size_t key_length,
                       const void *value, size_t value_length, Diag *diag)
{
    size_t kept_length = writer->kept.length;
    if (writer->transactional) {
        if (kafka_kept_append(&writer->kept, partition, timestamp, headers, key, key_length, value,
                              value_length) != 0)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
    }
    for (;;) {
        rd_kafka_resp_err_t err = rd_kafka_producev(
            writer->producer, RD_KAFKA_V_RKT(writer->topic), RD_KAFKA_V_PARTITION(partition),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE((void *)value, value_length),
            RD_KAFKA_V_KEY(key, key_length), RD_KAFKA_V_TIMESTAMP(timestamp),
            RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(writer), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            writer->transaction_records++;
            if (writer->transactional) {
                writer->counts.kept_records++;
                writer_note_peak(writer);
            }
            return JOINERY_OK;
        }
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            writer->kept.length = kept_length; /* not produced: not kept */
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "Cannot produce a record to Kafka topic '%s' (table '%s'): %s",
                              writer->topic_name, writer->table_name, rd_kafka_err2str(err));
        }
        /* the local queue is full: serve deliveries until there is room (message.timeout.ms
           bounds how long queued records wait) */
        rd_kafka_poll(writer->producer, 50);
        int status = writer_check_deliveries(writer, diag);
        if (status != JOINERY_OK) {
            writer->kept.length = kept_length;
            return status;
        }
    }
}

/* Produces the held records into the open transaction (beginning one), in order. */
static int writer_release_held(KafkaWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    if (writer->held_count)
        status = writer_begin_transaction(writer, diag);
    size_t sent = 0;
    for (; sent < writer->held_count && status == JOINERY_OK; sent++) {
        HeldRecord *record = &writer->held[sent];
        status =
            writer_send(writer, record->partition, record->timestamp, record->headers, record->key,
                        record->key_length, record->value, record->value_length, diag);
        if (status == JOINERY_OK)
            record->headers = NULL; /* the producer's now */
        else
            break;
    }
    for (size_t i = 0; i < writer->held_count; i++)
        held_record_free(&writer->held[i]);
    writer->held_count = 0;
    writer->held_bytes = 0;
    writer->counts.held_records = 0;
    return status;
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
    rd_kafka_headers_t *headers;
    if (writer_row_headers(writer, row, &headers) != 0)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
    if (writer->transactional && writer->counts.pending_checkpoint)
        return writer_hold(writer, partition, timestamp, headers, key, key_length, value,
                           value_length, diag);
    int status = writer->transactional ? writer_begin_transaction(writer, diag) : JOINERY_OK;
    if (status == JOINERY_OK)
        status = writer_send(writer, partition, timestamp, headers, key, key_length, value,
                             value_length, diag);
    if (status != JOINERY_OK && headers)
        rd_kafka_headers_destroy(headers);
    return status;
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
            int encoded =
                key ? format_encode_row(writer->key_encoder, key, &writer->key_buffer) : -1;
            if (encoded == JOINERY_ERROR_RUNTIME)
                return diag_error(diag, encoded, "Kafka sink, record key: %s",
                                  format_encoder_error(writer->key_encoder));
            if (encoded != JOINERY_OK)
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
        }
        bool null_value = tombstone;
        if (!tombstone) {
            const Row *value =
                writer->value_is_identity
                    ? row
                    : project_row(writer, row, writer->value_fields, writer->value_count);
            int encoded =
                value ? format_encode_row(writer->value_encoder, value, &writer->value_buffer) : -1;
            if (encoded == JOINERY_ERROR_RUNTIME)
                return diag_error(diag, encoded, "Kafka sink, record value: %s",
                                  format_encoder_error(writer->value_encoder));
            if (encoded != JOINERY_OK)
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

/* Waits until every record produced so far is delivered (or the flush timeout). */
static int writer_deliver_all(KafkaWriter *writer, Diag *diag)
{
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
    return JOINERY_OK;
}

static int kafka_finish(SinkWriter *base, Diag *diag)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    if (writer->finished)
        return JOINERY_OK;
    int status = writer_deliver_all(writer, diag);
    if (status == JOINERY_OK && writer->transactional) {
        /* end of input: the last transaction, with what was held after the last barrier */
        status = writer_commit_transaction(writer, diag);
        if (status == JOINERY_OK)
            status = writer_release_held(writer, diag);
        if (status == JOINERY_OK)
            status = writer_deliver_all(writer, diag);
        if (status == JOINERY_OK)
            status = writer_commit_transaction(writer, diag);
    }
    if (status == JOINERY_OK)
        writer->finished = true;
    return status;
}

/*
 * Exactly-once, the barrier of checkpoint `checkpoint_id`: records held since an earlier
 * barrier whose checkpoint did not complete join the open transaction, which is flushed
 * (kafka_flush ran before) and becomes pending for this checkpoint. The snapshot: the
 * pending checkpoint id (0: no transaction open), the lineage of the commit markers, the
 * count of the open transaction's records, their encoded length and the records
 * (kafka_sink_recovery.c), so a restore can send them again if it was never committed.
 */
static int kafka_prepare_commit(SinkWriter *base, int64_t checkpoint_id, const ByteWriter *out,
                                Diag *diag)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    int status = writer_release_held(writer, diag);
    if (status == JOINERY_OK && writer->transaction_open)
        status = writer_deliver_all(writer, diag);
    if (status != JOINERY_OK)
        return status;
    writer->counts.pending_checkpoint = writer->transaction_open ? checkpoint_id : 0;
    status = byte_write_int64(out, writer->counts.pending_checkpoint);
    if (status == JOINERY_OK)
        status = byte_write_int64(out, (int64_t)writer->lineage);
    if (status == JOINERY_OK)
        status = byte_write_int64(out, (int64_t)writer->counts.kept_records);
    if (status == JOINERY_OK)
        status = byte_write_int64(out, (int64_t)writer->kept.length);
    if (status == JOINERY_OK && writer->kept.length)
        status = out->write(out->context, writer->kept.data, writer->kept.length);
    if (status != JOINERY_OK)
        return diag_error(diag, status, "could not write the Kafka sink's transaction state");
    return JOINERY_OK;
}

/* Checkpoint `checkpoint_id` is complete: the transaction pending for it (or an earlier
   one) is committed and the held records go into the next. Idempotent. */
static int kafka_commit(SinkWriter *base, int64_t checkpoint_id, Diag *diag)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    int64_t pending = writer->counts.pending_checkpoint;
    if (!pending || pending > checkpoint_id)
        return JOINERY_OK;
    if (writer->test_kill_before_commit &&
        ++writer->checkpoint_commits == writer->test_kill_before_commit)
        raise(SIGKILL); /* the test hook: checkpoint complete, its transaction not committed */
    int status = writer_commit_transaction(writer, diag);
    if (status == JOINERY_OK)
        status = writer_release_held(writer, diag);
    return status;
}

/* Produces the kept records `bytes` again, into the open transaction; the count sent. */
static int writer_send_kept(KafkaWriter *writer, const char *bytes, size_t length, uint64_t *sent,
                            Diag *diag)
{
    size_t offset = 0;
    KafkaKeptRecord record;
    int next;
    while ((next = kafka_kept_next(bytes, length, &offset, &record)) == 1) {
        int status =
            writer_send(writer, record.partition, record.timestamp, record.headers, record.key,
                        record.key_length, record.value, record.value_length, diag);
        if (status != JOINERY_OK) {
            if (record.headers)
                rd_kafka_headers_destroy(record.headers);
            return status;
        }
        (*sent)++;
    }
    if (next < 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The Kafka sink's checkpointed records of table '%s' are damaged",
                          writer->table_name);
    return JOINERY_OK;
}

/*
 * A restored checkpoint n's transaction (before any write; init_transactions at this
 * writer's start has let the broker finish a commit in progress and aborted a transaction
 * left open). The run that took n committed it unless it was killed between n's completion
 * and the commit: the commit marker says which. Committed (the marker of the checkpoint's
 * lineage is at least n): nothing to do. Else the kept records are produced again in a new
 * transaction, committed with marker n. The writer takes the checkpoint's lineage.
 */
static int kafka_restore_pending(SinkWriter *base, const ByteReader *in, Diag *diag)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    int64_t pending = 0, lineage = 0, count = 0, length = 0;
    if (byte_read_int64(in, &pending) != JOINERY_OK || pending < 0 ||
        byte_read_int64(in, &lineage) != JOINERY_OK || lineage == 0 ||
        byte_read_int64(in, &count) != JOINERY_OK || count < 0 ||
        byte_read_int64(in, &length) != JOINERY_OK || length < 0 || (pending == 0) != (count == 0))
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The Kafka sink's checkpointed state is cut short (or was written by a "
                          "joinery that did not keep the transaction's records)");
    char *bytes = length ? malloc((size_t)length) : NULL;
    if (length && !bytes)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in Kafka sink");
    if (length && in->read(in->context, bytes, (size_t)length) != JOINERY_OK) {
        free(bytes);
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The Kafka sink's checkpointed state is cut short");
    }
    writer->lineage = (uint64_t)lineage;
    int status = JOINERY_OK;
    if (pending > 0) {
        int64_t marker = -1;
        status =
            kafka_marker_read(writer->base.spec->table, writer->marker_group, writer->topic_name,
                              writer->lineage, writer->base.spec->cancel_requested, &marker, diag);
        writer->counts.restored_checkpoint = pending;
        writer->counts.restored_marker = marker;
        if (status == JOINERY_OK && marker < pending) {
            /* never committed: again, as one transaction with marker n (the topic's
               partitions asked first: librdkafka would learn them at its next 1 s scan) */
            const struct rd_kafka_metadata *metadata = NULL;
            if (rd_kafka_metadata(writer->producer, 0, writer->topic, &metadata,
                                  KAFKA_METADATA_TIMEOUT_MS) == RD_KAFKA_RESP_ERR_NO_ERROR)
                rd_kafka_metadata_destroy(metadata);
            status = writer_begin_transaction(writer, diag);
            if (status == JOINERY_OK)
                status = writer_send_kept(writer, bytes, (size_t)length,
                                          &writer->counts.resent_records, diag);
            if (status == JOINERY_OK)
                status = writer_deliver_all(writer, diag);
            if (status == JOINERY_OK) {
                writer->counts.pending_checkpoint = pending; /* its marker: n */
                status = writer_commit_transaction(writer, diag);
            }
            if (status == JOINERY_OK && writer->counts.resent_records != (uint64_t)count)
                status =
                    diag_error(diag, JOINERY_ERROR_RUNTIME,
                               "The Kafka sink's checkpointed records of table '%s' are "
                               "damaged (%llu of %lld)",
                               writer->table_name,
                               (unsigned long long)writer->counts.resent_records, (long long)count);
        }
    }
    free(bytes);
    return status;
}

/* A failed job: the open transaction is aborted (a read_committed reader never sees it). */
static void kafka_abort(SinkWriter *base, StrBuf *note)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    if (!writer->transactional || writer->finished)
        return; /* close purges what is queued */
    uint64_t records = writer->transaction_open ? writer->transaction_records : 0;
    bool open = writer->transaction_open;
    bool aborted = writer_abort_transaction(writer);
    if (open)
        strbuf_printf(note,
                      "The open Kafka transaction of table '%s' (%llu records) %s; committed "
                      "transactions stay",
                      writer->table_name, (unsigned long long)records,
                      aborted ? "was aborted"
                              : "could not be aborted (the next run with the same "
                                "transactional.id aborts it)");
    for (size_t i = 0; i < writer->held_count; i++)
        held_record_free(&writer->held[i]);
    writer->held_count = 0;
    writer->held_bytes = 0;
    writer->counts.held_records = 0;
}

/* SHOW JOB METRICS: the transactions so far, the records kept in memory until their commit
   and, after a restore, what became of the checkpoint's pending transaction. */
static void kafka_format_metrics(const SinkWriter *base, StrBuf *out)
{
    const KafkaWriter *writer = (const KafkaWriter *)base;
    const KafkaTransactionCounts *counts = &writer->counts;
    strbuf_printf(out,
                  "%-4s   Kafka transactions of %s: %llu begun, %llu committed, %llu aborted, %s "
                  "open\n",
                  "", writer->table_name, (unsigned long long)counts->begun,
                  (unsigned long long)counts->committed, (unsigned long long)counts->aborted,
                  writer->transaction_open ? "1" : "0");
    strbuf_printf(out,
                  "%-4s   Kafka records of %s kept until their commit: %llu now (%llu bytes), at "
                  "most %llu (%llu bytes)\n",
                  "", writer->table_name,
                  (unsigned long long)(counts->kept_records + writer->held_count),
                  (unsigned long long)(writer->kept.length + writer->held_bytes),
                  (unsigned long long)writer->peak_records, (unsigned long long)writer->peak_bytes);
    if (!counts->restored_checkpoint)
        return;
    StrBuf marker = STRBUF_INIT;
    if (counts->restored_marker < 0)
        strbuf_printf(&marker, "none");
    else
        strbuf_printf(&marker, "chk-%lld", (long long)counts->restored_marker);
    if (counts->restored_marker >= counts->restored_checkpoint)
        strbuf_printf(out,
                      "%-4s   Kafka transaction of %s restored from chk-%lld: committed before "
                      "(commit marker %s)\n",
                      "", writer->table_name, (long long)counts->restored_checkpoint,
                      strbuf_cstr(&marker));
    else
        strbuf_printf(out,
                      "%-4s   Kafka transaction of %s restored from chk-%lld: %llu records sent "
                      "again (commit marker %s: never committed)\n",
                      "", writer->table_name, (long long)counts->restored_checkpoint,
                      (unsigned long long)counts->resent_records, strbuf_cstr(&marker));
    strbuf_free(&marker);
}

void kafka_sink_transaction_counts(const SinkWriter *base, KafkaTransactionCounts *counts)
{
    memset(counts, 0, sizeof *counts);
    if (base && (base->vtable->prepare_commit == kafka_prepare_commit))
        *counts = ((const KafkaWriter *)base)->counts;
}

/* A checkpoint's barrier (at-least-once): what went before it is in Kafka. */
static int kafka_flush(SinkWriter *base, Diag *diag)
{
    return writer_deliver_all((KafkaWriter *)base, diag);
}

static void kafka_close_writer(SinkWriter *base)
{
    KafkaWriter *writer = (KafkaWriter *)base;
    if (!writer)
        return;
    if (writer->topic)
        rd_kafka_topic_destroy(writer->topic);
    for (size_t i = 0; i < writer->held_count; i++)
        held_record_free(&writer->held[i]);
    free(writer->held);
    strbuf_free(&writer->kept);
    free(writer->marker_group);
    if (writer->marker_metadata)
        rd_kafka_consumer_group_metadata_destroy(writer->marker_metadata);
    if (writer->producer) {
        if (!writer->finished && writer->transactional)
            writer_abort_transaction(writer);
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
    .flush = kafka_flush,
};

static const SinkWriterVtable KAFKA_TRANSACTIONAL_WRITER = {
    .write = kafka_write,
    .finish = kafka_finish,
    .abort = kafka_abort,
    .close = kafka_close_writer,
    .flush = kafka_flush,
    .prepare_commit = kafka_prepare_commit,
    .commit = kafka_commit,
    .restore_pending = kafka_restore_pending,
    .format_metrics = kafka_format_metrics,
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
            kafka_metadata_from_key(column->metadata_key ? column->metadata_key : column->name);
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
    int64_t deadline = kafka_monotonic_millis() + KAFKA_START_DEADLINE_MS;
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
        if (kafka_monotonic_millis() >= deadline ||
            kafka_retry_pause(writer->base.spec->cancel_requested))
            break;
    }
    return diag_error(diag, kafka_start_failure(writer->base.spec->cancel_requested),
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
    if (!topic || kafka_count_topics(topic) != 1)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The %s sink of table '%s' needs exactly one topic in option 'topic' "
                          "(a topic list or 'topic-pattern' can only be read)",
                          kafka_connector_name(upsert), table->name);
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
    kafka_split_topics(topic, &scratch, topics, 1);
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
    KafkaDeliveryGuarantee guarantee = KAFKA_DELIVERY_AT_LEAST_ONCE;
    if (status == JOINERY_OK)
        status = kafka_read_delivery_guarantee(table, &guarantee, diag);
    if (status == JOINERY_OK && guarantee == KAFKA_DELIVERY_EXACTLY_ONCE) {
        writer->transactional = true;
        writer->base.vtable = &KAFKA_TRANSACTIONAL_WRITER;
        const char *kill = getenv("JOINERY_TEST_KILL_BEFORE_KAFKA_COMMIT");
        writer->test_kill_before_commit = kill ? strtol(kill, NULL, 10) : 0;
        const char *prefix = catalog_table_option(table, "sink.transactional-id-prefix");
        writer->lineage = kafka_marker_new_lineage(); /* a restore takes its checkpoint's */
        writer->marker_group = kafka_marker_group(prefix);
        writer->marker_metadata = writer->marker_group
                                      ? rd_kafka_consumer_group_metadata_new(writer->marker_group)
                                      : NULL;
        if (!writer->marker_metadata)
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        StrBuf id = STRBUF_INIT; /* one sink subtask: Flink's <prefix>-<subtask> */
        strbuf_printf(&id, "%s-0", prefix);
        if (status == JOINERY_OK)
            status = kafka_conf_set(conf, "transactional.id", strbuf_cstr(&id),
                                    "sink.transactional-id-prefix", diag);
        strbuf_free(&id);
    }
    if (status != JOINERY_OK && conf) {
        rd_kafka_conf_destroy(conf);
        conf = NULL;
    }
    if (status == JOINERY_OK) {
        rd_kafka_conf_set_dr_msg_cb(conf, kafka_delivery_report);
        writer->flush_timeout_ms =
            kafka_conf_get_int(conf, "message.timeout.ms", 300000) + KAFKA_FLUSH_MARGIN_MS;
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
    if (status == JOINERY_OK && writer->transactional) {
        /* fences an earlier producer with this transactional.id, aborting its open
           transaction */
        rd_kafka_error_t *error =
            rd_kafka_init_transactions(writer->producer, KAFKA_START_DEADLINE_MS);
        if (error)
            status = writer_transaction_error(writer, error, "initialise", diag);
    }
    if (status != JOINERY_OK) {
        kafka_close_writer(&writer->base);
        return status;
    }
    *result = &writer->base;
    return JOINERY_OK;
}
