/*
 * op_union.h - Union (ALL): forwards batches of every input unchanged.
 */
#ifndef JOINERY_EXEC_OP_UNION_H
#define JOINERY_EXEC_OP_UNION_H

#include "engine/exec/operator.h"

/* NULL on no memory. */
Operator *union_operator_create(uint32_t input_count, Diag *diag);

#endif
