/*
 * blackhole.c - Flink's 'blackhole' sink: accepts every row (of any kind)
 * and discards it, counting rows in SinkWriter.rows_written. Useful to
 * measure a query without output costs. It has no options and cannot be
 * a source.
 */
#include "engine/connector/connector.h"

#include <stdlib.h>

static int blackhole_write(SinkWriter *writer, const RowBatch *batch, Diag *diag)
{
    (void)diag;
    writer->rows_written += batch->count;
    return JOINERY_OK;
}

static void blackhole_close(SinkWriter *writer)
{
    free(writer);
}

static const SinkWriterVtable BLACKHOLE_WRITER = {
    .write = blackhole_write,
    .finish = NULL,
    .close = blackhole_close,
};

static int blackhole_create_sink(const SinkSpec *spec, SinkWriter **writer, Diag *diag)
{
    SinkWriter *created = calloc(1, sizeof *created);
    if (!created)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    created->vtable = &BLACKHOLE_WRITER;
    created->spec = spec;
    *writer = created;
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
