/*
 * analyze.c - ANALYZE TABLE t COMPUTE STATISTICS [FOR ALL COLUMNS].
 *
 * Reads the table through a job whose plan is one TableSourceScan of its
 * physical columns (parallelism 1, so the job runs on this thread and its
 * status callback ticks), counting rows and, with FOR ALL COLUMNS, each
 * column's NULLs and distinct values. A bounded source is read to its end;
 * an unbounded one is sampled: the first ANALYZE_SAMPLE_ROWS rows or
 * ANALYZE_SAMPLE_MILLIS of processing time, whichever comes first (the
 * result says which), and the sample's counts stand for the table.
 *
 * Distinct counts are exact while a column has at most ANALYZE_EXACT_LIMIT
 * distinct values (a set of 64-bit hashes), then a HyperLogLog with 2^14
 * registers (about 0.8% standard error). Results go into the table's
 * CatalogStatistics, allocated in the table's own arena; column statistics
 * of a plain ANALYZE (no FOR ALL COLUMNS) are left as they were. The cost
 * model (plan/cost.c) reads them.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "engine/connector/connector.h"
#include "engine/exec/job.h"

enum {
    ANALYZE_SAMPLE_ROWS = 100000,
    ANALYZE_SAMPLE_MILLIS = 2000,
    ANALYZE_EXACT_LIMIT = 65536,
    ANALYZE_EXACT_CAPACITY = 2 * ANALYZE_EXACT_LIMIT, /* power of two, load <= 1/2 */
    ANALYZE_HLL_BITS = 14,
    ANALYZE_HLL_REGISTERS = 1 << ANALYZE_HLL_BITS,
};

typedef struct ColumnCounter {
    uint32_t table_column;
    DataType type;
    uint64_t nulls;
    uint64_t *exact; /* open-addressing set of hashes (0 = empty); NULL once over the limit */
    uint32_t exact_count;
    uint8_t *registers; /* HyperLogLog, always fed */
} ColumnCounter;

typedef struct Analysis {
    ColumnCounter *columns;
    uint32_t column_count;
    bool all_columns;
    bool sampled; /* unbounded source: stop at the sample limits */
    uint64_t rows;
    int64_t started_millis;
    bool stopped_by_rows;
    bool stopped_by_time;
    volatile int stop;
    volatile int *cancel_requested; /* the session's */
    bool out_of_memory;
} Analysis;

static uint64_t analyze_hash_value(const Row *row, uint32_t field, DataType type)
{
    if (type_is_variable_length(type.id)) {
        uint32_t length = 0;
        const char *text = row_get_string(row, field, &length);
        return XXH3_64bits(text, length);
    }
    uint64_t slot = row_get_slot(row, field);
    return XXH3_64bits(&slot, sizeof slot);
}

static void analyze_exact_add(ColumnCounter *counter, uint64_t hash)
{
    if (!counter->exact)
        return;
    if (hash == 0)
        hash = 1;
    uint32_t mask = ANALYZE_EXACT_CAPACITY - 1;
    for (uint32_t slot = (uint32_t)hash & mask;; slot = (slot + 1) & mask) {
        if (counter->exact[slot] == hash)
            return;
        if (counter->exact[slot] == 0) {
            counter->exact[slot] = hash;
            counter->exact_count++;
            break;
        }
    }
    if (counter->exact_count > ANALYZE_EXACT_LIMIT) {
        free(counter->exact);
        counter->exact = NULL;
    }
}

static void analyze_hll_add(ColumnCounter *counter, uint64_t hash)
{
    uint32_t index = (uint32_t)(hash >> (64 - ANALYZE_HLL_BITS));
    uint64_t rest = hash << ANALYZE_HLL_BITS;
    uint8_t rank = 1;
    while (rank <= 64 - ANALYZE_HLL_BITS && !(rest & ((uint64_t)1 << 63))) {
        rest <<= 1;
        rank++;
    }
    if (rank > counter->registers[index])
        counter->registers[index] = rank;
}

/* The HyperLogLog estimate, with linear counting for small cardinalities. */
static double analyze_hll_estimate(const ColumnCounter *counter)
{
    double m = ANALYZE_HLL_REGISTERS, sum = 0;
    uint32_t zeros = 0;
    for (uint32_t i = 0; i < ANALYZE_HLL_REGISTERS; i++) {
        sum += ldexp(1.0, -(int)counter->registers[i]);
        zeros += counter->registers[i] == 0;
    }
    double alpha = 0.7213 / (1.0 + 1.079 / m);
    double estimate = alpha * m * m / sum;
    if (estimate <= 2.5 * m && zeros > 0)
        estimate = m * log(m / zeros);
    return round(estimate);
}

static double analyze_distinct(const ColumnCounter *counter)
{
    return counter->exact ? (double)counter->exact_count : analyze_hll_estimate(counter);
}

/* Stops the job when the sample is complete or the user cancelled. */
static void analyze_check_limits(Analysis *analysis)
{
    if (analysis->cancel_requested && *analysis->cancel_requested)
        analysis->stop = 1;
    if (!analysis->sampled || analysis->stop)
        return;
    if (analysis->rows >= ANALYZE_SAMPLE_ROWS) {
        analysis->stopped_by_rows = true;
        analysis->stop = 1;
    } else if (datetime_now_millis() - analysis->started_millis >= ANALYZE_SAMPLE_MILLIS) {
        analysis->stopped_by_time = true;
        analysis->stop = 1;
    }
}

static int analyze_row(void *context, const Row *row)
{
    Analysis *analysis = context;
    if (analysis->stop)
        return 0; /* rows of the batch in flight after the sample is complete */
    analysis->rows++;
    for (uint32_t c = 0; analysis->all_columns && c < analysis->column_count; c++) {
        ColumnCounter *counter = &analysis->columns[c];
        if (row_is_null(row, c)) {
            counter->nulls++;
            continue;
        }
        uint64_t hash = analyze_hash_value(row, c, counter->type);
        analyze_exact_add(counter, hash);
        analyze_hll_add(counter, hash);
    }
    analyze_check_limits(analysis);
    return 0;
}

static int analyze_status(void *context, const char *line)
{
    (void)line;
    analyze_check_limits(context);
    return 0;
}

static int analyze_ignore_line(void *context, const char *line)
{
    (void)context;
    (void)line;
    return 0;
}

/* The physical plan: a TableSourceScan of the table's physical columns. */
static PlanNode *analyze_build_scan(Arena *arena, const CatalogTable *table)
{
    uint32_t count = 0;
    for (size_t i = 0; i < table->column_count; i++)
        count += table->columns[i].kind == CATALOG_COLUMN_PHYSICAL;
    PlanNode *scan = plan_node_new(arena, PLAN_TABLE_SOURCE_SCAN, 0, count);
    uint32_t *columns = arena_calloc(arena, count + 1, sizeof(uint32_t));
    if (!scan || !columns)
        return NULL;
    uint32_t next = 0;
    for (size_t i = 0; i < table->column_count; i++) {
        if (table->columns[i].kind != CATALOG_COLUMN_PHYSICAL)
            continue;
        columns[next] = (uint32_t)i;
        scan->fields[next].name = table->columns[i].name;
        scan->fields[next].type = table->columns[i].type;
        scan->fields[next].type.time_attribute = TIME_ATTRIBUTE_NONE;
        next++;
    }
    scan->id = 1;
    scan->scan.table = table;
    scan->scan.columns = columns;
    scan->scan.column_count = count;
    scan->scan.read_count = count;
    return scan;
}

/* Runs the scan job, filling the analysis. */
static int analyze_run(StatementContext *context, const PlanNode *scan, Analysis *analysis)
{
    /* the session's datagen seed; one subtask, so the job runs on this thread (a lone scan
       reads no other option of the job) */
    JobConfig config = context->job_config;
    config.parallelism = 1;
    JobOutput output = {analysis, analyze_row, analyze_ignore_line, analyze_status, NULL};
    Job *job = NULL;
    int status = job_create(scan, &config, &output, &job, context->diag);
    analysis->started_millis = datetime_now_millis();
    if (status == JOINERY_OK)
        status = job_run(job, &analysis->stop, context->diag);
    if (status == JOINERY_CANCELLED &&
        !(analysis->cancel_requested && *analysis->cancel_requested)) {
        status = JOINERY_OK; /* the sample is complete */
        diag_clear(context->diag);
    }
    job_destroy(job);
    return status;
}

/* Stores the counts in the table's statistics (its own arena). */
static int analyze_store(CatalogTable *table, const Analysis *analysis)
{
    table->statistics.row_count = (double)analysis->rows;
    if (!analysis->all_columns)
        return JOINERY_OK;
    double *distinct = arena_calloc(&table->arena, table->column_count + 1, sizeof(double));
    double *nulls = arena_calloc(&table->arena, table->column_count + 1, sizeof(double));
    if (!distinct || !nulls)
        return JOINERY_ERROR_NO_MEMORY;
    for (size_t i = 0; i < table->column_count; i++)
        distinct[i] = nulls[i] = -1;
    for (uint32_t c = 0; c < analysis->column_count; c++) {
        const ColumnCounter *counter = &analysis->columns[c];
        distinct[counter->table_column] = analyze_distinct(counter);
        nulls[counter->table_column] = (double)counter->nulls;
    }
    table->statistics.distinct_counts = distinct;
    table->statistics.null_counts = nulls;
    return JOINERY_OK;
}

/* Prints the column table (FOR ALL COLUMNS) and the row-count line. */
static int analyze_report(StatementContext *context, const CatalogTable *table,
                          const Analysis *analysis)
{
    Arena *arena = context->arena;
    if (analysis->all_columns) {
        const char *names[] = {"column", "type", "ndv", "nulls"};
        const char **cells =
            arena_calloc(arena, 4 * (size_t)analysis->column_count + 1, sizeof(char *));
        if (!cells)
            return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        for (uint32_t c = 0; c < analysis->column_count; c++) {
            const ColumnCounter *counter = &analysis->columns[c];
            char type_name[96];
            type_format(table->columns[counter->table_column].type, type_name, sizeof type_name);
            cells[4 * c] = table->columns[counter->table_column].name;
            cells[4 * c + 1] = arena_strdup(arena, type_name);
            cells[4 * c + 2] = arena_printf(arena, "%.0f", analyze_distinct(counter));
            cells[4 * c + 3] = arena_printf(arena, "%llu", (unsigned long long)counter->nulls);
        }
        int status = statement_emit_table(context, names, 4, cells, analysis->column_count);
        if (status != JOINERY_OK)
            return status;
    }
    const char *how = !analysis->sampled          ? "read fully"
                      : analysis->stopped_by_rows ? "sampled: the first 100000 rows"
                      : analysis->stopped_by_time ? "sampled: 2 seconds of processing time"
                                                  : "sampled: the source ended";
    char message[512];
    snprintf(message, sizeof message, "Statistics of `%s`: %llu rows (%s)%s.", table->name,
             (unsigned long long)analysis->rows, how,
             analysis->all_columns ? ", distinct and null counts of every column" : "");
    const JoineryResultHandler *handler = context->handler;
    if (handler && handler->info)
        handler->info(handler->context, message);
    return JOINERY_OK;
}

int analyze_table(StatementContext *context, const AstStatement *statement)
{
    const char *name =
        statement_object_name(context, &statement->analyze.name_parts, statement->position);
    if (!name)
        return context->diag->status;
    CatalogTable *table = catalog_find(context->session->catalog, name);
    if (!table) {
        const char *suggestion = catalog_suggest_table(context->session->catalog, name);
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column, "Table `%s` not found%s%s%s", name,
                             suggestion ? "; did you mean '" : "", suggestion ? suggestion : "",
                             catalog_suggestion_end(name, suggestion));
    }
    if (table->is_view)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "ANALYZE TABLE needs a table; `%s` is a view", name);
    const Connector *connector = connector_find(catalog_table_option(table, "connector"));
    if (!connector || !connector->create_source)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "Table `%s` cannot be analyzed: connector '%s' is not a source", name,
                             catalog_table_option(table, "connector"));
    PlanNode *scan = analyze_build_scan(context->arena, table);
    if (!scan)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    Analysis analysis;
    memset(&analysis, 0, sizeof analysis);
    analysis.all_columns = statement->analyze.all_columns;
    analysis.sampled = !(connector->is_bounded && connector->is_bounded(table));
    analysis.cancel_requested = &context->session->cancel_requested;
    analysis.column_count = scan->field_count;
    analysis.columns = arena_calloc(context->arena, scan->field_count + 1, sizeof(ColumnCounter));
    int status = analysis.columns ? JOINERY_OK : JOINERY_ERROR_NO_MEMORY;
    for (uint32_t c = 0; status == JOINERY_OK && c < analysis.column_count; c++) {
        ColumnCounter *counter = &analysis.columns[c];
        counter->table_column = scan->scan.columns[c];
        counter->type = scan->fields[c].type;
        if (!analysis.all_columns)
            continue;
        counter->exact = calloc(ANALYZE_EXACT_CAPACITY, sizeof(uint64_t));
        counter->registers = calloc(ANALYZE_HLL_REGISTERS, 1);
        if (!counter->exact || !counter->registers)
            status = JOINERY_ERROR_NO_MEMORY;
    }
    if (status == JOINERY_ERROR_NO_MEMORY)
        diag_error(context->diag, status, "out of memory");
    if (status == JOINERY_OK)
        status = analyze_run(context, scan, &analysis);
    if (status == JOINERY_OK) {
        status = analyze_store(table, &analysis);
        if (status != JOINERY_OK)
            diag_error(context->diag, status, "out of memory");
    }
    if (status == JOINERY_OK)
        status = analyze_report(context, table, &analysis);
    for (uint32_t c = 0; analysis.columns && c < analysis.column_count; c++) {
        free(analysis.columns[c].exact);
        free(analysis.columns[c].registers);
    }
    return status;
}
