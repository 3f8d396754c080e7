/*
 * explain.c - EXPLAIN in Flink's shape: "== Abstract Syntax Tree ==" (the
 * logical plan as bound), "== Optimized Physical Plan ==" (prefix
 * expressions) and "== Optimized Execution Plan ==" (infix expressions).
 *
 * One printer per node kind, its descriptor's explain hook (nodes/); the
 * tree drawing (":- ", "+- ", ":  ", "   "), changelog modes and costs are
 * shared, here. Output is deterministic:
 * no pointers, no hash order. joinery adds stateTtl=[...] to every stateful
 * node of the physical and execution plans. JSON_EXECUTION_PLAN appends
 * "== Physical Execution Plan ==", the operator graph as Flink's JSON
 * generator prints it (numbered from 1 in input order, so it repeats).
 * joinery's FORMAT DOT prints the physical plan as a Graphviz graph instead.
 */
#include <stdio.h>
#include <string.h>

#include "engine/base/duration.h"
#include "engine/plan/advice.h"
#include "engine/plan/nodes/nodes.h"

/* ---------------------------------------------------------------- helpers of the printers */

const char *const *explain_input_names(ExplainContext *context, const PlanNode *node)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < node->input_count; i++)
        count += node->inputs[i]->field_count;
    if (context->logical) {
        const char **names = arena_calloc(context->arena, count + 1, sizeof(char *));
        for (uint32_t i = 0; names && i < count; i++)
            names[i] = arena_printf(context->arena, "$%u", i);
        return names;
    }
    if (node->input_count == 0)
        return plan_field_names(context->arena, node);
    return plan_field_names(context->arena, node->inputs[0]);
}

void explain_expr(ExplainContext *context, const Expr *expr, const char *const *names)
{
    expr_print(expr, names, context->style, context->out);
}

void explain_field_list(ExplainContext *context, const PlanNode *node)
{
    for (uint32_t i = 0; i < node->field_count; i++)
        strbuf_printf(context->out, "%s%s", i ? ", " : "", node->fields[i].name);
}

const char *explain_ttl_text(int64_t millis, char *buffer, size_t size)
{
    return millis == 0 ? "forever" : duration_format(millis, buffer, size);
}

void explain_ttl(ExplainContext *context, int64_t left_millis, int64_t right_millis)
{
    char left[32], right[32];
    const char *left_text = explain_ttl_text(left_millis, left, sizeof left);
    if (right_millis != left_millis)
        strbuf_printf(context->out, ", stateTtl=[left=%s, right=%s]", left_text,
                      explain_ttl_text(right_millis, right, sizeof right));
    else
        strbuf_printf(context->out, ", stateTtl=[%s]", left_text);
}

/* ---------------------------------------------------------------- the tree */

static void explain_changelog_mode(ExplainContext *context, const PlanNode *node)
{
    static const char *const names[] = {"I", "UB", "UA", "D"};
    strbuf_append_cstr(context->out, ", changelogMode=[");
    bool first = true;
    for (int bit = 0; bit < 4; bit++)
        if (node->changelog_mode & (1u << bit)) {
            strbuf_printf(context->out, "%s%s", first ? "" : ",", names[bit]);
            first = false;
        }
    if (first)
        strbuf_append_cstr(context->out, "NONE");
    strbuf_append_cstr(context->out, "]");
}

static void format_estimate(double value, char *buffer, size_t size)
{
    /* Java's Double.toString for the magnitudes plans show */
    if (value >= 1e7 || (value > 0 && value < 1e-3)) {
        int exponent = 0;
        double mantissa = value;
        while (mantissa >= 10) {
            mantissa /= 10;
            exponent++;
        }
        while (mantissa < 1) {
            mantissa *= 10;
            exponent--;
        }
        snprintf(buffer, size, "%.10gE%d", mantissa, exponent);
        if (!strchr(buffer, '.')) {
            char *e = strchr(buffer, 'E');
            char tail[16];
            snprintf(tail, sizeof tail, "%s", e);
            snprintf(e, size - (size_t)(e - buffer), ".0%s", tail);
        }
    } else {
        snprintf(buffer, size, "%.1f", value);
    }
}

static double explain_cumulative_rows(const PlanNode *node)
{
    double total = node->row_count < 0 ? 0 : node->row_count;
    for (uint32_t i = 0; i < node->input_count; i++)
        total += explain_cumulative_rows(node->inputs[i]);
    return total;
}

static void explain_cost(ExplainContext *context, const PlanNode *node)
{
    char rows[32], cumulative[32], memory[32], network[32];
    double row_count = node->row_count < 0 ? 1e8 : node->row_count;
    format_estimate(row_count, rows, sizeof rows);
    double total = explain_cumulative_rows(node);
    format_estimate(total, cumulative, sizeof cumulative);
    double width = 8.0 * node->field_count + 8;
    const PlanKindInfo *info = plan_kind_info(node->kind);
    format_estimate(info->stateful ? row_count * width : 0, memory, sizeof memory);
    format_estimate(info->shuffles ? row_count * width : 0, network, sizeof network);
    strbuf_printf(context->out,
                  ": rowcount = %s, cumulative cost = {%s rows, %s cpu, 0.0 io, %s network, %s "
                  "memory}",
                  rows, cumulative, cumulative, network, memory);
}

/* One node's line without the tree drawing: "Name(attributes)" plus details. */
static void explain_node(ExplainContext *context, const PlanNode *node)
{
    StrBuf *out = context->out;
    const PlanKindInfo *info = plan_kind_info(node->kind);
    bool physical_section = !context->logical && context->style == EXPR_STYLE_PREFIX;
    const char *name = info->display_name ? info->display_name(node) : NULL;
    if (!name)
        name = physical_section && info->physical_plan_name ? info->physical_plan_name : info->name;
    strbuf_printf(out, "%s(", name);
    size_t attributes_start = out->length;
    if (!context->logical && context->style == EXPR_STYLE_PREFIX) {
        /* advice=[1, 2] first, as Flink marks the nodes advice is about */
        bool first = true;
        for (uint32_t i = 0; i < context->advice_count; i++) {
            if (context->advice[i].node != node)
                continue;
            strbuf_printf(out, "%s%u", first ? "advice=[" : ", ", i + 1);
            first = false;
        }
        if (!first)
            strbuf_append_cstr(out, "], ");
    }
    info->explain(context, node);
    if (!context->logical && (context->details & AST_EXPLAIN_CHANGELOG_MODE) &&
        context->style == EXPR_STYLE_PREFIX)
        explain_changelog_mode(context, node);
    if (out->length == attributes_start && (!context->logical || info->display_name)) {
        /* a physical node without attributes prints its bare name (DropUpdateBefore), as
           a logical one named by its part (Uncollect) */
        out->length--;
        out->data[out->length] = '\0';
    } else {
        strbuf_append_cstr(out, ")");
    }
    if (!context->logical && (context->details & AST_EXPLAIN_ESTIMATED_COST) &&
        context->style == EXPR_STYLE_PREFIX)
        explain_cost(context, node);
}

static void explain_tree(ExplainContext *context, const PlanNode *node, StrBuf *prefix,
                         bool is_root, bool is_last)
{
    StrBuf *out = context->out;
    if (!is_root) {
        strbuf_append(out, prefix->data ? prefix->data : "", prefix->length);
        strbuf_append_cstr(out, is_last ? "+- " : ":- ");
    }
    explain_node(context, node);
    strbuf_append_char(out, '\n');
    size_t saved = prefix->length;
    if (!is_root)
        strbuf_append_cstr(prefix, is_last ? "   " : ":  ");
    for (uint32_t i = 0; i < node->input_count; i++)
        explain_tree(context, node->inputs[i], prefix, false, i + 1 == node->input_count);
    prefix->length = saved;
    if (prefix->data)
        prefix->data[saved] = '\0';
}

static void explain_section(ExplainContext *context, const char *title, const PlanNode *node)
{
    StrBuf prefix = STRBUF_INIT;
    strbuf_printf(context->out, "== %s ==\n", title);
    explain_tree(context, node, &prefix, true, true);
    strbuf_free(&prefix);
}

/* ---------------------------------------------------- statement sets: reused sub-plans */

/*
 * What the execution plan of a statement set marks on its nodes (Flink's
 * ExecNodePlanDumper): a node reached from more than one parent is reused;
 * reuse ids count from 1 in the order the walk from the sinks reaches such
 * a node the second time. Keyed by the node's address (open addressing).
 */
typedef struct ReuseMark {
    const PlanNode *node; /* NULL: empty */
    int reuse_id;         /* 0: not reused */
    bool printed;         /* its own lines were printed: later it is Reused(reference_id=[n]) */
} ReuseMark;

typedef struct ReuseMarks {
    ReuseMark *marks;
    size_t mask;
    int next_id;
} ReuseMarks;

static ReuseMark *reuse_mark(ReuseMarks *marks, const PlanNode *node, bool *added)
{
    size_t at = (size_t)(((uintptr_t)node >> 4) * 0x9E3779B97F4A7C15ull) & marks->mask;
    while (marks->marks[at].node && marks->marks[at].node != node)
        at = (at + 1) & marks->mask;
    *added = marks->marks[at].node == NULL;
    marks->marks[at].node = node;
    return &marks->marks[at];
}

/* Assigns the reuse ids below `node` (the table has room for every node of the plan). */
static void reuse_mark_walk(ReuseMarks *marks, const PlanNode *node)
{
    bool added = false;
    ReuseMark *mark = reuse_mark(marks, node, &added);
    if (!added) {
        if (mark->reuse_id == 0)
            mark->reuse_id = ++marks->next_id;
        return;
    }
    for (uint32_t i = 0; i < node->input_count; i++)
        reuse_mark_walk(marks, node->inputs[i]);
}

/* explain_tree with the marks: a reused node prints once with (reuse_id=[n]), after that
   as Reused(reference_id=[n]) without its inputs. */
static void explain_tree_reused(ExplainContext *context, ReuseMarks *marks, const PlanNode *node,
                                StrBuf *prefix, bool is_root, bool is_last)
{
    StrBuf *out = context->out;
    if (!is_root) {
        strbuf_append(out, prefix->data ? prefix->data : "", prefix->length);
        strbuf_append_cstr(out, is_last ? "+- " : ":- ");
    }
    bool added = false;
    ReuseMark *mark = reuse_mark(marks, node, &added);
    if (mark->reuse_id && mark->printed) {
        strbuf_printf(out, "Reused(reference_id=[%d])\n", mark->reuse_id);
        return;
    }
    explain_node(context, node);
    if (mark->reuse_id) {
        strbuf_printf(out, "(reuse_id=[%d])", mark->reuse_id);
        mark->printed = true;
    }
    strbuf_append_char(out, '\n');
    size_t saved = prefix->length;
    if (!is_root)
        strbuf_append_cstr(prefix, is_last ? "   " : ":  ");
    for (uint32_t i = 0; i < node->input_count; i++)
        explain_tree_reused(context, marks, node->inputs[i], prefix, false,
                            i + 1 == node->input_count);
    prefix->length = saved;
    if (prefix->data)
        prefix->data[saved] = '\0';
}

/* The blocks of a DAG of several sinks, in post order: each reused node's tree once, then
   each sink's, blank lines between; `seen` marks what the walk reached. */
static void explain_dag_blocks(ExplainContext *context, ReuseMarks *marks, ReuseMarks *seen,
                               const PlanNode *node, bool is_sink, bool *first)
{
    bool added = false;
    reuse_mark(seen, node, &added);
    if (!added)
        return;
    for (uint32_t i = 0; i < node->input_count; i++)
        explain_dag_blocks(context, marks, seen, node->inputs[i], false, first);
    ReuseMark *mark = reuse_mark(marks, node, &added);
    if (!is_sink && !mark->reuse_id)
        return;
    if (!*first)
        strbuf_append_char(context->out, '\n');
    *first = false;
    StrBuf prefix = STRBUF_INIT;
    explain_tree_reused(context, marks, node, &prefix, true, true);
    strbuf_free(&prefix);
}

int plan_explain_statement_set_plans(PlannerContext *context, PlanNode *const *logical,
                                     const PlanNode *set, unsigned details, StrBuf *out)
{
    if (details &
        (AST_EXPLAIN_PLAN_ADVICE | AST_EXPLAIN_JSON_EXECUTION_PLAN | AST_EXPLAIN_FORMAT_DOT))
        return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                          "EXPLAIN %s of a statement set is not supported yet; it takes "
                          "CHANGELOG_MODE and ESTIMATED_COST",
                          details & AST_EXPLAIN_PLAN_ADVICE           ? "PLAN_ADVICE"
                          : details & AST_EXPLAIN_JSON_EXECUTION_PLAN ? "JSON_EXECUTION_PLAN"
                                                                      : "FORMAT DOT");
    ExplainContext explain = {context->arena, out, EXPR_STYLE_PREFIX, true, details, NULL, 0};
    StrBuf prefix = STRBUF_INIT;
    strbuf_append_cstr(out, "== Abstract Syntax Tree ==\n");
    for (uint32_t i = 0; i < set->input_count; i++) {
        if (i)
            strbuf_append_char(out, '\n');
        explain_tree(&explain, logical[i], &prefix, true, true);
    }
    strbuf_append_cstr(out, "\n== Optimized Physical Plan ==\n");
    explain.logical = false;
    for (uint32_t i = 0; i < set->input_count; i++) {
        if (i)
            strbuf_append_char(out, '\n');
        explain_tree(&explain, set->inputs[i], &prefix, true, true);
    }
    strbuf_free(&prefix);
    strbuf_append_char(out, '\n');
    return JOINERY_OK;
}

int plan_explain_statement_set_execution(PlannerContext *context, const PlanNode *set,
                                         unsigned details, StrBuf *out)
{
    ExplainContext explain = {context->arena, out, EXPR_STYLE_INFIX, false, details, NULL, 0};
    strbuf_append_cstr(out, "== Optimized Execution Plan ==\n");
    /* every node of the plan took an id from the planner: room for all of them */
    size_t nodes = (size_t)context->next_node_id + (size_t)set->input_count + 16;
    size_t capacity = 16;
    while (capacity < nodes * 2)
        capacity *= 2;
    ReuseMarks marks = {arena_calloc(context->arena, capacity, sizeof(ReuseMark)), capacity - 1, 0};
    ReuseMarks seen = {arena_calloc(context->arena, capacity, sizeof(ReuseMark)), capacity - 1, 0};
    if (!marks.marks || !seen.marks)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t i = 0; i < set->input_count; i++)
        reuse_mark_walk(&marks, set->inputs[i]);
    if (set->input_count == 1) {
        /* one sink: Flink's tree form, a reused node printed where it is first reached */
        StrBuf tree_prefix = STRBUF_INIT;
        explain_tree_reused(&explain, &marks, set->inputs[0], &tree_prefix, true, true);
        strbuf_free(&tree_prefix);
        return JOINERY_OK;
    }
    bool first = true;
    for (uint32_t i = 0; i < set->input_count; i++)
        explain_dag_blocks(&explain, &marks, &seen, set->inputs[i], true, &first);
    return JOINERY_OK;
}

/* ------------------------------------------- JSON_EXECUTION_PLAN: the job graph as JSON */

enum { EXPLAIN_JSON_MAX_DEPTH = 1000 };

/*
 * The plan's nodes numbered as Flink numbers transformations: inputs before
 * the node, in input order, from 1; an Exchange takes a number too but is no
 * node of the graph (it becomes the ship strategy of the edge through it).
 */
typedef struct JsonPlanNode {
    const PlanNode *node;
    int id;
    int parallelism; /* as job_build.c gives subtasks */
} JsonPlanNode;

typedef struct JsonPlan {
    JsonPlanNode *nodes;
    uint32_t count;
    uint32_t capacity;
    Arena *arena;
    int default_parallelism;
} JsonPlan;

static const JsonPlanNode *json_plan_find(const JsonPlan *plan, const PlanNode *node)
{
    for (uint32_t i = 0; i < plan->count; i++)
        if (plan->nodes[i].node == node)
            return &plan->nodes[i];
    return NULL;
}

/* Subtasks of a node, mirroring job_build.c: scans get the default parallelism, keyed
   nodes that of their exchange, Values and sinks one, others their inputs' most. */
static int json_plan_parallelism(const JsonPlan *plan, const PlanNode *node)
{
    switch (node->kind) {
    case PLAN_TABLE_SOURCE_SCAN:
        return plan->default_parallelism;
    case PLAN_VALUES:
    case PLAN_SINK:
        return 1;
    default:
        break;
    }
    if (plan_node_is_stateful(node)) {
        const PlanNode *exchange = node->input_count ? node->inputs[0] : NULL;
        if (exchange && exchange->kind == PLAN_EXCHANGE &&
            exchange->exchange.distribution == PLAN_DISTRIBUTION_SINGLE)
            return 1;
        return plan->default_parallelism;
    }
    int count = 1;
    for (uint32_t i = 0; i < node->input_count; i++) {
        const JsonPlanNode *input = json_plan_find(plan, node->inputs[i]);
        if (input && node->inputs[i]->kind != PLAN_EXCHANGE && input->parallelism > count)
            count = input->parallelism;
    }
    return count;
}

static int json_plan_number(JsonPlan *plan, const PlanNode *node, int depth, Diag *diag)
{
    if (depth > EXPLAIN_JSON_MAX_DEPTH)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "the plan nests too deeply to explain");
    if (json_plan_find(plan, node))
        return JOINERY_OK;
    for (uint32_t i = 0; i < node->input_count; i++) {
        int status = json_plan_number(plan, node->inputs[i], depth + 1, diag);
        if (status != JOINERY_OK)
            return status;
    }
    if (plan->count == plan->capacity) {
        uint32_t capacity = plan->capacity ? plan->capacity * 2 : 16;
        JsonPlanNode *grown = arena_calloc(plan->arena, capacity, sizeof *grown);
        if (!grown)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        if (plan->count)
            memcpy(grown, plan->nodes, plan->count * sizeof *grown);
        plan->nodes = grown;
        plan->capacity = capacity;
    }
    JsonPlanNode *entry = &plan->nodes[plan->count];
    entry->node = node;
    entry->id = (int)plan->count + 1;
    entry->parallelism = json_plan_parallelism(plan, node);
    plan->count++;
    return JOINERY_OK;
}

/* text as a JSON string body: '"', '\\' and control characters escaped. */
static void json_plan_string(StrBuf *out, const char *text, size_t length)
{
    strbuf_append_char(out, '"');
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            strbuf_printf(out, "\\%c", c);
        else if (c == '\n')
            strbuf_append_cstr(out, "\\n");
        else if (c < 0x20)
            strbuf_printf(out, "\\u%04x", c);
        else
            strbuf_append_char(out, (char)c);
    }
    strbuf_append_char(out, '"');
}

/* The node an edge really starts at (through Exchanges) and its ship strategy. */
static const PlanNode *json_plan_edge(const PlanNode *input, const char **strategy)
{
    *strategy = "FORWARD";
    while (input->kind == PLAN_EXCHANGE && input->input_count == 1) {
        *strategy = input->exchange.distribution == PLAN_DISTRIBUTION_SINGLE ? "GLOBAL" : "HASH";
        input = input->inputs[0];
    }
    return input;
}

/*
 * "== Physical Execution Plan ==": Flink's JSON of the stream graph, one
 * entry per operator (Exchanges become the HASH / GLOBAL ship strategy of
 * their edge), pretty-printed as Flink's JSON generator does.
 */
static int explain_json_execution_plan(ExplainContext *context, PlannerContext *planner,
                                       const PlanNode *physical)
{
    JsonPlan plan = {
        NULL, 0, 0, context->arena,
        planner->config && planner->config->parallelism > 0 ? planner->config->parallelism : 1};
    int status = json_plan_number(&plan, physical, 0, planner->diag);
    if (status != JOINERY_OK)
        return status;
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "== Physical Execution Plan ==\n{\n  \"nodes\" : [ ");
    StrBuf line = STRBUF_INIT;
    StrBuf *saved = context->out;
    bool first = true;
    for (uint32_t i = 0; i < plan.count; i++) {
        const JsonPlanNode *entry = &plan.nodes[i];
        const PlanNode *node = entry->node;
        if (node->kind == PLAN_EXCHANGE)
            continue;
        const PlanKindInfo *info = plan_kind_info(node->kind);
        const char *pact = "Operator";
        StrBuf type = STRBUF_INIT;
        if (node->kind == PLAN_TABLE_SOURCE_SCAN) {
            pact = "Data Source";
            strbuf_printf(&type, "Source: %s[%d]", node->scan.table->name, entry->id);
        } else if (node->kind == PLAN_SINK) {
            pact = "Data Sink";
            strbuf_printf(&type, "Sink: %s[%d]",
                          node->sink.table ? node->sink.table->name : "Collect table sink",
                          entry->id);
        } else {
            strbuf_printf(&type, "%s[%d]", info->name, entry->id);
        }
        line.length = 0;
        if (line.data)
            line.data[0] = '\0';
        strbuf_printf(&line, "[%d]:", entry->id);
        context->out = &line;
        explain_node(context, node);
        context->out = saved;
        strbuf_append_cstr(out, first ? "{\n" : ", {\n");
        first = false;
        strbuf_printf(out, "    \"id\" : %d,\n    \"type\" : ", entry->id);
        json_plan_string(out, strbuf_cstr(&type), type.length);
        strbuf_printf(out, ",\n    \"pact\" : \"%s\",\n    \"contents\" : ", pact);
        json_plan_string(out, strbuf_cstr(&line), line.length);
        strbuf_printf(out, ",\n    \"parallelism\" : %d", entry->parallelism);
        if (node->input_count) {
            strbuf_append_cstr(out, ",\n    \"predecessors\" : [ ");
            for (uint32_t k = 0; k < node->input_count; k++) {
                const char *strategy;
                const PlanNode *from = json_plan_edge(node->inputs[k], &strategy);
                const JsonPlanNode *source = json_plan_find(&plan, from);
                strbuf_printf(out,
                              "%s{\n      \"id\" : %d,\n      \"ship_strategy\" : \"%s\",\n"
                              "      \"side\" : \"%s\"\n    }",
                              k ? ", " : "", source ? source->id : 0, strategy,
                              node->input_count > 1 && k == 0 ? "first" : "second");
            }
            strbuf_append_cstr(out, " ]");
        }
        strbuf_append_cstr(out, "\n  }");
        strbuf_free(&type);
    }
    strbuf_free(&line);
    strbuf_append_cstr(out, " ]\n}\n");
    return JOINERY_OK;
}

/* ------------------------------------------------------ FORMAT DOT: the plan as a graph */

/* text in a DOT label: '"' and '\\' escaped, a new left-justified line at ", " past `wrap`. */
static void dot_label_text(StrBuf *out, const char *text, size_t wrap)
{
    size_t column = 0;
    int depth = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '[' || *p == '(')
            depth++;
        else if ((*p == ']' || *p == ')') && depth > 0)
            depth--;
        if (*p == ',' && p[1] == ' ' && depth <= 1 && column >= wrap) {
            strbuf_append_cstr(out, ",\\l  ");
            p++;
            column = 2;
            continue;
        }
        if (*p == '"' || *p == '\\')
            strbuf_append_char(out, '\\');
        strbuf_append_char(out, *p);
        column++;
    }
    strbuf_append_cstr(out, "\\l");
}

/*
 * EXPLAIN FORMAT DOT: the physical plan as a Graphviz digraph, inputs below
 * their consumers; one box per operator with its physical-plan line, and for
 * stateful operators their state TTL and estimated state (rows and bytes, as
 * ESTIMATED_COST's memory); Exchanges are the edges they stand on, labelled
 * with their distribution. Numbered as JSON_EXECUTION_PLAN numbers them.
 */
static int explain_dot(ExplainContext *context, PlannerContext *planner, const PlanNode *physical)
{
    JsonPlan plan = {NULL, 0, 0, context->arena, 1};
    int status = json_plan_number(&plan, physical, 0, planner->diag);
    if (status != JOINERY_OK)
        return status;
    StrBuf *out = context->out;
    strbuf_append_cstr(out, "digraph plan {\n  rankdir=BT;\n"
                            "  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
                            "  edge [fontname=\"monospace\", fontsize=9];\n");
    StrBuf line = STRBUF_INIT;
    StrBuf *saved = context->out;
    for (uint32_t i = 0; i < plan.count; i++) {
        const PlanNode *node = plan.nodes[i].node;
        if (node->kind == PLAN_EXCHANGE)
            continue;
        line.length = 0;
        if (line.data)
            line.data[0] = '\0';
        context->out = &line;
        explain_node(context, node);
        context->out = saved;
        strbuf_printf(out, "  n%d [label=\"", plan.nodes[i].id);
        dot_label_text(out, strbuf_cstr(&line), 48);
        const PlanKindInfo *info = plan_kind_info(node->kind);
        if (info->stateful) {
            char left[32], right[32];
            const char *left_text = explain_ttl_text(node->state_ttl_millis, left, sizeof left);
            if (node->input_count == 2 && node->state_ttl_right_millis != node->state_ttl_millis)
                strbuf_printf(out, "state TTL: left %s, right %s\\l", left_text,
                              explain_ttl_text(node->state_ttl_right_millis, right, sizeof right));
            else
                strbuf_printf(out, "state TTL: %s\\l", left_text);
            /* a join keeps its inputs' rows, an aggregate one row per group */
            double rows = 0, bytes = 0;
            bool keeps_inputs = node->kind == PLAN_JOIN || node->kind == PLAN_MULTI_JOIN;
            for (uint32_t k = 0; k < (keeps_inputs ? node->input_count : 1); k++) {
                const PlanNode *kept = keeps_inputs ? node->inputs[k] : node;
                double count = kept->row_count < 0 ? 1e8 : kept->row_count;
                rows += count;
                bytes += count * (8.0 * kept->field_count + 8);
            }
            if (bytes < 10240)
                strbuf_printf(out, "estimated state: %.0f rows, %.0f B\\l", rows, bytes);
            else if (bytes < 10.0 * 1024 * 1024)
                strbuf_printf(out, "estimated state: %.0f rows, %.1f KiB\\l", rows, bytes / 1024.0);
            else
                strbuf_printf(out, "estimated state: %.0f rows, %.1f MiB\\l", rows,
                              bytes / (1024.0 * 1024.0));
        }
        strbuf_printf(out, "\"%s];\n", info->stateful ? ", style=bold" : "");
    }
    strbuf_free(&line);
    for (uint32_t i = 0; i < plan.count; i++) {
        const PlanNode *node = plan.nodes[i].node;
        if (node->kind == PLAN_EXCHANGE)
            continue;
        for (uint32_t k = 0; k < node->input_count; k++) {
            const PlanNode *input = node->inputs[k];
            const char *label = NULL;
            StrBuf edge = STRBUF_INIT;
            while (input->kind == PLAN_EXCHANGE && input->input_count == 1) {
                edge.length = 0;
                context->out = &edge;
                const PlanKindInfo *info = plan_kind_info(input->kind);
                info->explain(context, input);
                context->out = saved;
                label = strbuf_cstr(&edge);
                input = input->inputs[0];
            }
            const JsonPlanNode *from = json_plan_find(&plan, input);
            strbuf_printf(out, "  n%d -> n%d", from ? from->id : 0, plan.nodes[i].id);
            if (label) {
                strbuf_append_cstr(out, " [label=\"Exchange\\n");
                for (const char *p = label; *p; p++) {
                    if (*p == '"' || *p == '\\')
                        strbuf_append_char(out, '\\');
                    strbuf_append_char(out, *p);
                }
                strbuf_append_cstr(out, "\", style=dashed]");
            }
            strbuf_append_cstr(out, ";\n");
            strbuf_free(&edge);
        }
    }
    strbuf_append_cstr(out, "}\n");
    return JOINERY_OK;
}

int plan_explain(PlannerContext *context, const PlanNode *logical, const PlanNode *physical,
                 unsigned details, StrBuf *out)
{
    if (details & AST_EXPLAIN_FORMAT_DOT) {
        if (details & (AST_EXPLAIN_JSON_EXECUTION_PLAN | AST_EXPLAIN_PLAN_ADVICE))
            return diag_error(context->diag, JOINERY_ERROR_UNSUPPORTED,
                              "FORMAT DOT with %s is not supported yet; EXPLAIN FORMAT DOT takes "
                              "CHANGELOG_MODE and ESTIMATED_COST",
                              details & AST_EXPLAIN_PLAN_ADVICE ? "PLAN_ADVICE"
                                                                : "JSON_EXECUTION_PLAN");
        ExplainContext dot = {context->arena, out, EXPR_STYLE_PREFIX, false, details, NULL, 0};
        return explain_dot(&dot, context, physical);
    }
    ExplainContext explain = {context->arena, out, EXPR_STYLE_PREFIX, true, details, NULL, 0};
    explain_section(&explain, "Abstract Syntax Tree", logical);
    strbuf_append_char(out, '\n');
    explain.logical = false;
    if (details & AST_EXPLAIN_PLAN_ADVICE) {
        PlanAdvice *advice = NULL;
        uint32_t advice_count = 0;
        int status = plan_collect_advice(context, logical, physical, &advice, &advice_count);
        if (status != JOINERY_OK)
            return status;
        explain.advice = advice;
        explain.advice_count = advice_count;
        explain_section(&explain, "Optimized Physical Plan With Advice", physical);
        strbuf_append_char(out, '\n');
        for (uint32_t i = 0; i < advice_count; i++)
            strbuf_printf(out, "advice[%u]: [%s] %s\n", i + 1,
                          advice[i].level == PLAN_ADVICE_WARNING ? "WARNING" : "ADVICE",
                          advice[i].text);
        if (advice_count == 0)
            strbuf_append_cstr(out, "No available advice...\n");
        strbuf_append_char(out, '\n');
        explain.advice = NULL;
        explain.advice_count = 0;
    } else {
        explain_section(&explain, "Optimized Physical Plan", physical);
        strbuf_append_char(out, '\n');
    }
    explain.style = EXPR_STYLE_INFIX;
    explain_section(&explain, "Optimized Execution Plan", physical);
    if (details & AST_EXPLAIN_JSON_EXECUTION_PLAN) {
        strbuf_append_char(out, '\n');
        return explain_json_execution_plan(&explain, context, physical);
    }
    return JOINERY_OK;
}
