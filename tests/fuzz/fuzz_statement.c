/*
 * fuzz_statement.c - libFuzzer target: the statement parser, binder and
 * planner. The input is a script; each of its statements (cut by the
 * project's splitter, at most FUZZ_MAX_STATEMENTS) runs in a session holding
 * the prelude's tables (fuzz_prelude.c). Queries and INSERTs are planned
 * only, as EXPLAIN, so no job ever runs; ANALYZE (which runs one) and CREATE
 * FUNCTION (which loads a library) are parsed but not executed; everything
 * else (DDL, SET, SHOW, DESCRIBE, EXPLAIN) executes. A session a statement changed is replaced by a
 * fresh one before the next input, so inputs stay independent.
 *
 * Findings are what the sanitizers and libFuzzer see: a crash, a sanitizer
 * report, a leak, a statement slower than -timeout.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/arena.h"
#include "engine/base/diag.h"
#include "engine/sql/parser.h"
#include "engine/sql/split.h"
#include "tests/fuzz/fuzz_prelude.h"

enum { FUZZ_MAX_STATEMENTS = 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static JoinerySession *session;

/* Runs text in the session; true when the statement may have changed it. */
static bool fuzz_run_statement(const char *text, size_t length)
{
    Arena arena;
    arena_init(&arena, 0);
    Diag diag;
    diag_clear(&diag);
    AstStatement *statement = NULL;
    int status = sql_parse_statement(text, length, 1, 1, &arena, &statement, &diag);
    bool changes = false;
    const char *prefix = NULL;
    bool run = status == JOINERY_OK && statement != NULL;
    if (run) {
        switch (statement->kind) {
        case AST_STMT_QUERY:
        case AST_STMT_INSERT:
            prefix = "EXPLAIN ";
            break;
        case AST_STMT_ANALYZE:
        case AST_STMT_QUIT:
        case AST_STMT_CREATE_FUNCTION: /* would dlopen whatever path the input names */
            run = false;
            break;
        case AST_STMT_CREATE_TABLE:
        case AST_STMT_CREATE_VIEW:
        case AST_STMT_DROP:
        case AST_STMT_SET:
        case AST_STMT_RESET:
        case AST_STMT_USE:
            changes = true;
            break;
        default:
            break;
        }
    }
    arena_destroy(&arena);
    if (!run)
        return false;
    size_t prefix_length = prefix ? strlen(prefix) : 0;
    char *buffer = malloc(prefix_length + length + 1);
    if (buffer == NULL)
        return false;
    if (prefix)
        memcpy(buffer, prefix, prefix_length);
    memcpy(buffer + prefix_length, text, length);
    buffer[prefix_length + length] = '\0';
    JoineryResultHandler handler = fuzz_quiet_handler();
    JoineryError error;
    memset(&error, 0, sizeof error);
    joinery_session_execute(session, buffer, prefix_length + length, 1, 1, &handler, &error);
    free(buffer);
    return changes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (session == NULL)
        session = fuzz_session_open();
    const char *text = (const char *)data;
    size_t offset = 0;
    bool changed = false;
    for (int count = 0; count < FUZZ_MAX_STATEMENTS && offset < size; count++) {
        bool blank = false;
        size_t length = split_statement_end(text + offset, size - offset, &blank);
        if (length == 0) /* the unfinished rest is one last statement (blank said so) */
            length = size - offset;
        if (!blank)
            changed |= fuzz_run_statement(text + offset, length);
        offset += length;
    }
    if (changed) {
        joinery_session_close(session);
        session = NULL;
    }
    return 0;
}
