/*
 * job_metrics.c - what a job reports about itself: the per-operator metrics
 * table of SHOW JOB METRICS (job_format_metrics), the rows written and
 * records skipped after a run, and the progress line while it runs.
 *
 * Invariants: job_format_metrics and job_rows_written/job_skipped_rows read
 * operator counters directly, so they are called when no task runs (after
 * job_run, or in a single-threaded job from its own thread). While a threaded
 * job runs, counters cross threads only through JobTask's published_* atomics
 * (job_task_publish on the task's thread, job_status_line on the sink's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/value.h"
#include "engine/exec/job_internal.h"
#include "engine/exec/ops/op_sink.h"
#include "engine/exec/ops/op_source.h"

uint64_t job_rows_written(const Job *job)
{
    return job->sink ? sink_operator_rows(job->sink) : 0;
}

uint64_t job_table_rows_written(const Job *job, uint32_t index)
{
    return job->sink ? sink_operator_table_rows(job->sink, index) : 0;
}

uint64_t job_skipped_rows(const Job *job)
{
    uint64_t skipped = 0;
    for (uint32_t i = 0; i < job->source_count; i++)
        skipped += source_operator_skipped_rows(job->sources[i]);
    return skipped;
}

void job_report_warnings(const Job *job, void (*warn)(void *context, const char *line),
                         void *context)
{
    for (uint32_t i = 0; i < job->source_count; i++) {
        const char *text = source_operator_warnings(job->sources[i]);
        while (*text) {
            const char *end = strchr(text, '\n');
            size_t length = end ? (size_t)(end - text) : strlen(text);
            char *line = strndup(text, length);
            if (line)
                warn(context, line);
            free(line);
            text += length + (end != NULL);
        }
    }
}

/* Publishes this task's rows read and state bytes (only its own thread touches its
   operators' counters, so this is the one place they cross threads). */
void job_task_publish(JobTask *task)
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
void job_status_line(Job *job)
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
    char line[320];
    int used = snprintf(line, sizeof line, "running: %llu rows read, %llu rows out, state %.1f MiB",
                        (unsigned long long)source_rows, (unsigned long long)job_rows_written(job),
                        (double)state_bytes / (1024.0 * 1024.0));
    /* the watermark the result has reached (the sink's, read on its own task), once there is one */
    const Operator *sink = job->sink;
    if (sink && sink->current_watermark != INT64_MIN && sink->current_watermark != INT64_MAX &&
        used > 0 && (size_t)used < sizeof line) {
        StrBuf text = STRBUF_INIT;
        if (value_format_text(type_make_timestamp(TYPE_TIMESTAMP, 3, false),
                              value_int(sink->current_watermark), &text) == 0)
            snprintf(line + used, sizeof line - (size_t)used, ", watermark %s", strbuf_cstr(&text));
        strbuf_free(&text);
    }
    job->output.status(job->output.context, line);
    /* the live per-operator table, where it is safe: every operator runs on this thread */
    if (job->output.metrics && !job->threaded) {
        int64_t now = datetime_monotonic_nanos() / 1000000;
        if (now >= job->next_metrics_millis) {
            job->next_metrics_millis = now + 1000;
            StrBuf text = STRBUF_INIT;
            job_format_metrics(job, &text);
            job->output.metrics(job->output.context, strbuf_cstr(&text));
            strbuf_free(&text);
        }
    }
}

void job_format_progress(Job *job, StrBuf *out)
{
    uint64_t source_rows = 0, state_bytes = 0;
    for (uint32_t t = 0; t < job->task_count; t++) {
        source_rows +=
            atomic_load_explicit(&job->tasks[t]->published_rows_read, memory_order_relaxed);
        state_bytes +=
            atomic_load_explicit(&job->tasks[t]->published_state_bytes, memory_order_relaxed);
    }
    strbuf_printf(out, "running: %llu rows read, state %.1f MiB\n", (unsigned long long)source_rows,
                  (double)state_bytes / (1024.0 * 1024.0));
    job_checkpoints_format(job, out);
}

/*
 * What job_format_metrics looks up per plan node: its operators in build
 * order and whether watermarks reach it, in a table keyed by the node's
 * address (a copied node may share its id), plus the time the channels of
 * each node id were blocked. Keeps the table linear in operators and nodes
 * (a 1,000-table join has ~3,000 of each; scanning every operator and
 * channel per node, and the plan below each node, was quadratic).
 */
typedef struct NodeSlot {
    const PlanNode *node; /* NULL: empty */
    uint32_t first;       /* index into NodeIndex.order of its first operator */
    uint32_t count;       /* its operators */
    uint32_t placed;
    signed char has_watermark; /* -1 not yet known, else 0 or 1 */
} NodeSlot;

typedef struct NodeIndex {
    NodeSlot *slots;
    size_t mask;     /* capacity - 1 (a power of two) */
    size_t used;     /* slots taken; kept at most half the capacity */
    uint32_t *order; /* operator indices grouped by node, build order within a node */
    int max_id;
    uint64_t *blocked_nanos; /* [node id] */
} NodeIndex;

static void node_index_free(NodeIndex *index)
{
    free(index->slots);
    free(index->order);
    free(index->blocked_nanos);
}

/* The node's slot, added when absent and `add` (and there is room); else NULL. */
static NodeSlot *node_index_slot(NodeIndex *index, const PlanNode *node, bool add)
{
    size_t at = (size_t)(((uintptr_t)node >> 4) * 0x9E3779B97F4A7C15ull) & index->mask;
    while (index->slots[at].node && index->slots[at].node != node)
        at = (at + 1) & index->mask;
    if (index->slots[at].node)
        return &index->slots[at];
    if (!add || (index->used + 1) * 2 > index->mask + 1)
        return NULL;
    index->used++;
    index->slots[at] = (NodeSlot){.node = node, .has_watermark = -1};
    return &index->slots[at];
}

/* Builds the index; false when out of memory. */
static bool node_index_build(const Job *job, NodeIndex *index)
{
    memset(index, 0, sizeof *index);
    size_t capacity = 64;
    while (capacity < (size_t)job->operator_count * 4) /* room for the nodes below them too */
        capacity *= 2;
    index->slots = calloc(capacity, sizeof *index->slots);
    index->mask = capacity - 1;
    index->order = malloc((job->operator_count + 1) * sizeof *index->order);
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const PlanNode *node = job->operators[i].node;
        if (node && node->id > index->max_id)
            index->max_id = node->id;
    }
    for (uint32_t c = 0; c < job->channel_count; c++)
        if (job->channels[c]->plan_node_id > index->max_id)
            index->max_id = job->channels[c]->plan_node_id;
    index->blocked_nanos = calloc((size_t)index->max_id + 1, sizeof *index->blocked_nanos);
    if (!index->slots || !index->order || !index->blocked_nanos) {
        node_index_free(index);
        return false;
    }
    for (uint32_t i = 0; i < job->operator_count; i++)
        if (job->operators[i].node)
            node_index_slot(index, job->operators[i].node, true)->count++;
    /* each node's operators get a run of order[], in the order of its first operator */
    uint32_t next = 0;
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const PlanNode *node = job->operators[i].node;
        NodeSlot *slot = node ? node_index_slot(index, node, false) : NULL;
        if (!slot)
            continue;
        if (slot->placed == 0) {
            slot->first = next;
            next += slot->count;
        }
        index->order[slot->first + slot->placed++] = i;
    }
    for (uint32_t c = 0; c < job->channel_count; c++) {
        int id = job->channels[c]->plan_node_id;
        if (id >= 0)
            index->blocked_nanos[id] += job->channels[c]->metrics.blocked_nanos;
    }
    return true;
}

/*
 * True when watermarks reach the node: it or something below it generates
 * them. Remembered per node, so each subtree is walked once; the walk is as
 * deep as the plan, which the parser's depth bound keeps small.
 */
static bool job_node_has_watermark(NodeIndex *index, const PlanNode *node)
{
    NodeSlot *slot = node_index_slot(index, node, true);
    if (slot && slot->has_watermark >= 0)
        return slot->has_watermark == 1;
    bool result = plan_node_generates_watermarks(node);
    for (uint32_t i = 0; i < node->input_count && !result; i++)
        result = job_node_has_watermark(index, node->inputs[i]);
    /* the input's insertion may not move this slot: open addressing without resizing */
    if (slot)
        slot->has_watermark = result ? 1 : 0;
    return result;
}

/*
 * The watermark line of a node: the lowest over its subtasks ("none" while
 * one has none), as a TIMESTAMP(3), and whether its subtasks are idle.
 */
static void job_format_watermark(Operator *const *subtasks, uint32_t subtask_count, StrBuf *out)
{
    int64_t lowest = INT64_MAX;
    uint32_t idle = 0;
    for (uint32_t j = 0; j < subtask_count; j++) {
        const Operator *op = subtasks[j];
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
    if (idle && idle == subtask_count)
        strbuf_append_cstr(&text, ", idle");
    else if (idle)
        strbuf_printf(&text, ", idle in %u of %u subtasks", idle, subtask_count);
    strbuf_printf(out, "%-4s   watermark %s\n", "", strbuf_cstr(&text));
    strbuf_free(&text);
}

void job_format_metrics(Job *job, StrBuf *out)
{
    strbuf_printf(out, "%-4s %-22s %8s %12s %12s %10s %10s %12s %10s %12s\n", "id", "operator",
                  "subtasks", "rows in", "rows out", "state rows", "state keys", "state bytes",
                  "busy ms", "backpressure");
    NodeIndex index;
    Operator **subtasks = calloc(job->operator_count + 1, sizeof *subtasks);
    if (!subtasks || !node_index_build(job, &index)) {
        free(subtasks);
        strbuf_append_cstr(out, "(out of memory)\n");
        return;
    }
    /* one line per plan node, summed over its subtasks, in build order */
    for (uint32_t i = 0; i < job->operator_count; i++) {
        const PlanNode *node = job->operators[i].node;
        uint32_t count = 0;
        NodeSlot *slot = node ? node_index_slot(&index, node, false) : NULL;
        if (slot) {
            /* a node's line comes at its first operator */
            if (index.order[slot->first] != i)
                continue;
            for (uint32_t k = 0; k < slot->count; k++)
                subtasks[count++] = job->operators[index.order[slot->first + k]].op;
        } else {
            subtasks[count++] = job->operators[i].op;
        }
        OperatorMetrics total = {0};
        for (uint32_t j = 0; j < count; j++) {
            Operator *op = subtasks[j];
            if (op->vtable->report_state)
                op->vtable->report_state(op);
            total.rows_in += op->metrics.rows_in;
            total.rows_out += op->metrics.rows_out;
            total.state_rows += op->metrics.state_rows;
            total.state_keys += op->metrics.state_keys;
            total.state_bytes += op->metrics.state_bytes;
            total.busy_nanos += op->metrics.busy_nanos;
        }
        const char *name = node ? plan_kind_name(node->kind) : "Collect";
        /* backpressure: time its subtasks waited for room downstream (threaded jobs) */
        uint64_t blocked = node && node->id >= 0 ? index.blocked_nanos[node->id] : 0;
        char backpressure[32];
        snprintf(backpressure, sizeof backpressure, "%.1f ms", (double)blocked / 1e6);
        strbuf_printf(out, "%-4d %-22s %8u %12llu %12llu %10llu %10llu %12llu %10.1f %12s\n",
                      node ? node->id : 0, name, count, (unsigned long long)total.rows_in,
                      (unsigned long long)total.rows_out, (unsigned long long)total.state_rows,
                      (unsigned long long)total.state_keys, (unsigned long long)total.state_bytes,
                      (double)total.busy_nanos / 1e6, job->threaded ? backpressure : "-");
        if (node && job_kinds[node->kind].format_metrics)
            job_kinds[node->kind].format_metrics(node, subtasks, count, out);
        if (node && job_node_has_watermark(&index, node))
            job_format_watermark(subtasks, count, out);
    }
    node_index_free(&index);
    free(subtasks);
    job_checkpoints_format(job, out);
}
