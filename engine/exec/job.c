/*
 * job.c - builds the operators of a physical plan and drives them.
 *
 * Build: every plan node becomes one operator per subtask. Keyed nodes
 * (under a hash Exchange) and scans get `parallelism` subtasks; Values,
 * sinks and nodes under a single Exchange get one. An Exchange node becomes
 * one exchange operator per upstream subtask, each routing to every
 * downstream subtask. Other nodes forward subtask i to subtask i (or merge
 * into a single downstream subtask).
 *
 * Tasks: with parallelism 1 everything runs on the caller's thread. With
 * parallelism p > 1 the graph is cut into tasks, each on its own thread: a
 * chain of operators connected one-to-one stays in one task; an operator
 * fed by an exchange, by several inputs or by a merge of subtasks starts a
 * task, and its inputs arrive through channels (op_channel.h) into the
 * task's mailbox. The task holding the sink runs on the caller's thread, so
 * result callbacks reach the client there.
 *
 * Run: each task's loop polls its sources (each poll pushes one batch
 * through the operators synchronously) and drains its mailbox. Idle
 * (rate-limited) sources make the loop wait until the next one is due, in
 * short slices so that Ctrl-C is noticed at once. A processing-time tick
 * every 100 ms runs TTL cleanup; the caller's task offers a status line
 * every 250 ms (single-threaded jobs only: counters are not shared).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/exec/job.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"
#include "engine/exec/ops/op_calc.h"
#include "engine/exec/ops/op_changelog_normalize.h"
#include "engine/exec/ops/op_channel.h"
#include "engine/exec/ops/op_exchange.h"
#include "engine/exec/ops/op_group_aggregate.h"
#include "engine/exec/ops/op_join.h"
#include "engine/exec/ops/op_multi_join.h"
#include "engine/exec/ops/op_sink.h"
#include "engine/exec/ops/op_source.h"
#include "engine/exec/ops/op_union.h"
#include "engine/exec/ops/op_watermark_assigner.h"

enum {
    JOB_TIMER_INTERVAL_MILLIS = 100,
    JOB_DRAIN_LIMIT_MILLIS = 10000, /* a cancelled job drains this long at most */
    JOB_STATUS_INTERVAL_MILLIS = 250,
    JOB_MAILBOX_CAPACITY = 64,
    JOB_MAX_TASKS = 1024,
};

/* One thread's share of the job. */
typedef struct JobTask {
    struct Job *job;
    int index;
    Mailbox mailbox;
    bool mailbox_ready;
    Operator **sources; /* polled by this task */
    uint32_t source_count;
    uint32_t ends_expected; /* channels into this task */
    uint32_t ends_received;
    ExecContext context;
    Diag diag;
    int status;
    pthread_t thread;
    bool started;
    /* figures the task publishes for the status line (written by its own thread only;
       read by the caller's thread) */
    _Atomic uint64_t published_rows_read;
    _Atomic uint64_t published_state_bytes;
} JobTask;

typedef struct JobOperator {
    Operator *op;
    const PlanNode *node;
} JobOperator;

struct Job {
    Arena arena; /* specs and arrays that live as long as the job */
    JobOperator *operators;
    uint32_t operator_count;
    uint32_t operator_capacity;
    Operator **sources;
    uint32_t source_count;
    Operator **channels; /* hand-overs between tasks; closed with the job */
    uint32_t channel_count;
    JobTask **tasks; /* each allocated alone: channels keep pointers to mailboxes */
    uint32_t task_count;
    bool threaded;
    volatile int stop; /* a task failed, or a cancel could not drain: stop at once */
    volatile int *cancel_requested;
    /* Cancel (Ctrl-C) drains: every task stops polling its sources (it is then
       "quiet", as is a task that finished) and keeps delivering its mailbox until no
       message is queued or being delivered; then `drained` is set and every task
       returns JOINERY_CANCELLED. Every row read has then gone through the whole
       pipeline, so sources may commit what they read. */
    _Atomic int64_t in_flight;
    _Atomic uint32_t tasks_quiet;
    volatile int drained;
    Operator *sink;
    ExecContext context;
    Diag *diag;
    JobOutput output;
    int parallelism;
    uint64_t datagen_seed;
    bool multi_join_pruning;     /* table.optimizer.multi-join.empty-result-pruning.enabled */
    int64_t idle_timeout_millis; /* table.exec.source.idle-timeout, for WatermarkAssigners */
    const PlanNode *root;
};

/* The subtasks that feed the next operator, with the node they run. */
typedef struct Ports {
    Operator **ops;
    uint32_t count;
    bool exchange; /* the ports are exchanges: they route to every downstream subtask */
} Ports;

static int job_no_memory(Job *job)
{
    return diag_error(job->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
}

static int job_add(Job *job, Operator *op, const PlanNode *node)
{
    if (!op)
        return job->diag->status ? job->diag->status : job_no_memory(job);
    if (job->operator_count == job->operator_capacity) {
        uint32_t capacity = job->operator_capacity ? job->operator_capacity * 2 : 32;
        JobOperator *operators = realloc(job->operators, capacity * sizeof *operators);
        if (!operators) {
            operator_close(op);
            return job_no_memory(job);
        }
        job->operators = operators;
        job->operator_capacity = capacity;
    }
    op->plan_node_id = node ? node->id : 0;
    job->operators[job->operator_count].op = op;
    job->operators[job->operator_count].node = node;
    job->operator_count++;
    return JOINERY_OK;
}

static DataType *job_field_types(Job *job, const PlanNode *node)
{
    DataType *types = arena_calloc(&job->arena, node->field_count + 1, sizeof(DataType));
    for (uint32_t i = 0; types && i < node->field_count; i++)
        types[i] = node->fields[i].type;
    return types;
}

/* A new task (thread) in a threaded job; task 0 for every operator otherwise. */
static int job_new_task(Job *job, int *task)
{
    if (!job->threaded && job->task_count > 0) {
        *task = 0;
        return JOINERY_OK;
    }
    if (job->task_count >= JOB_MAX_TASKS)
        return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED,
                          "the job would need more than %d threads; lower parallelism.default",
                          JOB_MAX_TASKS);
    JobTask **tasks = realloc(job->tasks, (job->task_count + 1) * sizeof *tasks);
    if (!tasks)
        return job_no_memory(job);
    job->tasks = tasks;
    JobTask *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return job_no_memory(job);
    fresh->job = job;
    fresh->index = (int)job->task_count;
    diag_clear(&fresh->diag);
    if (job->threaded) {
        if (mailbox_init(&fresh->mailbox, JOB_MAILBOX_CAPACITY, &job->stop, &job->in_flight) !=
            JOINERY_OK) {
            free(fresh);
            return job_no_memory(job);
        }
        fresh->mailbox_ready = true;
    }
    job->tasks[job->task_count++] = fresh;
    *task = fresh->index;
    return JOINERY_OK;
}

/* Hands rows from `port` to input `input` of `consumer`: directly in one task, else a channel. */
static int job_link(Job *job, Operator *port, Operator *consumer, uint32_t input,
                    OperatorTarget *target)
{
    target->op = consumer;
    target->input = input;
    /* each upstream channel of the consumer has its own watermark and status */
    target->channel = consumer->channels_linked++;
    if (port->task == consumer->task)
        return JOINERY_OK;
    JobTask *task = job->tasks[consumer->task];
    Operator *channel =
        channel_operator_create(&task->mailbox, consumer, input, target->channel, job->diag);
    if (!channel)
        return job_no_memory(job);
    Operator **channels = realloc(job->channels, (job->channel_count + 1) * sizeof *channels);
    if (!channels) {
        operator_close(channel);
        return job_no_memory(job);
    }
    job->channels = channels;
    job->channels[job->channel_count++] = channel;
    channel->task = port->task;
    channel->plan_node_id = port->plan_node_id; /* its waits are the producer's backpressure */
    task->ends_expected++;
    target->op = channel;
    target->input = 0;
    target->channel = 0;
    return JOINERY_OK;
}

/* Connects ports to `count` consumer subtasks on `input`. */
static int job_connect(Job *job, const Ports *ports, Operator **consumers, uint32_t count,
                       uint32_t input)
{
    for (uint32_t p = 0; p < ports->count; p++) {
        Operator *port = ports->ops[p];
        int status;
        if (ports->exchange) {
            port->broadcast = arena_calloc(&job->arena, count, sizeof(OperatorTarget));
            if (!port->broadcast)
                return job_no_memory(job);
            port->broadcast_count = count;
            for (uint32_t c = 0; c < count; c++) {
                status = job_link(job, port, consumers[c], input, &port->broadcast[c]);
                if (status != JOINERY_OK)
                    return status;
            }
        } else {
            status =
                job_link(job, port, consumers[count == ports->count ? p : 0], input, &port->target);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

/* Channels each consumer subtask receives on one input, added to its channel_count. */
static void job_count_channels(const Ports *ports, Operator **consumers, uint32_t count)
{
    for (uint32_t c = 0; c < count; c++) {
        uint32_t channels;
        if (ports->exchange)
            channels = ports->count;
        else if (count == ports->count)
            channels = 1;
        else
            channels = c == 0 ? ports->count : 0;
        consumers[c]->channel_count += channels;
    }
}

/*
 * Places consumer subtask i in a task: the task of its one-to-one upstream
 * when it has exactly that single input, else a task of its own.
 */
static int job_place(Job *job, Operator *op, uint32_t index, const Ports *inputs,
                     uint32_t input_count, uint32_t count)
{
    if (input_count == 1 && !inputs[0].exchange && inputs[0].count == count) {
        op->task = inputs[0].ops[index]->task;
        return JOINERY_OK;
    }
    return job_new_task(job, &op->task);
}

static int job_build(Job *job, const PlanNode *node, Ports *result);

static int job_build_inputs(Job *job, const PlanNode *node, Ports *inputs)
{
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = job_build(job, node->inputs[i], &inputs[i]);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* An empty list of `count` ports (the caller fills in the subtasks' operators). */
static Ports job_ports(Job *job, uint32_t count)
{
    Ports ports = {arena_calloc(&job->arena, count + 1, sizeof(Operator *)), count, false};
    return ports;
}

static int job_finish_consumers(Job *job, const PlanNode *node, Ports *inputs, Ports *ports)
{
    for (uint32_t i = 0; i < ports->count; i++)
        ports->ops[i]->channel_count = 0;
    for (uint32_t i = 0; i < node->input_count; i++) {
        job_count_channels(&inputs[i], ports->ops, ports->count);
        int status = job_connect(job, &inputs[i], ports->ops, ports->count, i);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

static int job_build_scan(Job *job, const PlanNode *node, Ports *result)
{
    const CatalogTable *table = node->scan.table;
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    if (!connector || !connector->create_source)
        return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                          "Table `%s` cannot be read: connector '%s' is not a source", table->name,
                          catalog_table_option(table, "connector"));
    uint32_t read = node->scan.read_count ? node->scan.read_count : node->scan.column_count;
    DataType *types = arena_calloc(&job->arena, read + 1, sizeof(DataType));
    if (!types)
        return job_no_memory(job);
    for (uint32_t i = 0; i < read; i++) {
        types[i] = table->columns[node->scan.columns[i]].type;
        types[i].time_attribute = TIME_ATTRIBUTE_NONE;
    }
    uint32_t count = (uint32_t)job->parallelism;
    *result = job_ports(job, count);
    if (!result->ops)
        return job_no_memory(job);
    for (uint32_t i = 0; i < count; i++) {
        ScanSpec *spec = arena_calloc(&job->arena, 1, sizeof *spec);
        if (!spec)
            return job_no_memory(job);
        spec->source.table = table;
        spec->source.field_count = read;
        spec->source.columns = node->scan.columns;
        spec->source.types = types;
        spec->source.subtask_index = (int)i;
        spec->source.parallelism = (int)count;
        spec->source.seed = job->datagen_seed;
        spec->output_count = node->scan.column_count;
        spec->filter = node->scan.filter;
        spec->watermark = node->scan.watermark;
        spec->idle_timeout_millis = node->scan.idle_timeout_millis;
        spec->watermark_interval_millis = node->scan.watermark_interval_millis;
        SourceReader *reader = NULL;
        int status = connector->create_source(&spec->source, &reader, job->diag);
        if (status != JOINERY_OK)
            return status;
        Operator *op = scan_operator_create(spec, reader, job->diag);
        if (!op) {
            reader->vtable->close(reader);
            return job_no_memory(job);
        }
        status = job_add(job, op, node);
        if (status == JOINERY_OK)
            status = job_new_task(job, &op->task);
        if (status != JOINERY_OK)
            return status;
        op->subtask_index = (int)i;
        result->ops[i] = op;
        Operator **sources = realloc(job->sources, (job->source_count + 1) * sizeof(Operator *));
        if (!sources)
            return job_no_memory(job);
        job->sources = sources;
        job->sources[job->source_count++] = op;
    }
    return JOINERY_OK;
}

static int job_build_values(Job *job, const PlanNode *node, Ports *result)
{
    *result = job_ports(job, 1);
    if (!result->ops)
        return job_no_memory(job);
    Operator *op = values_operator_create(node->values.rows, node->values.row_count,
                                          job_field_types(job, node), node->field_count, job->diag);
    int status = job_add(job, op, node);
    if (status == JOINERY_OK)
        status = job_new_task(job, &op->task);
    if (status != JOINERY_OK)
        return status;
    result->ops[0] = op;
    Operator **sources = realloc(job->sources, (job->source_count + 1) * sizeof(Operator *));
    if (!sources)
        return job_no_memory(job);
    job->sources = sources;
    job->sources[job->source_count++] = op;
    return JOINERY_OK;
}

static int job_build_exchange(Job *job, const PlanNode *node, Ports *result)
{
    Ports input;
    int status = job_build(job, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    ExchangeSpec *spec = arena_calloc(&job->arena, 1, sizeof *spec);
    if (!spec)
        return job_no_memory(job);
    spec->keys = node->exchange.keys;
    spec->key_count = node->exchange.key_count;
    spec->types = job_field_types(job, node);
    /* one exchange per upstream subtask (or one merging everything) */
    uint32_t count = input.exchange ? 1 : input.count;
    *result = job_ports(job, count);
    if (!result->ops)
        return job_no_memory(job);
    result->exchange = true;
    for (uint32_t i = 0; i < count; i++) {
        Operator *op = exchange_operator_create(spec, job->diag);
        status = job_add(job, op, node);
        if (status == JOINERY_OK)
            status = job_place(job, op, i, &input, 1, count);
        if (status != JOINERY_OK)
            return status;
        op->subtask_index = (int)i;
        result->ops[i] = op;
    }
    return job_finish_consumers(job, node, &input, result);
}

/* How many subtasks a node downstream of these input ports runs with. */
static uint32_t job_subtasks(Job *job, const PlanNode *node, const Ports *inputs)
{
    if (node->kind == PLAN_JOIN || node->kind == PLAN_GROUP_AGGREGATE ||
        node->kind == PLAN_MULTI_JOIN || node->kind == PLAN_CHANGELOG_NORMALIZE) {
        const PlanNode *exchange = node->inputs[0];
        if (exchange->kind == PLAN_EXCHANGE &&
            exchange->exchange.distribution == PLAN_DISTRIBUTION_SINGLE)
            return 1;
        return (uint32_t)job->parallelism;
    }
    uint32_t count = 1;
    for (uint32_t i = 0; i < node->input_count; i++)
        if (!inputs[i].exchange && inputs[i].count > count)
            count = inputs[i].count;
    return count;
}

static JoinType job_join_type(PlanJoinType type)
{
    switch (type) {
    case PLAN_JOIN_LEFT:
        return JOIN_TYPE_LEFT;
    case PLAN_JOIN_RIGHT:
        return JOIN_TYPE_RIGHT;
    case PLAN_JOIN_FULL:
        return JOIN_TYPE_FULL;
    default:
        return JOIN_TYPE_INNER;
    }
}

static JoinInputSpec job_input_spec(PlanInputSpec spec)
{
    switch (spec) {
    case PLAN_INPUT_HAS_UNIQUE_KEY:
        return JOIN_INPUT_HAS_UNIQUE_KEY;
    case PLAN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY:
        return JOIN_INPUT_JOIN_KEY_CONTAINS_UNIQUE_KEY;
    default:
        return JOIN_INPUT_NO_UNIQUE_KEY;
    }
}

static AggregateKind job_aggregate_kind(PlanAggregateKind kind)
{
    switch (kind) {
    case PLAN_AGGREGATE_COUNT_STAR:
        return AGGREGATE_COUNT_STAR;
    case PLAN_AGGREGATE_COUNT:
        return AGGREGATE_COUNT;
    case PLAN_AGGREGATE_SUM:
        return AGGREGATE_SUM;
    case PLAN_AGGREGATE_MIN:
        return AGGREGATE_MIN;
    case PLAN_AGGREGATE_MAX:
        return AGGREGATE_MAX;
    default:
        return AGGREGATE_AVG;
    }
}

/*
 * A MultiJoin of two inputs keeps the same state as a binary join (both
 * inputs, nothing in between), and the binary join operator runs it faster
 * (batched lookups with prefetching): the plan keeps Flink's MultiJoin node,
 * the job runs a Join. Its key is the common key; its residual is the whole
 * condition, so a key equality written with IS NOT DISTINCT FROM makes the
 * keys null-safe and a plain one is still checked (NULL keys never match).
 */
static Operator *job_two_input_multi_join(Job *job, const PlanNode *node)
{
    Arena *arena = &job->arena;
    JoinOperatorSpec *spec = arena_calloc(arena, 1, sizeof *spec);
    uint32_t key_count = node->multi_join.common_key_count;
    bool *null_safe = arena_calloc(arena, key_count + 1, sizeof(bool));
    if (!spec || !null_safe)
        return NULL;
    const Expr *condition = node->multi_join.conditions[1];
    bool any_null_safe = expr_calls(condition, FUNCTION_IS_NOT_DISTINCT_FROM);
    for (uint32_t k = 0; k < key_count; k++)
        null_safe[k] = any_null_safe;
    spec->join_type = job_join_type(node->multi_join.join_types[1]);
    spec->left_field_count = node->inputs[0]->field_count;
    spec->right_field_count = node->inputs[1]->field_count;
    spec->left_types = job_field_types(job, node->inputs[0]);
    spec->right_types = job_field_types(job, node->inputs[1]);
    spec->left_keys = node->multi_join.key_fields[0];
    spec->right_keys = node->multi_join.key_fields[1];
    spec->key_count = key_count;
    spec->null_safe_keys = null_safe;
    spec->residual = condition;
    spec->left_input_spec =
        node->inputs[0]->unique_key_count ? JOIN_INPUT_HAS_UNIQUE_KEY : JOIN_INPUT_NO_UNIQUE_KEY;
    spec->right_input_spec =
        node->inputs[1]->unique_key_count ? JOIN_INPUT_HAS_UNIQUE_KEY : JOIN_INPUT_NO_UNIQUE_KEY;
    spec->left_ttl_millis = node->multi_join.ttl_millis[0];
    spec->right_ttl_millis = node->multi_join.ttl_millis[1];
    return join_operator_create(spec, job->diag);
}

static Operator *job_create_operator(Job *job, const PlanNode *node)
{
    Arena *arena = &job->arena;
    switch (node->kind) {
    case PLAN_CALC: {
        CalcSpec *spec = arena_calloc(arena, 1, sizeof *spec);
        if (!spec)
            return NULL;
        spec->input_field_count = node->inputs[0]->field_count;
        spec->projects = node->calc.projects;
        spec->project_count = node->calc.project_count;
        spec->output_types = job_field_types(job, node);
        spec->condition = node->calc.condition;
        return calc_operator_create(spec, job->diag);
    }
    case PLAN_WATERMARK_ASSIGNER:
        return watermark_assigner_operator_create(node->watermark.watermark, node->field_count,
                                                  job->idle_timeout_millis, job->diag);
    case PLAN_UNION:
        return union_operator_create(node->input_count, job->diag);
    case PLAN_JOIN: {
        JoinOperatorSpec *spec = arena_calloc(arena, 1, sizeof *spec);
        if (!spec)
            return NULL;
        spec->join_type = job_join_type(node->join.join_type);
        spec->left_field_count = node->inputs[0]->field_count;
        spec->right_field_count = node->inputs[1]->field_count;
        spec->left_types = job_field_types(job, node->inputs[0]);
        spec->right_types = job_field_types(job, node->inputs[1]);
        spec->left_keys = node->join.left_keys;
        spec->right_keys = node->join.right_keys;
        spec->key_count = node->join.key_count;
        spec->null_safe_keys = node->join.null_safe;
        spec->residual = node->join.residual;
        spec->left_input_spec = job_input_spec(node->join.left_spec);
        spec->right_input_spec = job_input_spec(node->join.right_spec);
        spec->left_ttl_millis = node->state_ttl_millis;
        spec->right_ttl_millis = node->state_ttl_right_millis;
        return join_operator_create(spec, job->diag);
    }
    case PLAN_CHANGELOG_NORMALIZE: {
        ChangelogNormalizeSpec *spec = arena_calloc(arena, 1, sizeof *spec);
        if (!spec)
            return NULL;
        spec->field_count = node->field_count;
        spec->types = job_field_types(job, node);
        spec->key_fields = node->exchange.keys;
        spec->key_count = node->exchange.key_count;
        spec->ttl_millis = node->state_ttl_millis;
        return changelog_normalize_operator_create(spec, job->diag);
    }
    case PLAN_MULTI_JOIN: {
        uint32_t count = node->input_count;
        if (count == 2)
            return job_two_input_multi_join(job, node);
        MultiJoinSpec *spec = arena_calloc(arena, 1, sizeof *spec);
        MultiJoinInputSpec *inputs = arena_calloc(arena, count, sizeof *inputs);
        MultiJoinType *types = arena_calloc(arena, count, sizeof *types);
        if (!spec || !inputs || !types)
            return NULL;
        for (uint32_t i = 0; i < count; i++) {
            const PlanNode *input = node->inputs[i];
            inputs[i].field_count = input->field_count;
            inputs[i].types = job_field_types(job, input);
            inputs[i].common_key_fields = node->multi_join.key_fields[i];
            inputs[i].ttl_millis = node->multi_join.ttl_millis[i];
            if (input->unique_key_count) {
                inputs[i].has_unique_key = true;
                inputs[i].unique_key_fields = input->unique_keys[0].fields;
                inputs[i].unique_key_count = input->unique_keys[0].count;
            }
            types[i] = (MultiJoinType)node->multi_join.join_types[i];
        }
        spec->input_count = count;
        spec->inputs = inputs;
        spec->common_key_count = node->multi_join.common_key_count;
        spec->join_types = types;
        spec->conditions = (const Expr *const *)node->multi_join.conditions;
        spec->empty_result_pruning = job->multi_join_pruning;
        return multi_join_operator_create(spec, job->diag);
    }
    case PLAN_GROUP_AGGREGATE: {
        GroupAggregateSpec *spec = arena_calloc(arena, 1, sizeof *spec);
        AggregateCall *calls =
            arena_calloc(arena, node->aggregate.call_count + 1, sizeof(AggregateCall));
        if (!spec || !calls)
            return NULL;
        const PlanNode *input = node->inputs[0];
        for (uint32_t i = 0; i < node->aggregate.call_count; i++) {
            const PlanAggregateCall *call = &node->aggregate.calls[i];
            calls[i].kind = job_aggregate_kind(call->kind);
            calls[i].argument = call->argument;
            calls[i].distinct = call->distinct;
            calls[i].argument_type = call->kind == PLAN_AGGREGATE_COUNT_STAR
                                         ? type_make(TYPE_BIGINT, false)
                                         : input->fields[call->argument].type;
            calls[i].result_type = call->result_type;
        }
        spec->input_field_count = input->field_count;
        spec->input_types = job_field_types(job, input);
        spec->group_keys = node->aggregate.group_keys;
        spec->group_key_count = node->aggregate.group_key_count;
        spec->calls = calls;
        spec->call_count = node->aggregate.call_count;
        spec->input_is_update = input->changelog_mode != CHANGELOG_INSERT;
        spec->ttl_millis = node->state_ttl_millis;
        return group_aggregate_operator_create(spec, job->diag);
    }
    default:
        diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED, "%s cannot run yet",
                   plan_kind_name(node->kind));
        return NULL;
    }
}

static int job_line_to_output(void *context, const char *line)
{
    const Job *job = context;
    if (job->output.write_line)
        return job->output.write_line(job->output.context, line);
    return 0;
}

static int job_build_sink(Job *job, const PlanNode *node, Ports *result)
{
    Ports input;
    int status = job_build(job, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    const CatalogTable *table = node->sink.table;
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    if (!connector || !connector->create_sink)
        return diag_error(job->diag, JOINERY_ERROR_VALIDATE,
                          "Table `%s` cannot be written: connector '%s' is not a sink", table->name,
                          catalog_table_option(table, "connector"));
    SinkSpec *spec = arena_calloc(&job->arena, 1, sizeof *spec);
    const char **names = arena_calloc(&job->arena, node->field_count + 1, sizeof(char *));
    if (!spec || !names)
        return job_no_memory(job);
    for (uint32_t i = 0; i < node->field_count; i++)
        names[i] = node->fields[i].name;
    spec->table = table;
    spec->field_count = node->field_count;
    spec->types = job_field_types(job, node);
    spec->names = names;
    spec->write_line = job_line_to_output;
    spec->line_context = job;
    SinkWriter *writer = NULL;
    status = connector->create_sink(spec, &writer, job->diag);
    if (status != JOINERY_OK)
        return status;
    Operator *op = sink_operator_create_writer(writer, job->diag);
    if (!op) {
        writer->vtable->close(writer);
        return job_no_memory(job);
    }
    status = job_add(job, op, node);
    if (status == JOINERY_OK)
        status = job_place(job, op, 0, &input, 1, 1);
    if (status != JOINERY_OK)
        return status;
    *result = job_ports(job, 1);
    if (!result->ops)
        return job_no_memory(job);
    result->ops[0] = op;
    job->sink = op;
    return job_finish_consumers(job, node, &input, result);
}

static int job_build(Job *job, const PlanNode *node, Ports *result)
{
    switch (node->kind) {
    case PLAN_TABLE_SOURCE_SCAN:
        return job_build_scan(job, node, result);
    case PLAN_VALUES:
        return job_build_values(job, node, result);
    case PLAN_EXCHANGE:
        return job_build_exchange(job, node, result);
    case PLAN_SINK:
        return job_build_sink(job, node, result);
    default:
        break;
    }
    Ports inputs[OPERATOR_MAX_INPUTS];
    if (node->input_count > OPERATOR_MAX_INPUTS)
        return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED, "too many inputs");
    int status = job_build_inputs(job, node, inputs);
    if (status != JOINERY_OK)
        return status;
    uint32_t count = job_subtasks(job, node, inputs);
    *result = job_ports(job, count);
    if (!result->ops)
        return job_no_memory(job);
    for (uint32_t i = 0; i < count; i++) {
        Operator *op = job_create_operator(job, node);
        status = job_add(job, op, node);
        if (status == JOINERY_OK)
            status = job_place(job, op, i, inputs, node->input_count, count);
        if (status != JOINERY_OK)
            return status;
        op->subtask_index = (int)i;
        result->ops[i] = op;
    }
    return job_finish_consumers(job, node, inputs, result);
}

static int job_collect(void *context, const Row *row)
{
    Job *job = context;
    return job->output.row ? job->output.row(job->output.context, row) : 0;
}

static int64_t job_clock(void *context)
{
    (void)context;
    return datetime_now_millis();
}

int job_create(const PlanNode *physical, const SessionOptions *options, const JobOutput *output,
               Job **result, Diag *diag)
{
    Job *job = calloc(1, sizeof *job);
    if (!job)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    arena_init(&job->arena, 16 * 1024);
    job->diag = diag;
    job->output = *output;
    job->root = physical;
    job->parallelism = (int)options_get_integer(options, "parallelism.default");
    if (job->parallelism < 1)
        job->parallelism = 1;
    job->datagen_seed = (uint64_t)options_get_integer(options, "table.exec.datagen.seed");
    job->multi_join_pruning =
        options_get_boolean(options, "table.optimizer.multi-join.empty-result-pruning.enabled");
    job->idle_timeout_millis =
        options_get_duration_millis(options, "table.exec.source.idle-timeout");
    job->threaded = job->parallelism > 1;
    job->context.diag = diag;
    job->context.now_millis = job_clock;
    job->context.parallelism = job->parallelism;
    *result = job;
    Ports ports;
    int status = job_build(job, physical, &ports);
    if (status == JOINERY_OK && physical->kind != PLAN_SINK) {
        Operator *collector = sink_operator_create_collector(job_collect, job, diag);
        status = job_add(job, collector, NULL);
        if (status == JOINERY_OK)
            status = job_place(job, collector, 0, &ports, 1, 1);
        if (status == JOINERY_OK) {
            Ports sink_ports = {&collector, 1, false};
            collector->channel_count = 0;
            job_count_channels(&ports, sink_ports.ops, 1);
            status = job_connect(job, &ports, sink_ports.ops, 1, 0);
            job->sink = collector;
        }
    }
    if (status != JOINERY_OK)
        return status;
    /* every task has its own context (diagnostic) in a threaded job */
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        task->context = job->context;
        task->context.diag = job->threaded ? &task->diag : diag;
        task->context.cancel_requested = &job->stop;
    }
    for (uint32_t i = 0; i < job->source_count; i++) {
        JobTask *task = job->tasks[job->sources[i]->task];
        Operator **sources = realloc(task->sources, (task->source_count + 1) * sizeof *sources);
        if (!sources)
            return job_no_memory(job);
        task->sources = sources;
        task->sources[task->source_count++] = job->sources[i];
    }
    for (uint32_t i = 0; i < job->operator_count && status == JOINERY_OK; i++) {
        Operator *op = job->operators[i].op;
        status = operator_open(op, &job->tasks[op->task]->context);
    }
    for (uint32_t i = 0; i < job->channel_count && status == JOINERY_OK; i++) {
        Operator *channel = job->channels[i];
        status = operator_open(channel, &job->tasks[channel->task]->context);
    }
    return status;
}

uint64_t job_rows_written(const Job *job)
{
    return job->sink ? sink_operator_rows(job->sink) : 0;
}

uint64_t job_skipped_rows(const Job *job)
{
    uint64_t skipped = 0;
    for (uint32_t i = 0; i < job->source_count; i++)
        skipped += source_operator_skipped_rows(job->sources[i]);
    return skipped;
}

static void job_sleep_millis(int64_t millis)
{
    if (millis <= 0)
        return;
    struct timespec pause = {millis / 1000, (long)(millis % 1000) * 1000000L};
    nanosleep(&pause, NULL);
}

/* Publishes this task's rows read and state bytes (only its own thread touches its
   operators' counters, so this is the one place they cross threads). */
static void job_task_publish(JobTask *task)
{
    Job *job = task->job;
    uint64_t rows_read = 0, state_bytes = 0;
    for (uint32_t i = 0; i < task->source_count; i++)
        rows_read += task->sources[i]->metrics.rows_out;
    for (uint32_t i = 0; i < job->operator_count; i++) {
        Operator *op = job->operators[i].op;
        if (op->task != task->index)
            continue;
        if (op->vtable->report_state)
            op->vtable->report_state(op);
        state_bytes += op->metrics.state_bytes;
    }
    atomic_store_explicit(&task->published_rows_read, rows_read, memory_order_relaxed);
    atomic_store_explicit(&task->published_state_bytes, state_bytes, memory_order_relaxed);
}

/* The progress line, from what every task published (called on the sink's task). */
static void job_status_line(Job *job)
{
    if (!job->output.status)
        return;
    uint64_t source_rows = 0, state_bytes = 0;
    for (uint32_t t = 0; t < job->task_count; t++) {
        source_rows +=
            atomic_load_explicit(&job->tasks[t]->published_rows_read, memory_order_relaxed);
        state_bytes +=
            atomic_load_explicit(&job->tasks[t]->published_state_bytes, memory_order_relaxed);
    }
    char line[256];
    snprintf(line, sizeof line, "running: %llu rows read, %llu rows out, state %.1f MiB",
             (unsigned long long)source_rows, (unsigned long long)job_rows_written(job),
             (double)state_bytes / (1024.0 * 1024.0));
    job->output.status(job->output.context, line);
}

static bool job_cancel_requested(const Job *job)
{
    return job->cancel_requested && *job->cancel_requested;
}

/* True once a draining job has nothing left in flight (see Job.drained). */
static bool job_drain_done(Job *job)
{
    if (!job->drained && atomic_load(&job->tasks_quiet) == job->task_count &&
        atomic_load(&job->in_flight) == 0)
        job->drained = 1;
    return job->drained;
}

static int job_task_fail(JobTask *task, int status)
{
    task->status = status;
    task->job->stop = 1;
    return status;
}

/* Delivers one mailbox message to its operator. */
static int job_task_deliver(JobTask *task, MailboxMessage *message)
{
    int status = JOINERY_OK;
    switch (message->kind) {
    case MAILBOX_BATCH:
        status = operator_push(message->target, message->input, &message->batch);
        break;
    case MAILBOX_WATERMARK:
        status = operator_push_watermark(message->target, message->input, message->channel,
                                         message->watermark);
        break;
    case MAILBOX_WATERMARK_STATUS:
        status = operator_push_watermark_status(message->target, message->input, message->channel,
                                                message->watermark_status);
        break;
    case MAILBOX_END_OF_INPUT:
        task->ends_received++;
        status = operator_end_input(message->target, message->input);
        break;
    }
    free(message);
    atomic_fetch_sub(&task->job->in_flight, 1); /* after what the delivery sent was counted */
    return status;
}

static int job_task_timers(JobTask *task, int64_t now)
{
    Job *job = task->job;
    for (uint32_t i = 0; i < job->operator_count; i++) {
        Operator *op = job->operators[i].op;
        if (op->task != task->index)
            continue;
        int status = operator_timer(op, now);
        if (status != JOINERY_OK)
            return status;
    }
    return JOINERY_OK;
}

/* A task whose sources and inputs ended: it counts as quiet for a drain. */
static int job_task_finished(JobTask *task)
{
    atomic_fetch_add(&task->job->tasks_quiet, 1);
    return JOINERY_OK;
}

/* One task's loop: poll sources, drain the mailbox, tick timers, until its inputs end. */
static int job_task_run(JobTask *task)
{
    Job *job = task->job;
    int64_t next_timer = datetime_now_millis() + JOB_TIMER_INTERVAL_MILLIS;
    int64_t next_status = datetime_now_millis() + JOB_STATUS_INTERVAL_MILLIS;
    /* the task holding the sink reports progress; every task publishes its figures */
    bool report_status = job->sink && job->sink->task == task->index;
    bool draining = false;
    int64_t drain_deadline = 0;
    for (;;) {
        if (job->stop)
            return JOINERY_CANCELLED;
        if (!draining && job_cancel_requested(job)) {
            draining = true; /* no more polls: what was read drains through */
            drain_deadline = datetime_now_millis() + JOB_DRAIN_LIMIT_MILLIS;
            atomic_fetch_add(&job->tasks_quiet, 1);
        }
        if (draining && job_drain_done(job))
            return JOINERY_CANCELLED;
        if (draining && datetime_now_millis() > drain_deadline) {
            job->stop = 1; /* a blocked pipeline: stop without the clean mark */
            return JOINERY_CANCELLED;
        }
        bool any_active = false, any_open = false;
        int64_t now = datetime_now_millis();
        int64_t earliest = INT64_MAX;
        for (uint32_t i = 0; i < task->source_count && !draining; i++) {
            SourceState state;
            int64_t next_poll = now + 10;
            int status = source_operator_poll(task->sources[i], now, &state, &next_poll);
            if (status != JOINERY_OK)
                return job_task_fail(task, status);
            if (state == SOURCE_STATE_ACTIVE)
                any_active = true;
            if (state != SOURCE_STATE_ENDED)
                any_open = true;
            if (state == SOURCE_STATE_IDLE && next_poll < earliest)
                earliest = next_poll;
        }
        bool inputs_open = task->ends_received < task->ends_expected;
        if (!any_open && !inputs_open && !draining)
            return job_task_finished(task);
        if (draining)
            any_open = true; /* stay until the drain is done */
        now = datetime_now_millis();
        int64_t wait = 0;
        if (!any_active) {
            wait = earliest == INT64_MAX ? 50 : earliest - now;
            if (wait > 50)
                wait = 50; /* stay responsive to Ctrl-C */
        }
        if (task->mailbox_ready && inputs_open) {
            /* a bounded number of messages per round keeps sources polled too */
            for (int taken = 0; taken < 16; taken++) {
                MailboxMessage *message = mailbox_take(&task->mailbox, taken ? 0 : wait);
                if (!message)
                    break;
                int status = job_task_deliver(task, message);
                if (status != JOINERY_OK)
                    return job_task_fail(task, status);
            }
        } else if (!any_active && any_open && wait > 0) {
            job_sleep_millis(wait);
        }
        if (!any_open && task->ends_received == task->ends_expected)
            return job_task_finished(task);
        now = datetime_now_millis();
        if (!draining && now >= next_timer) { /* timers could emit: not while draining */
            int status = job_task_timers(task, now);
            if (status != JOINERY_OK)
                return job_task_fail(task, status);
            next_timer = now + JOB_TIMER_INTERVAL_MILLIS;
        }
        if (now >= next_status) {
            job_task_publish(task);
            if (report_status)
                job_status_line(job);
            next_status = now + JOB_STATUS_INTERVAL_MILLIS;
        }
    }
}

static void *job_task_thread(void *argument)
{
    JobTask *task = argument;
    int status = job_task_run(task);
    if (status != JOINERY_OK && task->status == JOINERY_OK)
        task->status = status;
    if (status != JOINERY_OK)
        task->job->stop = 1;
    return NULL;
}

int job_run(Job *job, volatile int *cancel_requested, Diag *diag)
{
    job->cancel_requested = cancel_requested;
    /* the task with the sink runs here, so result callbacks stay on the caller's thread */
    int main_task = job->sink ? job->sink->task : 0;
    int status = JOINERY_OK;
    for (uint32_t t = 0; t < job->task_count && status == JOINERY_OK; t++) {
        JobTask *task = job->tasks[t];
        if ((int)t == main_task)
            continue;
        if (pthread_create(&task->thread, NULL, job_task_thread, task) != 0) {
            job->stop = 1;
            status = diag_error(diag, JOINERY_ERROR, "could not start a thread for the job");
            break;
        }
        task->started = true;
    }
    if (status == JOINERY_OK) {
        JobTask *task = job->tasks[main_task];
        int main_status = job_task_run(task);
        if (main_status != JOINERY_OK && task->status == JOINERY_OK)
            task->status = main_status;
        if (main_status != JOINERY_OK)
            job->stop = 1;
    }
    for (uint32_t t = 0; t < job->task_count; t++)
        if (job->tasks[t]->started) {
            pthread_join(job->tasks[t]->thread, NULL);
            job->tasks[t]->started = false;
        }
    if (status != JOINERY_OK)
        return status;
    /* the first real failure wins over the cancellations it caused */
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        if (task->status == JOINERY_OK || task->status == JOINERY_CANCELLED)
            continue;
        if (job->threaded && diag->status == JOINERY_OK && task->diag.status != JOINERY_OK)
            *diag = task->diag;
        return diag->status != JOINERY_OK ? diag->status : task->status;
    }
    bool cancelled = false;
    for (uint32_t t = 0; t < job->task_count; t++)
        if (job->tasks[t]->status == JOINERY_CANCELLED)
            cancelled = true;
    /* a drained cancel finishes the sink (flushes a Kafka producer, renames a part file into
       place) so that what went through is durable before the sources commit it */
    if (cancelled && job->drained && job->sink && job->sink->vtable->finish) {
        int finish_status = job->sink->vtable->finish(job->sink);
        if (finish_status != JOINERY_OK) {
            const Diag *sink_diag = &job->tasks[job->sink->task]->diag;
            if (job->threaded && diag->status == JOINERY_OK && sink_diag->status != JOINERY_OK)
                *diag = *sink_diag;
            return diag->status != JOINERY_OK ? diag->status : finish_status;
        }
    }
    /* a clean stop lets sources commit what they read: at the end of input, or on a
       cancel once everything read has drained through the pipeline and the sink */
    if (!cancelled || job->drained)
        for (uint32_t i = 0; i < job->source_count; i++)
            source_operator_mark_stopped_cleanly(job->sources[i]);
    return cancelled ? JOINERY_CANCELLED : JOINERY_OK;
}

/* One line per MultiJoin input: its state, summed over subtasks. */
static void job_format_multi_join_inputs(Job *job, const PlanNode *node, StrBuf *out)
{
    for (uint32_t input = 0; input < node->input_count; input++) {
        uint64_t bytes = 0, keys = 0, rows = 0;
        for (uint32_t j = 0; j < job->operator_count; j++) {
            if (job->operators[j].node != node)
                continue;
            uint64_t input_bytes, input_keys, input_rows;
            multi_join_operator_input_state(job->operators[j].op, input, &input_bytes, &input_keys,
                                            &input_rows);
            bytes += input_bytes;
            keys += input_keys;
            rows += input_rows;
            /* a two-input MultiJoin runs as a binary join (job_two_input_multi_join) */
            join_operator_side_state(job->operators[j].op, input, &input_bytes, &input_keys,
                                     &input_rows);
            bytes += input_bytes;
            keys += input_keys;
            rows += input_rows;
        }
        const char *name = node->multi_join.input_names[input];
        char label[64];
        snprintf(label, sizeof label, "  input %u%s%s", input, name ? " " : "", name ? name : "");
        strbuf_printf(out, "%-4s %-22s %8s %12s %12s %10llu %10llu %12llu %10s\n", "", label, "",
                      "", "", (unsigned long long)rows, (unsigned long long)keys,
                      (unsigned long long)bytes, "");
    }
}

/* True when watermarks reach the node: it or something below it generates them. */
static bool job_node_has_watermark(const PlanNode *node)
{
    if (node->kind == PLAN_WATERMARK_ASSIGNER ||
        (node->kind == PLAN_TABLE_SOURCE_SCAN && node->scan.watermark))
        return true;
    for (uint32_t i = 0; i < node->input_count; i++)
        if (job_node_has_watermark(node->inputs[i]))
            return true;
    return false;
}

/*
 * The watermark line of a node: the lowest over its subtasks ("none" while
 * one has none), as a TIMESTAMP(3), and whether its subtasks are idle.
 */
static void job_format_watermark(Job *job, const PlanNode *node, StrBuf *out)
{
    int64_t lowest = INT64_MAX;
    uint32_t subtasks = 0, idle = 0;
    for (uint32_t j = 0; j < job->operator_count; j++) {
        if (job->operators[j].node != node)
            continue;
        const Operator *op = job->operators[j].op;
        subtasks++;
        if (op->watermark_status == WATERMARK_STATUS_IDLE)
            idle++;
        if (op->current_watermark < lowest)
            lowest = op->current_watermark;
    }
    StrBuf text = STRBUF_INIT;
    if (lowest == INT64_MIN)
        strbuf_append_cstr(&text, "none");
    else if (lowest == INT64_MAX)
        strbuf_append_cstr(&text, "+infinity (end of input)");
    else if (value_format_text(type_make_timestamp(TYPE_TIMESTAMP, 3, false), value_int(lowest),
                               &text) != 0)
        strbuf_printf(&text, "%lld", (long long)lowest);
    if (idle && idle == subtasks)
        strbuf_append_cstr(&text, ", idle");
    else if (idle)
        strbuf_printf(&text, ", idle in %u of %u subtasks", idle, subtasks);
    strbuf_printf(out, "%-4s   watermark %s\n", "", strbuf_cstr(&text));
    strbuf_free(&text);
}

void job_format_metrics(Job *job, StrBuf *out)
{
    strbuf_printf(out, "%-4s %-22s %8s %12s %12s %10s %10s %12s %10s %12s\n", "id", "operator",
                  "subtasks", "rows in", "rows out", "state rows", "state keys", "state bytes",
                  "busy ms", "backpressure");
    /* one line per plan node, summed over its subtasks, in build order */
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const PlanNode *node = job->operators[i].node;
        bool first = true;
        for (uint32_t j = 0; j < i; j++)
            if (job->operators[j].node == node && node)
                first = false;
        if (!first)
            continue;
        OperatorMetrics total = {0};
        uint32_t subtasks = 0;
        for (uint32_t j = i; j < job->operator_count; j++) {
            if (job->operators[j].node != node || (!node && j != i))
                continue;
            Operator *op = job->operators[j].op;
            if (op->vtable->report_state)
                op->vtable->report_state(op);
            total.rows_in += op->metrics.rows_in;
            total.rows_out += op->metrics.rows_out;
            total.state_rows += op->metrics.state_rows;
            total.state_keys += op->metrics.state_keys;
            total.state_bytes += op->metrics.state_bytes;
            total.busy_nanos += op->metrics.busy_nanos;
            subtasks++;
        }
        const char *name = node ? plan_kind_name(node->kind) : "Collect";
        /* backpressure: time its subtasks waited for room downstream (threaded jobs) */
        uint64_t blocked = 0;
        for (uint32_t c = 0; node && c < job->channel_count; c++)
            if (job->channels[c]->plan_node_id == node->id)
                blocked += job->channels[c]->metrics.blocked_nanos;
        char backpressure[32];
        snprintf(backpressure, sizeof backpressure, "%.1f ms", (double)blocked / 1e6);
        strbuf_printf(out, "%-4d %-22s %8u %12llu %12llu %10llu %10llu %12llu %10.1f %12s\n",
                      node ? node->id : 0, name, subtasks, (unsigned long long)total.rows_in,
                      (unsigned long long)total.rows_out, (unsigned long long)total.state_rows,
                      (unsigned long long)total.state_keys, (unsigned long long)total.state_bytes,
                      (double)total.busy_nanos / 1e6, job->threaded ? backpressure : "-");
        if (node && node->kind == PLAN_MULTI_JOIN)
            job_format_multi_join_inputs(job, node, out);
        if (node && node->kind == PLAN_TABLE_SOURCE_SCAN) {
            uint64_t skipped = 0;
            for (uint32_t j = i; j < job->operator_count; j++)
                if (job->operators[j].node == node)
                    skipped += source_operator_skipped_rows(job->operators[j].op);
            if (skipped)
                strbuf_printf(out, "%-4s   %llu bad records skipped in %s\n", "",
                              (unsigned long long)skipped, node->scan.table->name);
        }
        if (node && job_node_has_watermark(node))
            job_format_watermark(job, node, out);
    }
}

void job_destroy(Job *job)
{
    if (!job)
        return;
    for (uint32_t i = 0; i < job->operator_count; i++)
        operator_close(job->operators[i].op);
    for (uint32_t i = 0; i < job->channel_count; i++)
        operator_close(job->channels[i]);
    for (uint32_t t = 0; t < job->task_count; t++) {
        JobTask *task = job->tasks[t];
        if (task->mailbox_ready)
            mailbox_destroy(&task->mailbox);
        free(task->sources);
        free(task);
    }
    free(job->tasks);
    free(job->channels);
    free(job->operators);
    free(job->sources);
    arena_destroy(&job->arena);
    free(job);
}
