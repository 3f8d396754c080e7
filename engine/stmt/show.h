/*
 * show.h - SHOW TABLES / VIEWS / FUNCTIONS / COLUMNS / CATALOGS / DATABASES /
 * MODULES / JARS / CURRENT ..., SHOW CREATE TABLE / VIEW, DESCRIBE, the SET
 * listing and SHOW JOB METRICS (show.c).
 *
 * Contract: read-only on the session; results go to the handler as
 * table-style results (statement_emit_table) or text.
 */
#ifndef JOINERY_STMT_SHOW_H
#define JOINERY_STMT_SHOW_H

#include <stdbool.h>

#include "engine/sql/ast.h"
#include "engine/stmt/context.h"

/* SHOW TABLES (views included, as Flink does) or SHOW VIEWS [FROM|IN db] [[NOT] LIKE 'p']. */
int show_tables(StatementContext *context, const AstStatement *statement);
/* SHOW [USER] FUNCTIONS [[NOT] LIKE 'p']: the built-in functions (function_list_names), sorted. */
int show_functions(StatementContext *context, const AstStatement *statement);
/*
 * SHOW CATALOGS / DATABASES [LIKE], SHOW CURRENT CATALOG / DATABASE, SHOW [FULL]
 * MODULES, SHOW JARS: what exists (default_catalog.default_database, the core
 * module, no jars), in Flink's columns.
 */
int show_catalog_objects(StatementContext *context, const AstStatement *statement);
/* SHOW CREATE TABLE | VIEW: the DDL text; secret options are masked. */
int show_create(StatementContext *context, const AstStatement *statement);
/* DESCRIBE t / SHOW COLUMNS FROM t [[NOT] LIKE 'p']: name, type, null, key, extras,
   watermark per column. */
int show_describe(StatementContext *context, const AstStatement *statement);
/* SET; : every option with a value (set or default), in the option table's order. */
int show_options(StatementContext *context);
/* SHOW JOB METRICS: the metrics of the session's last job; an error before any job ran. */
int show_job_metrics(StatementContext *context);

#endif
