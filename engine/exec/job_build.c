/*
 * job_build.c - builds the operators and tasks of a job from a physical plan
 * (job_create) and frees them (job_destroy).
 *
 * Build: every plan node becomes one operator per subtask, as its kind's
 * row in job_kinds[] says: scans, values, exchanges and sinks have builders
 * here that link the graph; every other kind's operator comes from its
 * builder in build/ (one call per subtask) and job_build does the rest.
 * Keyed nodes (stateful, under a hash Exchange) and scans get
 * `parallelism` subtasks; Values, sinks and nodes under a single Exchange
 * get one. An Exchange node becomes
 * one exchange operator per upstream subtask, each routing to every
 * downstream subtask. Other nodes forward subtask i to subtask i (or merge
 * into a single downstream subtask).
 *
 * Tasks: with parallelism 1 everything runs in task 0 on the caller's thread.
 * With parallelism p > 1 the graph is cut into tasks, each on its own thread:
 * a chain of operators connected one-to-one stays in one task; an operator
 * fed by an exchange, by several inputs or by a merge of subtasks starts a
 * task, and its inputs arrive through channels (op_channel.h) into the
 * task's mailbox (job_link). The task holding the sink runs on the caller's
 * thread (job_run.c), so result callbacks reach the client there.
 *
 * Invariants after a successful job_create: every operator is in
 * Job.operators (with its plan node; NULL for the collector of a SELECT) and
 * opened with its task's context; every channel is in Job.channels; each
 * task's ends_expected counts the channels into it; Job.sink is the sink or
 * collector. On failure the half-built job is still owned by *job and freed
 * by job_destroy.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/connector/connector.h"
#include "engine/exec/job_internal.h"
#include "engine/exec/ops/op_exchange.h"
#include "engine/exec/ops/op_sink.h"
#include "engine/exec/ops/op_source.h"

enum {
    JOB_MAILBOX_CAPACITY = 64,
    JOB_MAX_TASKS = 1024,
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

/* Connects ports to `count` consumer subtasks on `input`. Ports that feed a consumer already
   (a node shared by a statement set's sinks) feed this one too: an exchange gets another set
   of `count` broadcast targets, any other operator a fanout target. */
static int job_connect(Job *job, const Ports *ports, Operator **consumers, uint32_t count,
                       uint32_t input)
{
    for (uint32_t p = 0; p < ports->count; p++) {
        Operator *port = ports->ops[p];
        int status;
        if (ports->exchange) {
            uint32_t had = port->broadcast_count;
            if (had && port->broadcast_width != count)
                return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED,
                                  "an Exchange shared by a statement set's INSERTs feeds "
                                  "operators of different parallelism; set "
                                  "'table.optimizer.reuse-sub-plan-enabled' = 'false'");
            OperatorTarget *targets =
                arena_calloc(&job->arena, had + count, sizeof(OperatorTarget));
            if (!targets)
                return job_no_memory(job);
            if (had)
                memcpy(targets, port->broadcast, had * sizeof *targets);
            port->broadcast = targets;
            port->broadcast_count = had + count;
            port->broadcast_width = count;
            for (uint32_t c = 0; c < count; c++) {
                status = job_link(job, port, consumers[c], input, &port->broadcast[had + c]);
                if (status != JOINERY_OK)
                    return status;
            }
        } else {
            Operator *consumer = consumers[count == ports->count ? p : 0];
            OperatorTarget *target = &port->target;
            if (port->target.op) {
                OperatorTarget *fanout =
                    arena_calloc(&job->arena, port->fanout_count + 1, sizeof(OperatorTarget));
                if (!fanout)
                    return job_no_memory(job);
                if (port->fanout_count)
                    memcpy(fanout, port->fanout, port->fanout_count * sizeof *fanout);
                port->fanout = fanout;
                target = &port->fanout[port->fanout_count++];
            }
            status = job_link(job, port, consumer, input, target);
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
        spec->source.cancel_requested = job->create_cancel;
        spec->source.progress = job->output.status;
        spec->source.progress_context = job->output.context;
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
    DataType *types = build_field_types(&job->arena, node);
    if (!types)
        return job_no_memory(job);
    Operator *op = values_operator_create(node->values.rows, node->values.row_count, types,
                                          node->field_count, job->diag);
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
    spec->types = build_field_types(&job->arena, node);
    if (!spec->types)
        return job_no_memory(job);
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

/* How many subtasks a node downstream of these input ports runs with: a keyed (stateful)
   node as many as its exchange routes to; a stateful node fed directly by another node
   (a Limit over a batch Sort) as many as that input, since a subtask without an input
   channel would never see its end. */
static uint32_t job_subtasks(Job *job, const PlanNode *node, const Ports *inputs)
{
    if (plan_node_is_stateful(node) && node->input_count &&
        node->inputs[0]->kind == PLAN_EXCHANGE) {
        const PlanNode *exchange = node->inputs[0];
        if (exchange->kind == PLAN_EXCHANGE &&
            exchange->exchange.distribution == PLAN_DISTRIBUTION_SINGLE)
            return 1;
        return (uint32_t)job->parallelism;
    }
    /* a lookup join under the Exchange of 'shuffle' runs on every subtask it hashes to */
    if (node->kind == PLAN_LOOKUP_JOIN && node->inputs[0]->kind == PLAN_EXCHANGE &&
        node->inputs[0]->exchange.distribution == PLAN_DISTRIBUTION_HASH)
        return (uint32_t)job->parallelism;
    uint32_t count = 1;
    for (uint32_t i = 0; i < node->input_count; i++)
        if (!inputs[i].exchange && inputs[i].count > count)
            count = inputs[i].count;
    return count;
}

static int job_line_to_output(void *context, const char *line)
{
    const Job *job = context;
    if (job->output.write_line)
        return job->output.write_line(job->output.context, line);
    return 0;
}

/* The connector's writer for Sink `node`; JOINERY_OK or the error (job diag). */
static int job_create_writer(Job *job, const PlanNode *node, SinkWriter **writer)
{
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
    spec->types = build_field_types(&job->arena, node);
    if (!spec->types)
        return job_no_memory(job);
    spec->names = names;
    spec->write_line = job_line_to_output;
    spec->cancel_requested = job->create_cancel;
    spec->line_context = job;
    return connector->create_sink(spec, writer, job->diag);
}

/* Input `input` of the sink operator materializes as its Sink node says (upsertMaterialize). */
static int job_sink_materialize(Job *job, Operator *op, uint32_t input, const PlanNode *sink)
{
    if (!sink->sink.upsert_materialize)
        return JOINERY_OK;
    UpsertMaterializerSpec spec = {sink->sink.key_count, sink->sink.key_fields,
                                   build_field_types(&job->arena, sink->inputs[0]),
                                   sink->state_ttl_millis > 0 ? sink->state_ttl_millis : 0};
    if (!spec.types || sink_operator_materialize(op, input, &spec) != JOINERY_OK)
        return job_no_memory(job);
    return JOINERY_OK;
}

static int job_build_sink(Job *job, const PlanNode *node, Ports *result)
{
    Ports input;
    int status = job_build(job, node->inputs[0], &input);
    if (status != JOINERY_OK)
        return status;
    SinkWriter *writer = NULL;
    status = job_create_writer(job, node, &writer);
    if (status != JOINERY_OK)
        return status;
    Operator *op = sink_operator_create_writer(writer, job->diag);
    if (!op) {
        writer->vtable->close(writer);
        return job_no_memory(job);
    }
    status = job_add(job, op, node);
    if (status == JOINERY_OK)
        status = job_sink_materialize(job, op, 0, node);
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

/*
 * A statement set: one sink operator with a writer per Sink, input i writing
 * Sink i, so the job has one sink that commits, finishes and takes its last
 * checkpoint for all of them at once. The Sinks' inputs are built (shared
 * nodes once) and linked in statement order, so a shared node feeds the
 * sinks in that order (Flink's order of edges).
 */
static int job_build_statement_set(Job *job, const PlanNode *node, Ports *result)
{
    uint32_t count = node->input_count;
    if (count == 0 || count > OPERATOR_MAX_INPUTS)
        return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED,
                          "a statement set runs 1 to %d INSERTs", OPERATOR_MAX_INPUTS);
    SinkWriter **writers = arena_calloc(&job->arena, count, sizeof(SinkWriter *));
    const char **tables = arena_calloc(&job->arena, count, sizeof(char *));
    if (!writers || !tables)
        return job_no_memory(job);
    int status = JOINERY_OK;
    uint32_t created = 0;
    for (; created < count && status == JOINERY_OK; created++) {
        status = job_create_writer(job, node->inputs[created], &writers[created]);
        tables[created] = node->inputs[created]->sink.table->name;
    }
    Operator *op = NULL;
    if (status == JOINERY_OK) {
        op = sink_operator_create_writers(writers, tables, count, job->diag);
        if (!op)
            status = job_no_memory(job);
    }
    if (status != JOINERY_OK) {
        for (uint32_t i = 0; i < created; i++)
            if (writers[i])
                writers[i]->vtable->close(writers[i]);
        return status;
    }
    status = job_add(job, op, node); /* the job owns it (and its writers) from here */
    for (uint32_t i = 0; i < count && status == JOINERY_OK; i++)
        status = job_sink_materialize(job, op, i, node->inputs[i]);
    if (status == JOINERY_OK && count > 1)
        status = job_new_task(job, &op->task);
    if (status != JOINERY_OK)
        return status;
    job->sink = op;
    op->channel_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        Ports input;
        status = job_build(job, node->inputs[i]->inputs[0], &input);
        if (status == JOINERY_OK && count == 1)
            status = job_place(job, op, 0, &input, 1, 1);
        if (status != JOINERY_OK)
            return status;
        job_count_channels(&input, &op, 1);
        status = job_connect(job, &input, &op, 1, i);
        if (status != JOINERY_OK)
            return status;
    }
    *result = job_ports(job, 1);
    if (!result->ops)
        return job_no_memory(job);
    result->ops[0] = op;
    return JOINERY_OK;
}

/* SHOW JOB METRICS: the rows each table of a statement set got. */
static void job_statement_set_metrics(const PlanNode *node, Operator *const *subtasks,
                                      uint32_t count, StrBuf *out)
{
    (void)node;
    for (uint32_t i = 0; i < count; i++) {
        sink_operator_format_tables(subtasks[i], out);
        sink_operator_format_writers(subtasks[i], out);
    }
}

/* SHOW JOB METRICS: what the sink's writer says (a Kafka sink's transactions). */
static void job_sink_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                             StrBuf *out)
{
    (void)node;
    for (uint32_t i = 0; i < count; i++)
        sink_operator_format_writers(subtasks[i], out);
}

/* SHOW JOB METRICS: the bad records a scan's subtasks skipped. */
static void job_scan_metrics(const PlanNode *node, Operator *const *subtasks, uint32_t count,
                             StrBuf *out)
{
    uint64_t skipped = 0;
    for (uint32_t i = 0; i < count; i++)
        skipped += source_operator_skipped_rows(subtasks[i]);
    if (skipped)
        strbuf_printf(out, "%-4s   %llu bad records skipped in %s\n", "",
                      (unsigned long long)skipped, node->scan.table->name);
    /* where they were, as the readers say (file and line of the first few, counts per file) */
    for (uint32_t i = 0; i < count; i++)
        for (const char *text = source_operator_skip_report(subtasks[i]); *text;) {
            const char *end = strchr(text, '\n');
            int length = end ? (int)(end - text) : (int)strlen(text);
            strbuf_printf(out, "%-4s     %.*s\n", "", length, text);
            text += length + (end != NULL);
        }
}

/* The physical kinds (the logical ones cannot run); check_plan_kinds checks for holes. */
const JobKind job_kinds[] = {
    [PLAN_TABLE_SOURCE_SCAN] = {.build = job_build_scan, .format_metrics = job_scan_metrics},
    [PLAN_WATERMARK_ASSIGNER] = {.create = build_watermark_assigner},
    [PLAN_MINI_BATCH_ASSIGNER] = {.create = build_mini_batch_assigner},
    [PLAN_CALC] = {.create = build_calc},
    [PLAN_EXCHANGE] = {.build = job_build_exchange},
    [PLAN_JOIN] = {.create = build_join, .format_metrics = build_join_metrics},
    [PLAN_GROUP_AGGREGATE] = {.create = build_group_aggregate},
    [PLAN_UNION] = {.create = build_union},
    [PLAN_VALUES] = {.build = job_build_values},
    [PLAN_SINK] = {.build = job_build_sink, .format_metrics = job_sink_metrics},
    [PLAN_MULTI_JOIN] = {.create = build_multi_join, .format_metrics = build_multi_join_metrics},
    [PLAN_CHANGELOG_NORMALIZE] = {.create = build_changelog_normalize},
    [PLAN_INTERVAL_JOIN] = {.create = build_interval_join,
                            .format_metrics = build_interval_join_metrics},
    [PLAN_WINDOW_TABLE_FUNCTION] = {.create = build_window_table_function},
    [PLAN_WINDOW_JOIN] = {.create = build_window_join, .format_metrics = build_window_join_metrics},
    [PLAN_SESSION_WINDOW_TABLE_FUNCTION] = {.create = build_session_window_table_function,
                                            .format_metrics = build_session_window_metrics},
    [PLAN_TEMPORAL_JOIN] = {.create = build_temporal_join,
                            .format_metrics = build_temporal_join_metrics},
    [PLAN_DROP_UPDATE_BEFORE] = {.create = build_drop_update_before},
    [PLAN_DEDUPLICATE] = {.create = build_deduplicate},
    [PLAN_LIMIT] = {.create = build_limit},
    [PLAN_SORT] = {.create = build_sort},
    [PLAN_TEMPORAL_SORT] = {.create = build_temporal_sort},
    [PLAN_RANK] = {.create = build_rank},
    [PLAN_SORT_LIMIT] = {.create = build_rank},
    [PLAN_WINDOW_RANK] = {.create = build_window_rank, .format_metrics = build_window_rank_metrics},
    [PLAN_WINDOW_DEDUPLICATE] = {.create = build_window_rank,
                                 .format_metrics = build_window_rank_metrics},
    [PLAN_WINDOW_AGGREGATE] = {.create = build_window_aggregate,
                               .format_metrics = build_window_aggregate_metrics},
    [PLAN_LOOKUP_JOIN] = {.create = build_lookup_join, .format_metrics = build_lookup_join_metrics},
    [PLAN_GROUP_WINDOW_AGGREGATE] = {.create = build_group_window_aggregate,
                                     .format_metrics = build_group_window_aggregate_metrics},
    [PLAN_LOCAL_GROUP_AGGREGATE] = {.create = build_local_group_aggregate},
    [PLAN_GLOBAL_GROUP_AGGREGATE] = {.create = build_global_group_aggregate},
    [PLAN_OVER_AGGREGATE] = {.create = build_over_aggregate,
                             .format_metrics = build_over_aggregate_metrics},
    [PLAN_CORRELATE] = {.create = build_correlate},
    [PLAN_STATEMENT_SET] = {.build = job_build_statement_set,
                            .format_metrics = job_statement_set_metrics},
};
_Static_assert(sizeof job_kinds / sizeof job_kinds[0] == PLAN_KIND_COUNT,
               "job_kinds[] has a row for the last PlanKind");

static int job_build_node(Job *job, const PlanNode *node, Ports *result);

/* Builds `node`; in a job that shares nodes, once: a node built before gives its ports. */
static int job_build(Job *job, const PlanNode *node, Ports *result)
{
    if (!job->share_nodes)
        return job_build_node(job, node, result);
    for (uint32_t i = 0; i < job->built_count; i++)
        if (job->built[i].node == node) {
            *result = *job->built[i].ports;
            return JOINERY_OK;
        }
    int status = job_build_node(job, node, result);
    if (status != JOINERY_OK)
        return status;
    if (job->built_count == job->built_capacity) {
        uint32_t capacity = job->built_capacity ? job->built_capacity * 2 : 32;
        JobBuiltNode *built = realloc(job->built, capacity * sizeof *built);
        if (!built)
            return job_no_memory(job);
        job->built = built;
        job->built_capacity = capacity;
    }
    Ports *ports = arena_calloc(&job->arena, 1, sizeof *ports);
    if (!ports)
        return job_no_memory(job);
    *ports = *result;
    job->built[job->built_count++] = (JobBuiltNode){node, ports};
    return JOINERY_OK;
}

static int job_build_node(Job *job, const PlanNode *node, Ports *result)
{
    const JobKind *kind = &job_kinds[node->kind];
    if (kind->build)
        return kind->build(job, node, result);
    if (!kind->create)
        return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED, "%s cannot run yet",
                          plan_kind_name(node->kind));
    if (node->input_count > OPERATOR_MAX_INPUTS)
        return diag_error(job->diag, JOINERY_ERROR_UNSUPPORTED, "too many inputs");
    /* in the job's arena, not on the stack: this recursion is as deep as the plan */
    Ports *inputs = arena_calloc(&job->arena, node->input_count + 1, sizeof(Ports));
    if (!inputs)
        return job_no_memory(job);
    int status = job_build_inputs(job, node, inputs);
    if (status != JOINERY_OK)
        return status;
    uint32_t count = job_subtasks(job, node, inputs);
    *result = job_ports(job, count);
    if (!result->ops)
        return job_no_memory(job);
    BuildContext build = {
        &job->arena,         job->diag,       job->idle_timeout_millis, job->multi_join_pruning,
        job->job_parameters, job->async_table};
    for (uint32_t i = 0; i < count; i++) {
        Operator *op = kind->create(&build, node);
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

int job_create(const PlanNode *physical, const JobConfig *config, const JobOutput *output,
               Job **result, Diag *diag)
{
    Job *job = calloc(1, sizeof *job);
    if (!job)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    arena_init(&job->arena, 16 * 1024);
    job->diag = diag;
    job->output = *output;
    job->root = physical;
    job->parallelism = config->parallelism < 1 ? 1 : config->parallelism;
    job->datagen_seed = config->datagen_seed;
    job->create_cancel = config->cancel_requested;
    job->multi_join_pruning = config->multi_join_pruning;
    job->idle_timeout_millis = config->idle_timeout_millis;
    job->job_parameters =
        config->job_parameters ? arena_strdup(&job->arena, config->job_parameters) : NULL;
    job->async_table = config->async_table;
    if (job->async_table.capacity <= 0)
        job->async_table.capacity = 10;
    if (job->async_table.timeout_millis <= 0)
        job->async_table.timeout_millis = 180000;
    if (job->async_table.max_retries < 0)
        job->async_table.max_retries = 0;
    job->drain_limit_millis =
        config->drain_limit_millis > 0 ? config->drain_limit_millis : JOB_DRAIN_LIMIT_MILLIS;
    job->threaded = job->parallelism > 1;
    job->share_nodes = physical->kind == PLAN_STATEMENT_SET;
    job->context.diag = diag;
    job->context.now_millis = job_clock;
    job->context.parallelism = job->parallelism;
    *result = job;
    Ports ports;
    int status = job_build(job, physical, &ports);
    if (status == JOINERY_OK && !job->sink) {
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
        task->context.end_requested = &job->end_requested;
    }
    status = job_state_open(job, config);
    if (status == JOINERY_OK)
        status = job_tasks_init(job);
    if (status == JOINERY_OK)
        status = job_checkpoints_open(job, config);
    if (status != JOINERY_OK)
        return status;
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
    /* the stores' first unit (operators creating their state) ends here, on the thread that
       began it: an LMDB write transaction belongs to its thread, and a task's thread could
       not begin its own while this one held the environment's writer lock */
    if (status == JOINERY_OK)
        status = job_checkpoints_restore(job, config->restore_path);
    if (status == JOINERY_OK)
        status = job_state_commit(job);
    return status;
}

void job_destroy(Job *job)
{
    if (!job)
        return;
    job_checkpoints_close(job); /* its writer thread reads the operators */
    for (uint32_t i = 0; i < job->operator_count; i++)
        operator_close(job->operators[i].op);
    for (uint32_t i = 0; i < job->channel_count; i++)
        operator_close(job->channels[i]);
    job_state_close(job);
    job_tasks_free(job);
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
    free(job->built);
    arena_destroy(&job->arena);
    free(job);
}
