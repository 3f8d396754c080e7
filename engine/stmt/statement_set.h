/*
 * statement_set.h - Flink's statement sets (statement_set.c): EXECUTE
 * STATEMENT SET BEGIN INSERT ...; ... END, the SQL client's BEGIN STATEMENT
 * SET; ... END; (the session collects the INSERTs), and EXPLAIN [PLAN FOR]
 * STATEMENT SET BEGIN ... END. The INSERTs run as one job with several
 * sinks, the sub-plans they share reused (rules/reuse_sub_plans.c), in the
 * foreground or the background (table.dml-sync) like an INSERT.
 *
 * Messages are Flink's SQL client's: "Begin a statement set.", "Add SQL
 * update statement to the statement set.", "No statement in the statement
 * set, skip submit.", and the errors "Only INSERT statement is allowed in
 * Statement Set." and "No Statement Set to submit, ...".
 */
#ifndef JOINERY_STMT_STATEMENT_SET_H
#define JOINERY_STMT_STATEMENT_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/sql/ast.h"

struct StatementContext;

/* The INSERTs a BEGIN STATEMENT SET collects: their source text (heap), until END. */
typedef struct SessionStatementSet {
    bool active; /* between BEGIN STATEMENT SET and END */
    char **texts;
    size_t *lengths;
    int *lines;
    int *columns;
    size_t count;
    size_t capacity;
} SessionStatementSet;

/*
 * While a set is being collected: whether `statement` may come (an INSERT,
 * END, or QUIT to leave); else JOINERY_ERROR_VALIDATE with Flink's message
 * at the statement. JOINERY_OK otherwise.
 */
int statement_set_check(struct StatementContext *context, const AstStatement *statement);
/* BEGIN STATEMENT SET: starts collecting. */
int statement_set_begin(struct StatementContext *context);
/*
 * An INSERT while collecting: validated (bound as it will run), then its text
 * (`text`, `length`, starting at script position line:column) is kept.
 */
int statement_set_add(struct StatementContext *context, const AstStatement *statement,
                      const char *text, size_t length, int line, int column);
/* END: runs what was collected as one job (nothing: Flink's skip message). */
int statement_set_end(struct StatementContext *context, const AstStatement *statement);
/* EXECUTE STATEMENT SET BEGIN ... END. */
int statement_set_execute(struct StatementContext *context, const AstStatement *statement);
/* EXPLAIN [details] STATEMENT SET BEGIN ... END: the plans; nothing runs. */
int statement_set_explain(struct StatementContext *context, const AstStatement *explain);
/* Frees what was collected (the session closes). */
void statement_set_free(SessionStatementSet *set);

#endif
