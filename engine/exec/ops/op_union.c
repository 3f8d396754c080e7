/*
 * op_union.c - Union ALL: hands each input batch straight to the
 * downstream (no copy: the rows stay valid for the duration of the push).
 */
#include "engine/exec/ops/op_union.h"

#include <stdlib.h>

static int union_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    self->metrics.rows_out += batch->count;
    return operator_push_downstream(self, batch);
}

static void union_close(Operator *self)
{
    free(self);
}

static const OperatorVtable UNION_VTABLE = {
    .process = union_process,
    .close = union_close,
};

Operator *union_operator_create(uint32_t input_count, Diag *diag)
{
    Operator *op = malloc(sizeof *op);
    if (!op) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    operator_init(op, &UNION_VTABLE, "Union", input_count, NULL);
    return op;
}
