/*
 * ddl.c - CREATE TABLE, CREATE VIEW and DROP: turns the AST into catalog
 * entries after validating everything a later query would trip over
 * (column names, types, primary key, watermark, computed columns, connector
 * options), so errors surface at definition time with a position.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/stmt/ddl.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/connector/connector.h"
#include "engine/plan/planner.h"
#include "engine/sql/parser.h"

static int ddl_info_succeeded(StatementContext *context)
{
    return statement_info(context, "Execute statement succeeded.");
}

static char *ddl_expression_text(CatalogTable *table, const AstExpr *expr)
{
    return arena_strndup(&table->arena, expr->source_text, expr->source_length);
}

/* Copies the column definitions (types of computed columns bound later). */
static int ddl_copy_columns(StatementContext *context, const AstCreateTable *create,
                            CatalogTable *table)
{
    Diag *diag = context->diag;
    table->column_count = create->columns.count;
    table->columns = arena_calloc(&table->arena, create->columns.count ? create->columns.count : 1,
                                  sizeof(CatalogColumn));
    if (!table->columns)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < create->columns.count; i++) {
        const AstColumnDef *definition = create->columns.items[i];
        for (size_t j = 0; j < i; j++) {
            const AstColumnDef *other = create->columns.items[j];
            if (strcmp(other->name, definition->name) == 0)
                return diag_error_at(diag, JOINERY_ERROR_VALIDATE, definition->position.line,
                                     definition->position.column, "Column '%s' is defined twice",
                                     definition->name);
        }
        CatalogColumn *column = &table->columns[i];
        column->name = arena_strdup(&table->arena, definition->name);
        column->type = definition->type;
        column->comment = arena_strdup(&table->arena, definition->comment);
        switch (definition->kind) {
        case AST_COLUMN_PHYSICAL:
            column->kind = CATALOG_COLUMN_PHYSICAL;
            break;
        case AST_COLUMN_COMPUTED:
            column->kind = CATALOG_COLUMN_COMPUTED;
            column->expression = ddl_expression_text(table, definition->expr);
            break;
        case AST_COLUMN_METADATA:
            /* the connector checks the key when the table's options are validated */
            column->kind = CATALOG_COLUMN_METADATA;
            column->metadata_key = arena_strdup(&table->arena, definition->metadata_key);
            column->is_virtual = definition->is_virtual;
            break;
        }
    }
    return JOINERY_OK;
}

static int ddl_copy_primary_key(StatementContext *context, const AstCreateTable *create,
                                CatalogTable *table)
{
    Diag *diag = context->diag;
    size_t inline_count = 0;
    const char *inline_name = NULL;
    for (size_t i = 0; i < create->columns.count; i++) {
        const AstColumnDef *definition = create->columns.items[i];
        if (definition->primary_key) {
            inline_count++;
            inline_name = definition->name;
        }
    }
    /* the parser lists a column-level key in create->primary_key too (and refuses a second
       key there): only a key it did not list is a duplicate */
    bool listed = inline_count == 1 && create->primary_key.count == 1 &&
                  strcmp(create->primary_key.items[0], inline_name) == 0;
    if (inline_count > 1 || (inline_count && create->primary_key.count && !listed))
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->primary_key_position.line,
                             create->primary_key_position.column,
                             "Duplicate primary key definition");
    size_t count = inline_count ? 1 : create->primary_key.count;
    if (count == 0)
        return JOINERY_OK;
    if (create->primary_key_enforced)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->primary_key_position.line,
                             create->primary_key_position.column,
                             "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. "
                             "ENFORCED/NOT ENFORCED controls if the constraint checks are "
                             "performed on the incoming/outgoing data. Flink does not own the "
                             "data therefore the only supported mode is the NOT ENFORCED mode");
    table->primary_key = arena_calloc(&table->arena, count, sizeof(char *));
    table->primary_key_count = count;
    for (size_t i = 0; i < count; i++) {
        const char *name = inline_count ? inline_name : create->primary_key.items[i];
        int index = catalog_table_column_index(table, name);
        if (index < 0)
            return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->primary_key_position.line,
                                 create->primary_key_position.column,
                                 "Primary key column '%s' is not defined in the table", name);
        if (table->columns[index].kind == CATALOG_COLUMN_COMPUTED)
            return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->primary_key_position.line,
                                 create->primary_key_position.column,
                                 "Could not create a PRIMARY KEY with column '%s': it is a "
                                 "computed column",
                                 name);
        table->primary_key[i] = table->columns[index].name;
        /* primary key columns are implicitly NOT NULL in Flink */
        table->columns[index].type.nullable = false;
    }
    return JOINERY_OK;
}

/*
 * Flink's legacy descriptor options for a file ('connector.type' = 'filesystem',
 * 'connector.path', 'format.type': Nexmark q13's side input) are the filesystem
 * connector's 'connector', 'path' (a file:// URI's path) and 'format'. Any other legacy
 * key stays as written and is refused by the connector's option check. Returns the
 * key under which `option` is stored and sets *value.
 */
static const char *ddl_legacy_option(const AstCreateTable *create, const AstOption *option,
                                     const char **value)
{
    *value = option->value;
    bool legacy_file = false;
    for (size_t i = 0; i < create->options.count; i++) {
        const AstOption *other = create->options.items[i];
        if (strcmp(other->key, "connector.type") == 0 && strcmp(other->value, "filesystem") == 0)
            legacy_file = true;
        if (strcmp(other->key, "connector") == 0)
            return option->key;
    }
    if (!legacy_file)
        return option->key;
    if (strcmp(option->key, "connector.type") == 0)
        return "connector";
    if (strcmp(option->key, "format.type") == 0)
        return "format";
    if (strcmp(option->key, "connector.path") == 0) {
        if (strncmp(option->value, "file://", 7) == 0)
            *value = option->value + 7;
        return "path";
    }
    return option->key;
}

static int ddl_copy_options(StatementContext *context, const AstCreateTable *create,
                            CatalogTable *table)
{
    table->option_count = create->options.count;
    table->options = arena_calloc(&table->arena, create->options.count ? create->options.count : 1,
                                  sizeof(CatalogOption));
    if (!table->options)
        return diag_error(context->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < create->options.count; i++) {
        const AstOption *option = create->options.items[i];
        for (size_t j = 0; j < i; j++) {
            const AstOption *other = create->options.items[j];
            if (strcmp(other->key, option->key) == 0)
                return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, option->position.line,
                                     option->position.column, "Option '%s' is given twice",
                                     option->key);
        }
        const char *value;
        const char *key = ddl_legacy_option(create, option, &value);
        table->options[i].key = arena_strdup(&table->arena, key);
        table->options[i].value = arena_strdup(&table->arena, value);
    }
    return JOINERY_OK;
}

/* Binds computed columns (types) and the watermark (time attribute). */
static int ddl_bind_expressions(StatementContext *context, const AstCreateTable *create,
                                CatalogTable *table)
{
    Diag *diag = context->diag;
    PlannerContext planner = statement_planner_context(context);
    for (size_t i = 0; i < create->columns.count; i++) {
        const AstColumnDef *definition = create->columns.items[i];
        if (definition->kind != AST_COLUMN_COMPUTED)
            continue;
        Expr *bound = NULL;
        int status = plan_bind_table_expression(&planner, table, definition->expr, false, &bound);
        if (status != JOINERY_OK)
            return status;
        table->columns[i].type = bound->type;
    }
    if (!create->watermark_column)
        return JOINERY_OK;
    int index = catalog_table_column_index(table, create->watermark_column);
    if (index < 0)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->watermark_position.line,
                             create->watermark_position.column,
                             "The rowtime attribute field '%s' is not defined in the table "
                             "schema",
                             create->watermark_column);
    CatalogColumn *column = &table->columns[index];
    if (column->type.id != TYPE_TIMESTAMP && column->type.id != TYPE_TIMESTAMP_LTZ)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->watermark_position.line,
                             create->watermark_position.column,
                             "Invalid data type of time field for watermark definition. The "
                             "field '%s' must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p)",
                             column->name);
    Expr *watermark = NULL;
    int status =
        plan_bind_table_expression(&planner, table, create->watermark_expr, true, &watermark);
    if (status != JOINERY_OK)
        return status;
    if (watermark->type.id != TYPE_TIMESTAMP && watermark->type.id != TYPE_TIMESTAMP_LTZ)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, create->watermark_expr->position.line,
                             create->watermark_expr->position.column,
                             "Watermark strategy must return a TIMESTAMP or TIMESTAMP_LTZ value");
    table->watermark_column = column->name;
    table->watermark_expression = ddl_expression_text(table, create->watermark_expr);
    column->type.time_attribute = TIME_ATTRIBUTE_ROWTIME;
    return JOINERY_OK;
}

/*
 * PARTITIONED BY (k, ...): physical columns of the table, each once (Flink's checks);
 * only the filesystem connector writes partitions (engine/connector/filesystem.c) and
 * blackhole discards them (Flink's implements SupportsPartitioning), so another
 * connector is refused here rather than at the first INSERT.
 */
static int ddl_copy_partition_keys(StatementContext *context, const AstStatement *statement,
                                   CatalogTable *table)
{
    const AstList *keys = &statement->create_table.partition_by;
    Diag *diag = context->diag;
    if (keys->count == 0)
        return JOINERY_OK;
    const char *connector = catalog_table_option(table, "connector");
    if (!connector || (strcmp(connector, "filesystem") != 0 && strcmp(connector, "blackhole") != 0))
        return diag_error_at(diag, JOINERY_ERROR_UNSUPPORTED, statement->position.line,
                             statement->position.column,
                             "Table '%s' is a partitioned table, but connector '%s' does not "
                             "write partitions (only 'filesystem' does; 'blackhole' discards "
                             "them as Flink's does)",
                             table->name, connector ? connector : "");
    table->partition_keys = arena_calloc(&table->arena, keys->count, sizeof(char *));
    if (!table->partition_keys)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (size_t i = 0; i < keys->count; i++) {
        const char *name = keys->items[i];
        int index = catalog_table_column_index(table, name);
        if (index < 0 || table->columns[index].kind != CATALOG_COLUMN_PHYSICAL)
            return diag_error_at(diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                                 statement->position.column,
                                 "Partition column '%s' not defined in the table schema "
                                 "(a physical column)",
                                 name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(table->partition_keys[j], table->columns[index].name) == 0)
                return diag_error_at(diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                                     statement->position.column,
                                     "Partition column '%s' is listed twice", name);
        table->partition_keys[i] = table->columns[index].name;
    }
    if (keys->count >= table->column_count)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "Table '%s' needs at least one column that is not a partition "
                             "column",
                             table->name);
    table->partition_key_count = keys->count;
    return JOINERY_OK;
}

int ddl_create_table(StatementContext *context, const AstStatement *statement)
{
    const AstCreateTable *create = &statement->create_table;
    Diag *diag = context->diag;
    const char *name = statement_object_name(context, &create->name_parts, statement->position);
    if (!name)
        return diag->status;
    if (create->like_table)
        return diag_error_at(diag, JOINERY_ERROR_UNSUPPORTED, statement->position.line,
                             statement->position.column,
                             "CREATE TABLE ... LIKE is not supported yet");
    CatalogTable *existing = catalog_find(context->session->catalog, name);
    if (existing && create->if_not_exists)
        return ddl_info_succeeded(context);
    CatalogTable *table = catalog_table_new(name, false);
    if (!table)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    table->temporary = create->temporary;
    table->comment = arena_strdup(&table->arena, create->comment);
    int status = ddl_copy_columns(context, create, table);
    if (status == JOINERY_OK)
        status = ddl_copy_primary_key(context, create, table);
    if (status == JOINERY_OK)
        status = ddl_copy_options(context, create, table);
    if (status == JOINERY_OK)
        status = ddl_copy_partition_keys(context, statement, table);
    if (status == JOINERY_OK)
        status = ddl_bind_expressions(context, create, table);
    if (status == JOINERY_OK) {
        status = connector_validate_table(table, diag);
        if (status != JOINERY_OK && diag->line == 0) {
            diag->line = statement->position.line;
            diag->column = statement->position.column;
        }
    }
    if (status != JOINERY_OK) {
        catalog_table_free(table);
        return status;
    }
    status = catalog_add(context->session->catalog, table, create->if_not_exists, diag);
    if (status != JOINERY_OK) {
        diag->line = statement->position.line;
        diag->column = statement->position.column;
        return status;
    }
    return ddl_info_succeeded(context);
}

int ddl_create_view(StatementContext *context, const AstStatement *statement)
{
    const AstCreateView *create = &statement->create_view;
    Diag *diag = context->diag;
    const char *name = statement_object_name(context, &create->name_parts, statement->position);
    if (!name)
        return diag->status;
    if (catalog_find(context->session->catalog, name) && create->if_not_exists)
        return ddl_info_succeeded(context);
    /* bind the query now: a view that cannot run is rejected at definition time */
    PlannerContext planner = statement_planner_context(context);
    PlanNode *logical = NULL;
    int status = plan_bind_query(&planner, create->query, &logical);
    if (status != JOINERY_OK)
        return status;
    if (create->column_names.count && create->column_names.count != logical->field_count)
        return diag_error_at(diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "List of column aliases must have same degree as table; the query "
                             "has %u columns, the view lists %zu",
                             logical->field_count, create->column_names.count);
    CatalogTable *view = catalog_table_new(name, true);
    if (!view)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    view->temporary = create->temporary;
    view->view_query = arena_strndup(&view->arena, create->query_text, create->query_length);
    view->column_count = logical->field_count;
    view->columns = arena_calloc(&view->arena, logical->field_count ? logical->field_count : 1,
                                 sizeof(CatalogColumn));
    for (uint32_t i = 0; i < logical->field_count; i++) {
        const char *column_name =
            create->column_names.count ? create->column_names.items[i] : logical->fields[i].name;
        view->columns[i].name = arena_strdup(&view->arena, column_name);
        view->columns[i].type = logical->fields[i].type;
        view->columns[i].kind = CATALOG_COLUMN_PHYSICAL;
    }
    status = catalog_add(context->session->catalog, view, create->if_not_exists, diag);
    if (status != JOINERY_OK) {
        diag->line = statement->position.line;
        diag->column = statement->position.column;
        return status;
    }
    return ddl_info_succeeded(context);
}

int ddl_drop(StatementContext *context, const AstStatement *statement)
{
    const AstDrop *drop = &statement->drop;
    if (drop->is_function)
        return ddl_drop_function(context, statement);
    const char *name = statement_object_name(context, &drop->name_parts, statement->position);
    if (!name)
        return context->diag->status;
    /* a running background job reads the table's definition: it stays until the job ends */
    const char *job_id = drop->is_view ? NULL : jobs_table_in_use(&context->session->jobs, name);
    if (job_id)
        return diag_error_at(context->diag, JOINERY_ERROR_VALIDATE, statement->position.line,
                             statement->position.column,
                             "Table `%s` is used by running job %s; STOP JOB '%s' first", name,
                             job_id, job_id);
    int status = catalog_drop(context->session->catalog, name, drop->is_view, drop->if_exists,
                              context->diag);
    if (status != JOINERY_OK) {
        context->diag->line = statement->position.line;
        context->diag->column = statement->position.column;
        return status;
    }
    return ddl_info_succeeded(context);
}
