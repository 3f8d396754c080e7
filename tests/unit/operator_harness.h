/*
 * operator_harness.h - test support shared by the operator suites
 * (check_join.c, check_group_aggregate.c): a fake processing-time clock, a
 * collecting downstream operator that logs rows as text ("+I(1,a)"), and
 * helpers that build rows from text and push them. Header-only (static
 * inline) so each suite stays one translation unit.
 */
#ifndef JOINERY_TESTS_OPERATOR_HARNESS_H
#define JOINERY_TESTS_OPERATOR_HARNESS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/row.h"
#include "engine/base/strbuf.h"
#include "engine/exec/operator.h"
#include "engine/exec/snapshot.h"
#include "tests/unit/test_store.h"

/* ---- harness: fake clock, collecting operator, row helpers ---- */

static int64_t fake_now;

static inline int64_t fake_clock(void *context)
{
    (void)context;
    return fake_now;
}

typedef struct Collector {
    Operator base;
    const DataType *types;
    uint32_t field_count;
    bool log_watermarks; /* log "W(5)" for each watermark too */
    StrBuf log;
} Collector;

static inline void format_row(StrBuf *out, const Row *row, const DataType *types, uint32_t count)
{
    strbuf_printf(out, "%s(", row_kind_name(row_kind(row)));
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            strbuf_append_char(out, ',');
        if (row_is_null(row, i)) {
            strbuf_append_cstr(out, "NULL");
        } else if (type_is_variable_length(types[i].id)) {
            uint32_t length;
            const char *text = row_get_string(row, i, &length);
            strbuf_append(out, text, length);
        } else if (types[i].id == TYPE_FLOAT || types[i].id == TYPE_DOUBLE) {
            strbuf_printf(out, "%g", row_get_double(row, i));
        } else {
            strbuf_printf(out, "%lld", (long long)row_get_int64(row, i));
        }
    }
    strbuf_append_char(out, ')');
}

static inline int collector_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    Collector *collector = (Collector *)self;
    for (uint32_t i = 0; i < batch->count; i++) {
        if (collector->log.length)
            strbuf_append_char(&collector->log, ' ');
        format_row(&collector->log, batch->rows[i], collector->types, collector->field_count);
    }
    return JOINERY_OK;
}

static inline int collector_on_watermark(Operator *self, int64_t watermark)
{
    Collector *collector = (Collector *)self;
    if (!collector->log_watermarks)
        return JOINERY_OK;
    if (collector->log.length)
        strbuf_append_char(&collector->log, ' ');
    strbuf_printf(&collector->log, "W(%lld)", (long long)watermark);
    return JOINERY_OK;
}

static const OperatorVtable COLLECTOR_VTABLE = {
    .process = collector_process,
    .on_watermark = collector_on_watermark,
};

typedef struct Harness {
    Diag diag;
    ExecContext context;
    Collector collector;
    Operator *op;
    char taken[16384];
} Harness;

static inline void harness_open(Harness *h, Operator *op, const DataType *out_types,
                                uint32_t out_count)
{
    memset(h, 0, sizeof *h);
    diag_clear(&h->diag);
    h->context.diag = &h->diag;
    h->context.now_millis = fake_clock;
    h->context.parallelism = 1;
    h->context.state_store = test_store_open();
    h->op = op;
    ck_assert_ptr_nonnull(op);
    operator_init(&h->collector.base, &COLLECTOR_VTABLE, "Collector", 1, &h->collector);
    h->collector.types = out_types;
    h->collector.field_count = out_count;
    operator_connect(op, &h->collector.base, 0);
    ck_assert_int_eq(operator_open(&h->collector.base, &h->context), JOINERY_OK);
    ck_assert_int_eq(operator_open(op, &h->context), JOINERY_OK);
}

static inline void harness_close(Harness *h)
{
    test_store_commit(h->context.state_store);
    operator_close(h->op);
    operator_close(&h->collector.base);
    strbuf_free(&h->collector.log);
    state_store_close(h->context.state_store);
}

/*
 * Snapshots h's operator (as at a barrier) and restores the snapshot into
 * `fresh`, opened in `copy` (a harness with a store of its own): the
 * operator's state carried over, as a restart from a checkpoint would.
 */
static inline void harness_fork(Harness *h, Harness *copy, Operator *fresh,
                                const DataType *out_types, uint32_t out_count)
{
    SnapshotBuffer buffer = {0};
    StateWriter writer = snapshot_buffer_writer(&buffer);
    Barrier barrier = {1, 0};
    ck_assert_msg(operator_snapshot(h->op, &barrier, &writer) == JOINERY_OK, "%s", h->diag.message);
    ck_assert_uint_gt(buffer.length, 0);
    harness_open(copy, fresh, out_types, out_count);
    StateReader reader = snapshot_buffer_reader(&buffer);
    ck_assert_msg(operator_restore(fresh, &reader) == JOINERY_OK, "%s", copy->diag.message);
    ck_assert_uint_eq(buffer.read_offset, buffer.length); /* read exactly what was written */
    snapshot_buffer_free(&buffer);
    test_store_commit(copy->context.state_store);
}

/* Returns the changelog collected since the last call, and forgets it. */
static const char *harness_take(Harness *h)
{
    snprintf(h->taken, sizeof h->taken, "%s", strbuf_cstr(&h->collector.log));
    strbuf_clear(&h->collector.log);
    return h->taken;
}

/* Builds a row from "kind values" text, e.g. "+I 1,a,NULL". */
static const Row *build_row(RowBuilder *builder, const DataType *types, uint32_t count,
                            const char *text)
{
    static const char *const kinds[] = {"+I", "-U", "+U", "-D"};
    RowKind kind = ROW_KIND_INSERT;
    for (int k = 0; k < 4; k++)
        if (strncmp(text, kinds[k], 2) == 0)
            kind = (RowKind)k;
    const char *cursor = text + 3;
    row_builder_begin(builder, count, kind);
    for (uint32_t i = 0; i < count; i++) {
        const char *end = strchr(cursor, ',');
        size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
        if (length == 4 && strncmp(cursor, "NULL", 4) == 0)
            row_builder_set_null(builder, i);
        else if (type_is_variable_length(types[i].id))
            row_builder_set_string(builder, i, cursor, (uint32_t)length);
        else if (types[i].id == TYPE_FLOAT || types[i].id == TYPE_DOUBLE)
            row_builder_set_double(builder, i, strtod(cursor, NULL));
        else
            row_builder_set_int64(builder, i, strtoll(cursor, NULL, 10));
        cursor = end ? end + 1 : cursor + length;
    }
    return row_builder_finish(builder);
}

static inline int push_text_status(Harness *h, uint32_t input, const DataType *types,
                                   uint32_t count, const char *text)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = (Row *)build_row(&builder, types, count, text);
    ck_assert_ptr_nonnull(row);
    RowBatch batch = {.rows = &row, .count = 1, .capacity = 1};
    int status = operator_push(h->op, input, &batch);
    row_builder_free(&builder);
    if (status == JOINERY_OK)
        test_store_commit(h->context.state_store);
    return status;
}

static inline void push_text(Harness *h, uint32_t input, const DataType *types, uint32_t count,
                             const char *text)
{
    RowBuilder builder;
    row_builder_init(&builder);
    Row *row = (Row *)build_row(&builder, types, count, text);
    ck_assert_ptr_nonnull(row);
    RowBatch batch = {.rows = &row, .count = 1, .capacity = 1};
    ck_assert_int_eq(operator_push(h->op, input, &batch), JOINERY_OK);
    row_builder_free(&builder);
    test_store_commit(h->context.state_store);
}

#endif
