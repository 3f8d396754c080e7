/*
 * ddl.h - CREATE TABLE, CREATE VIEW and DROP (ddl.c); CREATE / DROP FUNCTION
 * (ddl_function.c).
 *
 * Contract: each validates the whole definition before it touches the
 * catalog, so a failing statement leaves the catalog as it was; errors carry
 * the position of the offending clause. On success the handler gets
 * "Execute statement succeeded." (also for IF [NOT] EXISTS no-ops).
 */
#ifndef JOINERY_STMT_DDL_H
#define JOINERY_STMT_DDL_H

#include "engine/sql/ast.h"
#include "engine/stmt/context.h"

/* CREATE TABLE: columns, primary key, computed columns, watermark, connector options. */
int ddl_create_table(StatementContext *context, const AstStatement *statement);
/* CREATE [TEMPORARY] VIEW: the query is bound now (so errors show) and stored as SQL text. */
int ddl_create_view(StatementContext *context, const AstStatement *statement);
/* DROP [TEMPORARY] TABLE | VIEW [IF EXISTS]; DROP FUNCTION goes to ddl_drop_function. */
int ddl_drop(StatementContext *context, const AstStatement *statement);
/* CREATE [TEMPORARY [SYSTEM]] FUNCTION ... LANGUAGE C USING JAR '...' (ddl_function.c): the
   library is loaded and its descriptor checked now; other languages are refused. */
int ddl_create_function(StatementContext *context, const AstStatement *statement);
/* DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name (ddl_function.c). */
int ddl_drop_function(StatementContext *context, const AstStatement *statement);

#endif
