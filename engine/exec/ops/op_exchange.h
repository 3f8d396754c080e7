/*
 * op_exchange.h - Exchange: routes rows to the subtasks of the next keyed
 * operator by the hash of their key fields (or all to subtask 0 for
 * distribution single).
 */
#ifndef JOINERY_EXEC_OP_EXCHANGE_H
#define JOINERY_EXEC_OP_EXCHANGE_H

#include "engine/base/type.h"
#include "engine/exec/operator.h"

typedef struct ExchangeSpec {
    const uint32_t *keys; /* key fields; key_count 0 = single */
    uint32_t key_count;
    const DataType *types; /* input field types */
} ExchangeSpec;

/*
 * Creates the exchange; then set op->broadcast / broadcast_count to the
 * downstream subtasks (their order is the routing order). NULL on no memory.
 */
Operator *exchange_operator_create(const ExchangeSpec *spec, Diag *diag);
/* The subtask index (0..parallelism-1) a row goes to: the routing function. */
uint32_t exchange_route(const Row *key_row, uint32_t parallelism);

#endif
