/*
 * analyze.h - ANALYZE TABLE t COMPUTE STATISTICS [FOR ALL COLUMNS] (analyze.c).
 *
 * Contract: reads the table (a bounded one to its end, an unbounded one
 * sampled) and stores row count and, FOR ALL COLUMNS, distinct and NULL
 * counts in the table's CatalogStatistics for the cost model; reports them
 * through the handler. Cancel stops it with JOINERY_CANCELLED and stores
 * nothing.
 */
#ifndef JOINERY_STMT_ANALYZE_H
#define JOINERY_STMT_ANALYZE_H

#include "engine/sql/ast.h"
#include "engine/stmt/context.h"

int analyze_table(StatementContext *context, const AstStatement *statement);

#endif
