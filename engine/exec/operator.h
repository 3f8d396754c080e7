/*
 * operator.h - the push-based operator interface and the batches operators
 * exchange.
 *
 * Data flow: a producer calls operator_push_channel(target, input, channel,
 * batch) (operator_push: channel = input). The framework counts the rows,
 * times the call, runs target->vtable->process and then flushes whatever
 * the target emitted to its own downstream. Rows in a batch are owned by
 * the producer and valid only during the call: an operator that keeps a
 * row copies it (state does).
 *
 * Emission: operator_emit copies a row (any memory, e.g. a RowBuilder's
 * buffer) into the operator's output batch; a full output batch is flushed
 * downstream immediately. So an operator never holds more than one output
 * batch, and backpressure is the call stack itself.
 *
 * Lifecycle: open -> [restore, before any input] -> (process |
 * on_watermark | watermark status | on_timer | snapshot at a barrier |
 * callbacks of watched descriptors)* -> end of input on every upstream
 * channel -> close. When every channel of an operator has ended, the
 * framework flushes it, calls vtable->finish (if any) and forwards the end
 * downstream. All functions return JOINERY_OK or an error status with the
 * job's Diag filled; an error stops the job. Ownership: the framework owns
 * what it keeps per operator (the valve's channel records, the timer
 * service, what blocked channels kept) and frees it in operator_close
 * before the vtable's close frees the operator.
 *
 * Watermarks and their status (Flink's WatermarkStatus): an operator is fed
 * by upstream channels (subtask x input; OperatorTarget.channel says which
 * one a producer is). Each channel is ACTIVE or IDLE. Generators (a scan
 * with a pushed watermark, the WatermarkAssigner) announce IDLE when they
 * have had no input for table.exec.source.idle-timeout, and ACTIVE again
 * before their next row or watermark. Every operator merges its channels
 * in one valve (as Flink's StatusWatermarkValve) that keeps one watermark
 * per channel:
 *  - the merged watermark is the minimum over the active channels that
 *    have caught up with it (an idle channel holds nothing back; a channel
 *    that comes back behind it is left out until it catches up), so it only
 *    moves forward;
 *  - when every channel is idle the operator announces IDLE downstream
 *    (after advancing to the largest channel watermark when the last active
 *    channel was the one holding it), and ACTIVE as soon as one channel is
 *    active again; a watermark on an idle channel makes it active first.
 * Rows carry no status: a producer announces ACTIVE before rows.
 *
 * Which watermark entry is for what:
 *  - on_watermark (reacting operators): called with the merged watermark
 *    each time it advances, after the valve; NULL forwards it
 *    (operator_emit_watermark). An operator that sets it forwards the
 *    watermark itself (or a smaller one it holds back to).
 *  - watermark / watermark_status (hand-over operators only: the Channel
 *    to another task): receive every watermark and status of their one
 *    upstream raw, bypassing the valve, to pass them on in order.
 *  - generators emit watermarks themselves (operator_emit_watermark,
 *    operator_emit_watermark_status): the WatermarkAssigner from its rows
 *    and its idle timer, a scan from its splits (split_watermarks.h).
 *
 * Timers (timer_service.h, Flink's InternalTimerService): an operator
 * registers event-time and processing-time timers keyed by (key row,
 * timestamp) (operator_register_timer); they live in the task's state
 * store, so they are state on every backend. Event-time timers fire when
 * the merged watermark passes them (timestamp <= watermark), in timestamp
 * order, right before on_watermark: rows they emit go downstream before
 * the watermark (Flink's order). Processing-time timers fire when the task
 * loop advances processing time past them (operator_advance_processing_time);
 * the loop sleeps until the earliest timer of its operators. State TTL
 * cleanup is a recurring processing-time timer (operator_schedule_cleanup,
 * every 100 ms while an operator has TTL); the WatermarkAssigner's
 * idleness is a timer at its last activity + the idle timeout.
 *
 * Barriers (snapshot.h; Flink's aligned checkpoint barriers): a source
 * starts one between two batches (operator_inject_barrier, from
 * job_trigger_barrier); it travels in order with rows and watermarks, to
 * every downstream channel of an exchange, through channels and mailboxes.
 * Every operator aligns it over its upstream channels: once channel c has
 * delivered barrier n, nothing more from c is processed (c is blocked)
 * until every channel has delivered n or ended; then the operator's
 * snapshot entry runs (its states in a fixed order; the framework adds its
 * timers) and the result goes to ExecContext.snapshots, the barrier goes
 * downstream, and the channels flow again. Between tasks the consumer does
 * not take from a blocked channel's mailbox queue, so its producer waits
 * once that queue is full (backpressure, no unbounded buffering) while the
 * other channels flow. A direct call cannot wait: what arrives on a
 * blocked channel is kept, in order, and delivered after the alignment. In
 * a job whose operators share one task that does not happen: the task
 * starts a barrier at all its sources in one loop round, so each operator
 * receives it on every channel before any later row. A newer barrier
 * before the alignment is complete gives the older one up (Flink's
 * subsumed checkpoint); barriers of older checkpoints are ignored. A
 * hand-over operator (the Channel) takes barriers raw (`barrier` entry).
 *
 * Asynchronous I/O (exec_io.h): an operator may watch file descriptors
 * (exec_watch_fd); their callbacks run on its task's thread, between
 * other work or, while the operator waits for room among its requests in
 * flight (exec_wait_io), inside its own process.
 */
#ifndef JOINERY_EXEC_OPERATOR_H
#define JOINERY_EXEC_OPERATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/base/row.h"
#include "engine/base/row_batch.h"
#include "engine/exec/snapshot.h"
#include "engine/exec/timer_service.h"

enum {
    OPERATOR_MAX_INPUTS = 64,
    OPERATOR_CLEANUP_INTERVAL_MILLIS = 100, /* cadence of state TTL cleanup */
};

typedef struct Operator Operator;
typedef struct ExecContext ExecContext;
typedef struct StateStore StateStore;
typedef struct ExecIo ExecIo;

/* Whether a stream will carry rows and watermarks for now (Flink's WatermarkStatus). */
typedef enum WatermarkStatus {
    WATERMARK_STATUS_ACTIVE = 0,
    WATERMARK_STATUS_IDLE = 1,
} WatermarkStatus;

/* What barrier alignment knows about one upstream channel. */
typedef struct ChannelFlow {
    bool blocked; /* delivered the barrier being aligned: nothing more from it is processed */
    /* direct calls that arrived while blocked, kept in order (single-task jobs) */
    struct StreamElement *deferred_head;
    struct StreamElement *deferred_tail;
} ChannelFlow;

/* What the valve knows about one upstream channel. */
typedef struct ChannelWatermark {
    int64_t watermark; /* largest received; INT64_MIN before the first */
    bool idle;
    bool aligned; /* counts in the minimum: active and not behind the merged watermark */
} ChannelWatermark;

/* Per-operator figures shown by SHOW JOB METRICS and the status line. */
typedef struct OperatorMetrics {
    uint64_t rows_in;
    uint64_t rows_out;
    uint64_t busy_nanos;    /* time inside process, on_timer, finish, snapshots and fd
                               callbacks (includes downstream work triggered when a full
                               output batch is flushed) */
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
    /* The merged input watermark advanced to `watermark` (top of this file); NULL:
       forward it downstream. */
    int (*on_watermark)(Operator *self, int64_t watermark);
    /* Hand-over operators only (top of this file): a watermark or status of the one
       upstream channel, raw; NULL: the valve. An operator with its own `watermark` entry
       and no status entry forwards the status as is. */
    int (*watermark)(Operator *self, uint32_t input, int64_t watermark);
    int (*watermark_status)(Operator *self, uint32_t input, WatermarkStatus status);
    /* A timer the operator registered is due (top of this file: "Timers"): `key` is its
       key row (the empty row for operator-wide timers), valid during the call. NULL for
       operators that register none. */
    int (*on_timer)(Operator *self, TimerDomain domain, int64_t timestamp, const Row *key);
    /* The operator aligned `barrier` (top of this file: "Barriers"): writes its state
       with the snapshot functions of state.h, each state in a fixed order (the framework
       adds its timers). NULL: stateless. */
    int (*snapshot)(Operator *self, const Barrier *barrier, const StateWriter *writer);
    /* Reads what snapshot wrote into the freshly opened operator (before any input). */
    int (*restore)(Operator *self, const StateReader *reader);
    /* Hand-over operators only: a barrier of the one upstream channel, raw (no alignment,
       no snapshot); NULL: aligned by the framework. */
    int (*barrier)(Operator *self, uint32_t input, const Barrier *barrier);
    /* Every input has ended: emit what is pending (an operator with requests in flight
       waits for them here, exec_wait_io). May be NULL. */
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
    uint32_t channel; /* which of op's upstream channels this is (0..op->channel_count-1) */
} OperatorTarget;

/*
 * What flows on a channel, in order: rows, watermarks, status changes,
 * barriers and the end of input. A mailbox holds these between tasks
 * (op_channel.h); an operator keeps them while a channel is blocked at a
 * barrier (top of this file: "Barriers").
 */
typedef enum StreamElementKind {
    STREAM_BATCH,
    STREAM_WATERMARK,
    STREAM_WATERMARK_STATUS,
    STREAM_BARRIER,
    STREAM_END_OF_INPUT,
} StreamElementKind;

typedef struct StreamElement {
    StreamElementKind kind;
    Operator *target; /* where it goes: input `input`, upstream channel `channel` */
    uint32_t input;
    uint32_t channel;
    int64_t watermark;                /* STREAM_WATERMARK */
    WatermarkStatus watermark_status; /* STREAM_WATERMARK_STATUS */
    Barrier barrier;                  /* STREAM_BARRIER */
    RowBatch batch;                   /* STREAM_BATCH: rows in the same allocation */
    uint64_t sequence;                /* a mailbox's order of puts */
    struct StreamElement *next;
} StreamElement;

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
    /* the watermark this operator sent downstream (what Calc's CURRENT_WATERMARK sees);
       INT64_MIN before the first; never decreases */
    int64_t current_watermark;
    /* the valve's merged watermark of the upstream channels (what on_watermark was last
       called with); INT64_MIN before the first; never decreases */
    int64_t input_watermark;
    WatermarkStatus watermark_status;     /* last announced downstream; ACTIVE at first */
    ChannelWatermark *channel_watermarks; /* the valve: one per upstream channel,
                                             allocated at the first watermark or status */
    uint32_t channel_watermark_count;
    /* barrier alignment: one per upstream channel, allocated at the first barrier */
    ChannelFlow *channel_flows;
    uint32_t channel_flow_count;
    int64_t checkpoint_id;      /* the newest barrier seen (0: none) */
    bool aligning;              /* checkpoint_id is not aligned yet */
    uint32_t barriers_received; /* channels that delivered it */
    Barrier aligning_barrier;
    int64_t aligning_since_nanos; /* monotonic time of the checkpoint's first barrier */
    /* how long the last aligned checkpoint waited from its first barrier to its last
       (0 with one channel); the checkpoint's alignment time is its operators' longest */
    int64_t last_alignment_nanos;
    bool finished;            /* every channel ended: finish ran and the end went downstream */
    uint32_t channels_linked; /* job building: channels connected so far (the next index) */
    /* set by the constructor when the operator will register timers: its task then has a
       state store even if nothing else keeps state (job_state.c) */
    bool uses_timers;
    TimerService *timers;      /* created at the first registration; NULL before */
    OperatorTarget target;     /* single downstream (unused by exchanges) */
    OperatorTarget *broadcast; /* exchanges: every downstream subtask; end of input and
                                  watermarks go to all of them */
    uint32_t broadcast_count;
    /* exchanges read by several consumers (a statement set's reused sub-plan): broadcast
       holds broadcast_count / broadcast_width sets of broadcast_width subtasks, one set per
       consumer, and a routed row goes to its subtask in every set; 0: one set */
    uint32_t broadcast_width;
    /* other operators a node read by several consumers (a statement set's reused sub-plan)
       feeds besides `target`: every batch, watermark, status, barrier and end also goes to
       each, in order after `target` (operator_push_downstream) */
    OperatorTarget *fanout;
    uint32_t fanout_count;
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
    /* the task's state backend instance: stateful operators create their state from it
       in open (engine/state/state.h); NULL for jobs of stateless operators only */
    StateStore *state_store;
    /* where snapshots taken at barriers go (snapshot.h); NULL: none are taken */
    const SnapshotStorage *snapshots;
    /* the task's wait set: descriptors its operators watch (exec_io.h); NULL: none */
    ExecIo *io;
    /* set by an operator whose output is final and complete (a top-level Limit that has
       passed its rows): every task then ends its sources as if their input had ended,
       so the job finishes normally; NULL outside a job */
    volatile int *end_requested;
};

/*
 * Initialises the common part of an operator allocated by its constructor.
 * `impl` is the operator-specific state. Never fails.
 */
void operator_init(Operator *op, const OperatorVtable *vtable, const char *name,
                   uint32_t input_count, void *impl);
/* Connects op's output to input `input` of `target`, as its channel `input`. */
void operator_connect(Operator *op, Operator *target, uint32_t input);
/* Opens the operator (vtable->open). */
int operator_open(Operator *op, ExecContext *context);
/*
 * Delivers a batch to `op` on `input` from upstream channel `channel`, then
 * flushes op's output. operator_push is for channel `input` (as
 * operator_connect links).
 */
int operator_push_channel(Operator *op, uint32_t input, uint32_t channel, const RowBatch *batch);
int operator_push(Operator *op, uint32_t input, const RowBatch *batch);
/*
 * Pushes `batch` (op's output, or rows op forwards without copying) to op's
 * single target and then to each of its fanout targets; nothing when op has
 * none. JOINERY_OK or the first failing status.
 */
int operator_push_downstream(Operator *op, const RowBatch *batch);
/* Copies `row` with kind `kind` into op's output; flushes when full. */
int operator_emit(Operator *op, const Row *row, RowKind kind);
/* Sends op's pending output downstream now. */
int operator_flush(Operator *op);
/*
 * Delivers a watermark that arrived on upstream channel `channel` (of input
 * `input`): vtable->watermark (hand-over), or the valve, which calls
 * on_watermark when the merged watermark advances (top of this file).
 */
int operator_push_watermark(Operator *op, uint32_t input, uint32_t channel, int64_t watermark);
/*
 * Delivers a barrier that arrived on upstream channel `channel` (of input
 * `input`): vtable->barrier (hand-over), or the alignment (top of this
 * file: "Barriers").
 */
int operator_push_barrier(Operator *op, uint32_t input, uint32_t channel, const Barrier *barrier);
/* Sends a barrier to op's downstream (flushing pending rows first). */
int operator_emit_barrier(Operator *op, const Barrier *barrier);
/*
 * Starts a barrier at a source, between its batches: the source reaches it
 * (snapshot storage told) and sends it downstream; nothing once the source
 * has ended.
 */
int operator_inject_barrier(Operator *op, const Barrier *barrier);
/* True while upstream channel `channel` of op is blocked at a barrier. */
static inline bool operator_channel_blocked(const Operator *op, uint32_t channel)
{
    return channel < op->channel_flow_count && op->channel_flows[channel].blocked;
}
/*
 * Writes op's snapshot (vtable->snapshot, then its timers) / reads one into
 * the freshly opened op (vtable->restore, then its timers). JOINERY_OK or
 * the failing status (op's diag filled); an operator without a snapshot
 * entry has nothing to write and refuses to restore.
 */
int operator_snapshot(Operator *op, const Barrier *barrier, const StateWriter *writer);
int operator_restore(Operator *op, const StateReader *reader);

/* Delivers a status announced by upstream channel `channel` of input `input`. */
int operator_push_watermark_status(Operator *op, uint32_t input, uint32_t channel,
                                   WatermarkStatus status);
/*
 * Sends a watermark to op's downstream (flushing pending rows first) and
 * records it as op->current_watermark. An operator that announced IDLE
 * announces ACTIVE first.
 */
int operator_emit_watermark(Operator *op, int64_t watermark);
/*
 * Announces `status` to op's downstream (flushing pending rows first) unless
 * it is what op announced last; records it in op->watermark_status.
 */
int operator_emit_watermark_status(Operator *op, WatermarkStatus status);
/*
 * Upstream channel `channel` (of input `input`) ended; after the last
 * channel: flush, finish, propagate. operator_end_input ends channel `input`.
 */
int operator_end_channel(Operator *op, uint32_t input, uint32_t channel);
int operator_end_input(Operator *op, uint32_t input);

/*
 * A heap copy of an element of `kind` for `target` (target, input and
 * channel set; for STREAM_BATCH the rows of `batch` copied into the same
 * allocation, batch NULL otherwise). NULL on no memory. Free with free().
 */
StreamElement *stream_element_new(StreamElementKind kind, const OperatorTarget *target,
                                  const RowBatch *batch);
/* Frees a list of elements linked by `next`. */
void stream_element_free_list(StreamElement *head);
/* Hands `element` to its target, by kind (the functions above); does not free it. */
int operator_deliver(const StreamElement *element);
/*
 * Registers / deletes a timer of `op` (key NULL: an operator-wide timer).
 * The timer service is created from the task's state store at the first
 * registration. JOINERY_OK or an error (op failed: no store, state full).
 */
int operator_register_timer(Operator *op, TimerDomain domain, int64_t timestamp, const Row *key);
int operator_delete_timer(Operator *op, TimerDomain domain, int64_t timestamp, const Row *key);
/* The earliest processing-time timer of `op`; INT64_MAX when none. */
int64_t operator_next_processing_timer(const Operator *op);
/*
 * Advances op's processing time to `now_millis`: every processing-time
 * timer due runs on_timer, in timestamp order; then op's output is flushed.
 */
int operator_advance_processing_time(Operator *op, int64_t now_millis);
/*
 * The processing time an on_timer call runs at: the time the service was
 * advanced to, else the job's clock (operator_now_millis).
 */
int64_t operator_timer_now(const Operator *op);
/*
 * Registers the next round of a stateful operator's incremental TTL
 * cleanup: a processing-time timer OPERATOR_CLEANUP_INTERVAL_MILLIS after
 * operator_timer_now (from open, then from on_timer while TTL is set).
 */
int operator_schedule_cleanup(Operator *op);
/* Frees the common part, then calls vtable->close, which frees the operator. */
void operator_close(Operator *op);

/* Current processing time of the job, in ms since the epoch. */
int64_t operator_now_millis(const Operator *op);
/* Records an error on the job's diagnostic and returns its status. */
int operator_fail(Operator *op, JoineryStatus status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * Records that a call on the operator's state (`what`, e.g. "join state")
 * failed: the operator, its state bytes and the reason the task's store
 * gives (the hashmap budget, an LMDB failure), or "out of memory" when the
 * allocator failed, each with the cure (LMDB state, a TTL, a time-bounded
 * join). Returns the status.
 */
int operator_fail_state(Operator *op, const char *what);

#endif
