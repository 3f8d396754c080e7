/*
 * op_drop_update_before.c - forwards the rows of each batch that are not
 * -U (see the header); the kept rows go out in their order.
 */
#include "engine/exec/ops/op_drop_update_before.h"

#include <stdlib.h>

static int drop_update_before_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (row_kind(row) == ROW_KIND_UPDATE_BEFORE)
            continue;
        int status = operator_emit(self, row, row_kind(row));
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static void drop_update_before_close(Operator *self)
{
    free(self);
}

static const OperatorVtable DROP_UPDATE_BEFORE_VTABLE = {
    .process = drop_update_before_process,
    .close = drop_update_before_close,
};

Operator *drop_update_before_operator_create(Diag *diag)
{
    Operator *op = malloc(sizeof *op);
    if (!op) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    operator_init(op, &DROP_UPDATE_BEFORE_VTABLE, "DropUpdateBefore", 1, NULL);
    return op;
}
