/*
 * op_calc.h - Calc: projection and filter of single rows (stateless).
 */
#ifndef JOINERY_EXEC_OP_CALC_H
#define JOINERY_EXEC_OP_CALC_H

#include "engine/base/type.h"
#include "engine/exec/operator.h"
#include "engine/plan/expr.h"

typedef struct CalcSpec {
    uint32_t input_field_count;
    Expr *const *projects; /* over the input fields */
    const DataType *output_types;
    uint32_t project_count;
    const Expr *condition; /* NULL: keep every row */
} CalcSpec;

/* The spec's arrays are borrowed for the operator's life. NULL on no memory. */
Operator *calc_operator_create(const CalcSpec *spec, Diag *diag);

#endif
