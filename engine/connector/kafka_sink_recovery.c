/*
 * kafka_sink_recovery.c - what lets a restored exactly-once kafka sink finish
 * the transaction its killed run left uncommitted (kafka_sink.c; KAFKA.md
 * "Exactly-once"): the kept records and the commit marker.
 *
 * Kept records: the records of the open transaction, encoded one after the
 * other into a byte buffer that the sink's checkpoint snapshot holds as is
 * (host byte order, as every snapshot): partition (int32), timestamp (int64),
 * key and value (int64 length, -1 for none, then the bytes), the header
 * count (int32) and each header's name and value (as key and value).
 *
 * The commit marker: every commit of a checkpoint's transaction also commits,
 * in the same transaction (rd_kafka_send_offsets_to_transaction), the offset
 * of consumer group "<prefix>-joinery-commits" on the sink topic's partition
 * 0: offset = the checkpoint id, metadata = "joinery <lineage>", where the
 * lineage is a random 64-bit number a job that did not restore draws and a
 * restored one takes from its checkpoint. A broker makes the offset visible
 * at the transaction's commit and drops it at its abort, so the group's
 * committed offset says which checkpoint's transaction was committed last.
 * (librdkafka 2.0.2's mock cluster answers TxnOffsetCommit without storing
 * anything: there the marker is never found.)
 */
#include "engine/connector/kafka_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/base/strbuf.h"

static int append_bytes(StrBuf *kept, const void *bytes, size_t length)
{
    return strbuf_append(kept, (const char *)bytes, length);
}

/* A length-prefixed byte string (-1: none). */
static int append_field(StrBuf *kept, const void *bytes, size_t length)
{
    int64_t size = bytes ? (int64_t)length : -1;
    if (append_bytes(kept, &size, sizeof size) != 0)
        return -1;
    return bytes && length ? append_bytes(kept, bytes, length) : 0;
}

int kafka_kept_append(StrBuf *kept, int32_t partition, int64_t timestamp,
                      const rd_kafka_headers_t *headers, const void *key, size_t key_length,
                      const void *value, size_t value_length)
{
    size_t start = kept->length;
    int32_t header_count = headers ? (int32_t)rd_kafka_header_cnt(headers) : 0;
    int failed = append_bytes(kept, &partition, sizeof partition) != 0 ||
                 append_bytes(kept, &timestamp, sizeof timestamp) != 0 ||
                 append_field(kept, key, key_length) != 0 ||
                 append_field(kept, value, value_length) != 0 ||
                 append_bytes(kept, &header_count, sizeof header_count) != 0;
    for (int32_t i = 0; !failed && i < header_count; i++) {
        const char *name;
        const void *header_value;
        size_t size;
        if (rd_kafka_header_get_all(headers, (size_t)i, &name, &header_value, &size) !=
            RD_KAFKA_RESP_ERR_NO_ERROR) {
            failed = 1;
            break;
        }
        failed = append_field(kept, name, strlen(name)) != 0 ||
                 append_field(kept, header_value, size) != 0;
    }
    if (failed) {
        kept->length = start; /* the record is not kept at all */
        return -1;
    }
    return 0;
}

static bool take(const char *bytes, size_t length, size_t *offset, void *into, size_t size)
{
    if (length - *offset < size)
        return false;
    memcpy(into, bytes + *offset, size);
    *offset += size;
    return true;
}

static bool take_field(const char *bytes, size_t length, size_t *offset, const char **field,
                       size_t *field_length)
{
    int64_t size;
    if (!take(bytes, length, offset, &size, sizeof size) || size < -1 ||
        (size > 0 && (uint64_t)size > length - *offset))
        return false;
    *field = size < 0 ? NULL : bytes + *offset;
    *field_length = size < 0 ? 0 : (size_t)size;
    *offset += *field_length;
    return true;
}

int kafka_kept_next(const char *bytes, size_t length, size_t *offset, KafkaKeptRecord *record)
{
    memset(record, 0, sizeof *record);
    if (*offset == length)
        return 0;
    int32_t header_count;
    if (!take(bytes, length, offset, &record->partition, sizeof record->partition) ||
        !take(bytes, length, offset, &record->timestamp, sizeof record->timestamp) ||
        !take_field(bytes, length, offset, &record->key, &record->key_length) ||
        !take_field(bytes, length, offset, &record->value, &record->value_length) ||
        !take(bytes, length, offset, &header_count, sizeof header_count) || header_count < 0)
        return -1;
    if (header_count > 0 && !(record->headers = rd_kafka_headers_new((size_t)header_count)))
        return -1;
    for (int32_t i = 0; i < header_count; i++) {
        const char *name, *value;
        size_t name_length, value_length;
        if (!take_field(bytes, length, offset, &name, &name_length) || !name ||
            !take_field(bytes, length, offset, &value, &value_length) ||
            rd_kafka_header_add(record->headers, name, (ssize_t)name_length, value,
                                (ssize_t)value_length) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            rd_kafka_headers_destroy(record->headers);
            record->headers = NULL;
            return -1;
        }
    }
    return 1;
}

char *kafka_marker_group(const char *prefix)
{
    StrBuf group = STRBUF_INIT;
    if (strbuf_printf(&group, "%s-joinery-commits", prefix) != 0) {
        strbuf_free(&group);
        return NULL;
    }
    return strbuf_detach(&group);
}

uint64_t kafka_marker_new_lineage(void)
{
    uint64_t lineage = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &lineage, sizeof lineage) != (ssize_t)sizeof lineage)
            lineage = 0;
        close(fd);
    }
    if (!lineage) { /* no /dev/urandom: the clock and the process */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        lineage = ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^
                  ((uint64_t)getpid() << 40);
    }
    return lineage ? lineage : 1;
}

void kafka_marker_metadata(uint64_t lineage, char out[KAFKA_MARKER_METADATA_SIZE])
{
    snprintf(out, KAFKA_MARKER_METADATA_SIZE, "joinery %016" PRIx64, lineage);
}

int kafka_marker_read(const CatalogTable *table, const char *group, const char *topic,
                      uint64_t lineage, volatile int *cancel, int64_t *checkpoint, Diag *diag)
{
    *checkpoint = -1;
    rd_kafka_conf_t *conf = NULL;
    int status = kafka_make_conf(table, true, &conf, diag);
    if (status == JOINERY_OK)
        status = kafka_conf_set(conf, "group.id", group, "sink.transactional-id-prefix", diag);
    if (status != JOINERY_OK) {
        if (conf)
            rd_kafka_conf_destroy(conf);
        return status;
    }
    char reason[512];
    rd_kafka_t *consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, reason, sizeof reason);
    if (!consumer) {
        rd_kafka_conf_destroy(conf);
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot create a Kafka consumer to read the commit marker of table "
                          "'%s': %s",
                          table->name, reason);
    }
    rd_kafka_topic_partition_list_t *partitions = rd_kafka_topic_partition_list_new(1);
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__NO_OFFSET;
    if (partitions) {
        rd_kafka_topic_partition_list_add(partitions, topic, 0);
        int64_t deadline = kafka_monotonic_millis() + KAFKA_START_DEADLINE_MS;
        for (;;) {
            err = rd_kafka_committed(consumer, partitions, KAFKA_METADATA_TIMEOUT_MS);
            if (!err)
                err = partitions->elems[0].err;
            if (!err || kafka_monotonic_millis() >= deadline || kafka_retry_pause(cancel))
                break;
        }
    }
    if (!err) {
        const rd_kafka_topic_partition_t *marker = &partitions->elems[0];
        char expected[KAFKA_MARKER_METADATA_SIZE];
        kafka_marker_metadata(lineage, expected);
        if (marker->offset >= 0 && marker->metadata && marker->metadata_size == strlen(expected) &&
            memcmp(marker->metadata, expected, marker->metadata_size) == 0)
            *checkpoint = marker->offset;
    } else {
        status = diag_error(diag, kafka_start_failure(cancel),
                            "Cannot read the commit marker of Kafka table '%s' (group '%s', "
                            "topic '%s'): %s",
                            table->name, group, topic,
                            partitions ? rd_kafka_err2str(err) : "out of memory");
    }
    if (partitions)
        rd_kafka_topic_partition_list_destroy(partitions);
    rd_kafka_destroy(consumer);
    return status;
}
