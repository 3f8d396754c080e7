/*
 * operator.h - the push-based operator interface and the batches operators
 * exchange.
 *
 * Data flow: a producer calls operator_push(target, input, batch). The
 * framework counts the rows, times the call, runs target->vtable->process
 * and then flushes whatever the target emitted to its own downstream. Rows
 * in a batch are owned by the producer and valid only during the call:
 * an operator that keeps a row copies it (state does).
 *
 * Emission: operator_emit copies a row (any memory, e.g. a RowBuilder's
 * buffer) into the operator's output batch; a full output batch is flushed
 * downstream immediately. So an operator never holds more than one output
 * batch, and backpressure is the call stack itself.
 *
 * Lifecycle: open -> (process | watermark | timer)* -> end_input for each
 * input -> close. When every input of an operator has ended, the framework
 * flushes it, calls vtable->finish (if any) and forwards end_input to the
 * downstream. All functions return JOINERY_OK or an error status with the
 * job's Diag filled; an error stops the job.
 */
#ifndef JOINERY_EXEC_OPERATOR_H
#define JOINERY_EXEC_OPERATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"

enum { ROW_BATCH_CAPACITY = 1024, OPERATOR_MAX_INPUTS = 64 };

typedef struct RowBatch {
    Row **rows;
    uint32_t count;
    uint32_t capacity;
} RowBatch;

typedef struct Operator Operator;
typedef struct ExecContext ExecContext;

/* Per-operator figures shown by SHOW JOB METRICS and the status line. */
typedef struct OperatorMetrics {
    uint64_t rows_in;
    uint64_t rows_out;
    uint64_t busy_nanos;    /* time inside process/timer/finish (includes downstream work
                               triggered when a full output batch is flushed) */
    uint64_t state_bytes;   /* bytes held in keyed state (0 for stateless) */
    uint64_t state_keys;    /* distinct keys in state */
    uint64_t state_rows;    /* rows (records) in state */
    uint64_t expired_rows;  /* rows dropped by state TTL */
    uint64_t skipped_rows;  /* bad records skipped (sources) */
    uint64_t blocked_nanos; /* channels: time waiting for room in a full downstream
                               mailbox (backpressure on the producing operator) */
} OperatorMetrics;

typedef struct OperatorVtable {
    /* Prepares the operator; may allocate state. */
    int (*open)(Operator *self, ExecContext *context);
    /* Consumes one batch arriving on `input` (0 for single-input operators). */
    int (*process)(Operator *self, uint32_t input, const RowBatch *batch);
    /* An event-time watermark arrived on `input`; NULL: forward the minimum. */
    int (*watermark)(Operator *self, uint32_t input, int64_t watermark);
    /* Processing-time tick (ms since epoch): TTL cleanup, mini-batch flush. May be NULL. */
    int (*timer)(Operator *self, int64_t now_millis);
    /* Every input has ended: emit what is pending. May be NULL. */
    int (*finish)(Operator *self);
    /* Refreshes metrics.state_* (stateful operators). May be NULL. */
    void (*report_state)(Operator *self);
    /* Frees everything the operator owns, the operator itself included. */
    void (*close)(Operator *self);
} OperatorVtable;

/* Where an operator's output goes. Exchanges have several targets. */
typedef struct OperatorTarget {
    Operator *op;
    uint32_t input;
} OperatorTarget;

struct Operator {
    const OperatorVtable *vtable;
    ExecContext *context;
    const char *name;       /* e.g. "Join(joinType=[LeftOuterJoin])" short form for metrics */
    int plan_node_id;       /* id of the physical plan node it runs */
    int subtask_index;      /* 0..parallelism-1 */
    int task;               /* the job task (thread) that runs it; 0 when single-threaded */
    uint32_t input_count;   /* logical inputs (0 = left, 1 = right, ...) */
    uint32_t channel_count; /* upstream channels feeding it (subtasks x inputs); the
                               operator's input ends when all of them have ended */
    uint32_t inputs_ended;  /* channels that have ended */
    int64_t input_watermarks[OPERATOR_MAX_INPUTS];
    int64_t current_watermark;
    OperatorTarget target;     /* single downstream (unused by exchanges) */
    OperatorTarget *broadcast; /* exchanges: every downstream subtask; end of input and
                                  watermarks go to all of them */
    uint32_t broadcast_count;
    RowBatch output;    /* pending output rows */
    Arena output_arena; /* memory of the pending output rows */
    OperatorMetrics metrics;
    void *impl; /* operator-specific state */
};

/* Shared by all operators of one job. */
struct ExecContext {
    Diag *diag;                                 /* the job's diagnostic */
    volatile int *cancel_requested;             /* set asynchronously on Ctrl-C */
    int64_t (*now_millis)(void *clock_context); /* processing time */
    void *clock_context;
    int parallelism;
};

/*
 * Initialises the common part of an operator allocated by its constructor.
 * `impl` is the operator-specific state. Never fails.
 */
void operator_init(Operator *op, const OperatorVtable *vtable, const char *name,
                   uint32_t input_count, void *impl);
/* Connects op's output to input `input` of `target`. */
void operator_connect(Operator *op, Operator *target, uint32_t input);
/* Opens the operator (vtable->open). */
int operator_open(Operator *op, ExecContext *context);
/* Delivers a batch to `op` on `input`, then flushes op's output. */
int operator_push(Operator *op, uint32_t input, const RowBatch *batch);
/* Copies `row` with kind `kind` into op's output; flushes when full. */
int operator_emit(Operator *op, const Row *row, RowKind kind);
/* Sends op's pending output downstream now. */
int operator_flush(Operator *op);
/* Delivers a watermark; the default forwards the minimum over inputs. */
int operator_push_watermark(Operator *op, uint32_t input, int64_t watermark);
/* Forwards a watermark to op's downstream (for operators that generate them). */
int operator_emit_watermark(Operator *op, int64_t watermark);
/* Marks `input` ended; after the last input: flush, finish, propagate. */
int operator_end_input(Operator *op, uint32_t input);
/* Processing-time tick. */
int operator_timer(Operator *op, int64_t now_millis);
/* Frees the common part, then calls vtable->close, which frees the operator. */
void operator_close(Operator *op);

/* Current processing time of the job, in ms since the epoch. */
int64_t operator_now_millis(const Operator *op);
/* Records an error on the job's diagnostic and returns its status. */
int operator_fail(Operator *op, JoineryStatus status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
