/*
 * op_drop_update_before.h - DropUpdateBefore (Flink's DropUpdateBeforeFunction):
 * forwards every row but the -U ones, for a consumer that needs only the
 * update-after rows of a source that sends both (the versioned side of a
 * temporal join). Stateless.
 */
#ifndef JOINERY_EXEC_OPS_OP_DROP_UPDATE_BEFORE_H
#define JOINERY_EXEC_OPS_OP_DROP_UPDATE_BEFORE_H

#include "engine/base/diag.h"
#include "engine/exec/operator.h"

/* Creates the operator; NULL with diag set when memory is exhausted. */
Operator *drop_update_before_operator_create(Diag *diag);

#endif
