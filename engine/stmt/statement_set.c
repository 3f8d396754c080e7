/*
 * statement_set.c - statement sets (statement_set.h).
 *
 * Planning: every INSERT is bound and optimized with one planner context, so
 * node ids are unique across the set; then, unless
 * table.optimizer.reuse-sub-plan-enabled is off, rule_reuse_sub_plans makes
 * equal sub-plans one node (scans too unless table.optimizer.reuse-source-
 * enabled is off), and a PLAN_STATEMENT_SET over the Sinks is the job's plan
 * (job.h: one job, one sink operator writing every table). The same table
 * may be written by several INSERTs of a set, as Flink allows.
 *
 * Collecting (BEGIN STATEMENT SET ... END): each INSERT is validated when it
 * comes (bound in the statement's arena, as Flink validates it then) and
 * its text kept; END parses them again into its own statement's arena and
 * runs them, at their script positions.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/statement_set.h"

#include <stdlib.h>
#include <string.h>

#include "engine/plan/rules/rules.h"
#include "engine/sql/parser.h"
#include "engine/stmt/context.h"
#include "engine/stmt/jobs.h"
#include "engine/stmt/query.h"

/* Equal sub-plans of the set's Sinks made one (unless the options say otherwise). */
static int statement_set_reuse(StatementContext *context, PlannerContext *planner, PlanNode *set)
{
    if (!context->planner_config.reuse_sub_plan_enabled)
        return JOINERY_OK;
    return rule_reuse_sub_plans(planner, set->inputs, set->input_count,
                                context->planner_config.reuse_source_enabled);
}

/*
 * Plans the INSERTs with `planner`: *logical gets each LogicalSink (NULL: not needed),
 * *set the PLAN_STATEMENT_SET over the optimized Sinks, their sub-plans not reused yet.
 */
static int statement_set_plan(StatementContext *context, PlannerContext *planner,
                              const AstList *inserts, PlanNode ***logical, PlanNode **set)
{
    uint32_t count = (uint32_t)inserts->count;
    PlanNode *root = plan_node_new(context->arena, PLAN_STATEMENT_SET, count, 0);
    PlanNode **bound = arena_calloc(context->arena, count + 1, sizeof *bound);
    if (!root || !bound)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    root->bounded = true;
    for (uint32_t i = 0; i < count; i++) {
        const AstStatement *insert = inserts->items[i];
        planner->multi_join_hinted = false;
        int status = plan_bind_insert(planner, &insert->insert, &bound[i]);
        PlanNode *physical = NULL;
        if (status == JOINERY_OK)
            status = plan_optimize(planner, bound[i], &physical);
        if (status == JOINERY_OK)
            status = query_check_batch_insert(context, &insert->insert, physical);
        if (status != JOINERY_OK)
            return status;
        root->inputs[i] = physical;
        root->bounded = root->bounded && physical->bounded;
    }
    root->id = ++planner->next_node_id;
    root->changelog_mode = CHANGELOG_INSERT;
    if (logical)
        *logical = bound;
    *set = root;
    return JOINERY_OK;
}

/* The names of the set's tables, "a, b", for the job's record. */
static const char *statement_set_tables(StatementContext *context, const PlanNode *set)
{
    StrBuf names = STRBUF_INIT;
    for (uint32_t i = 0; i < set->input_count; i++)
        strbuf_printf(&names, "%s%s", i ? ", " : "", set->inputs[i]->sink.table->name);
    const char *result = names.data ? arena_strdup(context->arena, names.data) : "";
    strbuf_free(&names);
    return result;
}

static int statement_set_run(StatementContext *context, const AstList *inserts)
{
    PlanNode *set = NULL;
    PlannerContext planner = statement_planner_context(context);
    int status = statement_set_plan(context, &planner, inserts, NULL, &set);
    if (status == JOINERY_OK)
        status = statement_set_reuse(context, &planner, set);
    if (status != JOINERY_OK)
        return status;
    const char *tables = statement_set_tables(context, set);
    if (!tables)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    return jobs_submit_insert(context, set, tables, query_run_insert_foreground);
}

int statement_set_execute(StatementContext *context, const AstStatement *statement)
{
    return statement_set_run(context, &statement->statement_set.inserts);
}

int statement_set_explain(StatementContext *context, const AstStatement *explain)
{
    PlanNode **logical = NULL;
    PlanNode *set = NULL;
    PlannerContext planner = statement_planner_context(context);
    int status = statement_set_plan(
        context, &planner, &explain->explain.statement->statement_set.inserts, &logical, &set);
    if (status != JOINERY_OK)
        return status;
    /* the physical plans as planned, then the job's plan with its sub-plans reused (Flink
       reuses them when it translates the plan into the job's graph) */
    StrBuf out = STRBUF_INIT;
    unsigned details = explain->explain.details;
    status = plan_explain_statement_set_plans(&planner, logical, set, details, &out);
    if (status == JOINERY_OK)
        status = statement_set_reuse(context, &planner, set);
    if (status == JOINERY_OK)
        status = plan_explain_statement_set_execution(&planner, set, details, &out);
    if (status == JOINERY_OK && context->handler && context->handler->text)
        context->handler->text(context->handler->context, strbuf_cstr(&out));
    strbuf_free(&out);
    return status;
}

int statement_set_check(StatementContext *context, const AstStatement *statement)
{
    if (!context->session->statement_set.active || statement->kind == AST_STMT_INSERT ||
        statement->kind == AST_STMT_END_STATEMENT_SET || statement->kind == AST_STMT_QUIT)
        return JOINERY_OK;
    return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                         statement->position.column,
                         "Only INSERT statement is allowed in Statement Set.");
}

int statement_set_begin(StatementContext *context)
{
    context->session->statement_set.active = true;
    return statement_info(context, "Begin a statement set.");
}

int statement_set_add(StatementContext *context, const AstStatement *statement, const char *text,
                      size_t length, int line, int column)
{
    /* validated now, as Flink converts the INSERT when it is added */
    PlannerContext planner = statement_planner_context(context);
    PlanNode *bound = NULL;
    int status = plan_bind_insert(&planner, &statement->insert, &bound);
    if (status != JOINERY_OK)
        return status;
    SessionStatementSet *set = &context->session->statement_set;
    if (set->count == set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 8;
        char **texts = realloc(set->texts, capacity * sizeof *texts);
        if (texts)
            set->texts = texts;
        size_t *lengths = texts ? realloc(set->lengths, capacity * sizeof *lengths) : NULL;
        if (lengths)
            set->lengths = lengths;
        int *lines = lengths ? realloc(set->lines, capacity * sizeof *lines) : NULL;
        if (lines)
            set->lines = lines;
        int *columns = lines ? realloc(set->columns, capacity * sizeof *columns) : NULL;
        if (!columns)
            return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        set->columns = columns;
        set->capacity = capacity;
    }
    char *copy = malloc(length + 1);
    if (!copy)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    memcpy(copy, text, length);
    copy[length] = '\0';
    set->texts[set->count] = copy;
    set->lengths[set->count] = length;
    set->lines[set->count] = line;
    set->columns[set->count] = column;
    set->count++;
    return statement_info(context, "Add SQL update statement to the statement set.");
}

static void statement_set_clear(SessionStatementSet *set)
{
    for (size_t i = 0; i < set->count; i++)
        free(set->texts[i]);
    set->count = 0;
    set->active = false;
}

int statement_set_end(StatementContext *context, const AstStatement *statement)
{
    SessionStatementSet *set = &context->session->statement_set;
    if (!set->active)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "No Statement Set to submit, \"END;\" command should be used after "
                             "\"BEGIN STATEMENT SET;\".");
    if (set->count == 0) {
        statement_set_clear(set);
        return statement_info(context, "No statement in the statement set, skip submit.");
    }
    /* the INSERTs again, into this statement's arena (the set ends either way) */
    AstList inserts = {0};
    inserts.items = arena_calloc(context->arena, set->count, sizeof(void *));
    int status = inserts.items
                     ? JOINERY_OK
                     : diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < set->count && status == JOINERY_OK; i++) {
        AstStatement *insert = NULL;
        status = sql_parse_statement(set->texts[i], set->lengths[i], set->lines[i], set->columns[i],
                                     context->arena, &insert, context->diag);
        if (status == JOINERY_OK)
            inserts.items[inserts.count++] = insert;
    }
    statement_set_clear(set);
    if (status != JOINERY_OK)
        return status;
    return statement_set_run(context, &inserts);
}

void statement_set_free(SessionStatementSet *set)
{
    statement_set_clear(set);
    free(set->texts);
    free(set->lengths);
    free(set->lines);
    free(set->columns);
    memset(set, 0, sizeof *set);
}
