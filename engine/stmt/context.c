/*
 * context.c - the helpers every statement executor shares (context.h):
 * the statement's context and configs, the planner context of a statement, object-name resolution,
 * and reporting info messages and table-style results through the result handler.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/context.h"

#include <string.h>

void statement_context_init(StatementContext *context, JoinerySession *session, Arena *arena,
                            Diag *diag, const JoineryResultHandler *handler)
{
    memset(context, 0, sizeof *context);
    context->session = session;
    context->arena = arena;
    context->diag = diag;
    context->handler = handler;
    planner_config_from_options(&session->options, &context->planner_config);
    job_config_from_options(&session->options, &context->job_config);
    context->job_config.cancel_requested = &session->cancel_requested;
}

PlannerContext statement_planner_context(StatementContext *context)
{
    PlannerContext planner;
    memset(&planner, 0, sizeof planner);
    planner.arena = context->arena;
    planner.catalog = context->session->catalog;
    planner.config = &context->planner_config;
    planner.diag = context->diag;
    return planner;
}

const char *statement_object_name(StatementContext *context, const AstList *parts,
                                  SourcePosition position)
{
    if (parts->count == 1)
        return parts->items[0];
    const char *catalog_name = parts->count == 3 ? parts->items[0] : "default_catalog";
    const char *database_name = parts->items[parts->count - 2];
    if (strcmp(catalog_name, "default_catalog") != 0 ||
        strcmp(database_name, "default_database") != 0) {
        diag_error_at(context->diag, JOINERY_ERROR_UNSUPPORTED, position.line, position.column,
                      "Only default_catalog.default_database is supported; got %s.%s", catalog_name,
                      database_name);
        return NULL;
    }
    return parts->items[parts->count - 1];
}

int statement_info(StatementContext *context, const char *message)
{
    if (context->handler && context->handler->info)
        return context->handler->info(context->handler->context, message);
    return 0;
}

int statement_emit_table(StatementContext *context, const char *const *column_names,
                         size_t column_count, const char *const *cells, size_t row_count)
{
    const JoineryResultHandler *handler = context->handler;
    if (!handler)
        return JOINERY_OK;
    JoineryColumn columns[16];
    if (column_count > 16)
        column_count = 16;
    for (size_t i = 0; i < column_count; i++) {
        columns[i].name = column_names[i];
        columns[i].type_name = "STRING";
        columns[i].value_class = JOINERY_VALUE_STRING;
    }
    if (handler->begin &&
        handler->begin(handler->context, JOINERY_RESULT_TABLE, columns, column_count) != 0)
        return JOINERY_OK;
    for (size_t r = 0; r < row_count; r++)
        if (handler->row && handler->row(handler->context, JOINERY_ROW_INSERT,
                                         cells + r * column_count, column_count) != 0)
            break;
    if (handler->end)
        handler->end(handler->context, row_count, false);
    return JOINERY_OK;
}
