/*
 * blackhole.c - Flink's 'blackhole' sink: accepts every row (of any kind)
 * and discards it, counting rows in SinkWriter.rows_written. Useful to
 * measure a query without output costs. It has no options and cannot be
 * a source.
 *
 * It also keeps a checksum of what the rows materialize to, for comparing
 * runs (make nexmark: parallelism 1 and 2, mini-batch off and on): the sum
 * modulo 2^48 of row_content_hash of every +I / +U row minus that of every
 * -U / -D row (the hash ignores the kind), and the net row count. Both are
 * order-independent, so two runs whose changelogs materialize to the same
 * multiset of rows give the same figures, however their changes interleave;
 * a writer of each subtask keeps its own (SHOW JOB METRICS prints one line
 * per subtask; their sums modulo 2^48 are the table's). Since the last
 * start: a restored job counts what it wrote after the restore.
 */
#include "engine/connector/connector.h"

#include <stdlib.h>

enum { BLACKHOLE_CHECKSUM_BITS = 48 };

typedef struct BlackholeWriter {
    SinkWriter base;
    uint64_t checksum; /* modulo 2^BLACKHOLE_CHECKSUM_BITS */
    int64_t net_rows;  /* accumulations minus retractions */
} BlackholeWriter;

static int blackhole_write(SinkWriter *writer, const RowBatch *batch, Diag *diag)
{
    (void)diag;
    BlackholeWriter *blackhole = writer->impl;
    const uint64_t mask = ((uint64_t)1 << BLACKHOLE_CHECKSUM_BITS) - 1;
    for (uint32_t r = 0; r < batch->count; r++) {
        const Row *row = batch->rows[r];
        uint64_t hash = row_content_hash(row) & mask;
        if (row_kind_is_accumulate(row_kind(row))) {
            blackhole->checksum = (blackhole->checksum + hash) & mask;
            blackhole->net_rows++;
        } else {
            blackhole->checksum = (blackhole->checksum - hash) & mask;
            blackhole->net_rows--;
        }
    }
    writer->rows_written += batch->count;
    return JOINERY_OK;
}

static void blackhole_format_metrics(const SinkWriter *writer, StrBuf *out)
{
    const BlackholeWriter *blackhole = writer->impl;
    strbuf_printf(out, "%-4s   blackhole %s: materialized %lld rows, checksum %012llx\n", "",
                  writer->spec->table ? writer->spec->table->name : "",
                  (long long)blackhole->net_rows, (unsigned long long)blackhole->checksum);
}

static void blackhole_close(SinkWriter *writer)
{
    free(writer->impl);
}

static const SinkWriterVtable BLACKHOLE_WRITER = {
    .write = blackhole_write,
    .finish = NULL,
    .close = blackhole_close,
    .format_metrics = blackhole_format_metrics,
};

static int blackhole_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag)
{
    BlackholeWriter *created = calloc(1, sizeof *created);
    if (!created)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    created->base.vtable = &BLACKHOLE_WRITER;
    created->base.spec = spec;
    created->base.impl = created;
    *writer = &created->base;
    return JOINERY_OK;
}

/* A sink only; never scanned. */
static bool blackhole_is_bounded(const CatalogTable *table)
{
    (void)table;
    return false;
}

static const ConnectorOption BLACKHOLE_OPTIONS[] = {
    {"sink.parallelism", false, "parallelism of the sink"},
};

const Connector connector_blackhole = {
    .name = "blackhole",
    .options = BLACKHOLE_OPTIONS,
    .option_count = sizeof BLACKHOLE_OPTIONS / sizeof BLACKHOLE_OPTIONS[0],
    .validate = NULL,
    .is_bounded = blackhole_is_bounded,
    .estimate_rows = NULL,
    .create_source = NULL,
    .create_sink = blackhole_create_sink,
};
