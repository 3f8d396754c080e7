/*
 * render_tableau.c - Flink's "tableau" output: boxed tables.
 *
 * Two layouts, as Flink's SQL client draws them:
 * - CHANGELOG (streaming) results: an "op" column first; every value
 *   right-aligned; the column widths are fixed at begin from the column names
 *   and types (rows are not known in advance), following Flink's
 *   TableauStyle.columnWidthsByType: integers get their digit count plus a
 *   sign, DECIMAL(p, s) p + 2, BOOLEAN 5, DATE 10, TIME(p) 8 or p + 9,
 *   TIMESTAMP(p) 19/23/26/29, every other type the maximum column width; at
 *   least 6 for "<NULL>". Longer values are cut and end with "...". Each row
 *   is printed and flushed as it arrives; footer "Received a total of N rows".
 * - TABLE (SHOW, DESCRIBE, SET listing) results: no op column; rows are
 *   buffered until end so that widths fit the content, never cut (Flink
 *   prints statement results with no maximum width, so SET; shows whole
 *   keys); values right-aligned as everywhere in tableau; NULL printed as an
 *   empty cell (Flink's printNullAsEmpty for non-query results); footer
 *   "N rows in set", or only "Empty set" when there are no rows.
 * - BATCH (a query in batch mode) results: the TABLE layout with NULL as
 *   <NULL>, as Flink prints a batch query's rows (no op column).
 *
 * Invariant: state is NULL outside a result; discard frees all of it.
 */
#include "cli/render.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/text.h"

#define TABLEAU_NULL_TEXT "<NULL>"
#define TABLEAU_TRUNCATED_MARK "..."
#define TABLEAU_OP_COLUMN "op"

typedef struct TableauState {
    size_t cell_count;    /* columns printed, the op column included */
    size_t *widths;       /* display width of each printed column */
    char **names;         /* header texts (cell_count of them) */
    bool streaming;       /* CHANGELOG layout */
    bool batch;           /* BATCH: the TABLE layout with NULL as <NULL> (Flink's batch result) */
    char **buffered;      /* TABLE layout: row-major cells, NULL for SQL NULL */
    size_t buffered_rows; /* rows in buffered */
    size_t buffered_capacity;
} TableauState;

static char *tableau_copy_text(const char *text)
{
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length + 1);
    }
    return copy;
}

static void tableau_discard(Renderer *renderer)
{
    TableauState *state = renderer->state;
    if (state == NULL) {
        return;
    }
    if (state->names != NULL) {
        for (size_t i = 0; i < state->cell_count; i++) {
            free(state->names[i]);
        }
    }
    if (state->buffered != NULL) {
        size_t cells = state->buffered_rows * state->cell_count;
        for (size_t i = 0; i < cells; i++) {
            free(state->buffered[i]);
        }
    }
    free(state->buffered);
    free(state->names);
    free(state->widths);
    free(state);
    renderer->state = NULL;
}

/* Reads "(p" after a type name; returns fallback when no precision is written. */
static long tableau_type_precision(const char *rest, long fallback)
{
    while (*rest == ' ') {
        rest++;
    }
    if (*rest != '(') {
        return fallback;
    }
    char *end = NULL;
    long value = strtol(rest + 1, &end, 10);
    if (end == rest + 1 || value < 0 || value > 1000) {
        return fallback;
    }
    return value;
}

static size_t tableau_timestamp_width(long precision)
{
    if (precision == 0) {
        return 19; /* yyyy-MM-dd HH:mm:ss */
    } else if (precision <= 3) {
        return 23;
    } else if (precision <= 6) {
        return 26;
    }
    return 29;
}

/* render.h: Flink's columnWidthsByType, from the type's spelling ("TIMESTAMP(3) *ROWTIME*"). */
size_t render_type_width(const char *type_name, size_t max_column_width)
{
    if (type_name == NULL) {
        return max_column_width;
    }
    char word[32];
    size_t length = 0;
    while (type_name[length] != '\0' &&
           (isalnum((unsigned char)type_name[length]) || type_name[length] == '_')) {
        if (length + 1 < sizeof word) {
            word[length] = (char)toupper((unsigned char)type_name[length]);
        }
        length++;
    }
    word[length < sizeof word ? length : sizeof word - 1] = '\0';
    const char *rest = type_name + length;
    if (strcmp(word, "TINYINT") == 0) {
        return 4;
    } else if (strcmp(word, "SMALLINT") == 0) {
        return 6;
    } else if (strcmp(word, "INT") == 0 || strcmp(word, "INTEGER") == 0) {
        return 11;
    } else if (strcmp(word, "BIGINT") == 0) {
        return 20;
    } else if (strcmp(word, "DECIMAL") == 0 || strcmp(word, "DEC") == 0 ||
               strcmp(word, "NUMERIC") == 0) {
        return (size_t)tableau_type_precision(rest, 10) + 2;
    } else if (strcmp(word, "BOOLEAN") == 0) {
        return 5;
    } else if (strcmp(word, "DATE") == 0) {
        return 10;
    } else if (strcmp(word, "TIME") == 0) {
        long precision = tableau_type_precision(rest, 0);
        return precision == 0 ? 8 : (size_t)precision + 9;
    } else if (strcmp(word, "TIMESTAMP") == 0 || strcmp(word, "TIMESTAMP_LTZ") == 0) {
        return tableau_timestamp_width(tableau_type_precision(rest, 6));
    }
    return max_column_width;
}

static void tableau_write_border(FILE *out, const TableauState *state)
{
    fputc('+', out);
    for (size_t i = 0; i < state->cell_count; i++) {
        for (size_t j = 0; j < state->widths[i] + 2; j++) {
            fputc('-', out);
        }
        fputc('+', out);
    }
    fputc('\n', out);
}

/* One cell right-aligned in width columns (or cut, ending "..."). */
static void tableau_write_cell(FILE *out, const char *text, size_t width)
{
    size_t length = strlen(text);
    size_t display = text_display_width(text, length);
    if (display <= width) {
        fprintf(out, "%*s", (int)(width - display), "");
        fwrite(text, 1, length, out);
        return;
    }
    size_t mark = strlen(TABLEAU_TRUNCATED_MARK);
    size_t room = width > mark ? width - mark : 0;
    size_t used = 0;
    size_t bytes = text_prefix_for_width(text, length, room, &used);
    fprintf(out, "%*s", (int)(room - used), "");
    fwrite(text, 1, bytes, out);
    fputs(TABLEAU_TRUNCATED_MARK, out);
}

static void tableau_write_row(FILE *out, const TableauState *state, const char *const *cells)
{
    const char *null_text = state->streaming || state->batch ? TABLEAU_NULL_TEXT : "";
    fputc('|', out);
    for (size_t i = 0; i < state->cell_count; i++) {
        fputc(' ', out);
        tableau_write_cell(out, cells[i] != NULL ? cells[i] : null_text, state->widths[i]);
        fputs(" |", out);
    }
    fputc('\n', out);
}

static int tableau_begin(Renderer *renderer, JoineryResultKind kind, const JoineryColumn *columns,
                         size_t column_count)
{
    TableauState *state = calloc(1, sizeof *state);
    if (state == NULL) {
        return -1;
    }
    renderer->state = state;
    state->streaming = kind == JOINERY_RESULT_CHANGELOG;
    state->batch = kind == JOINERY_RESULT_BATCH;
    size_t offset = state->streaming ? 1 : 0;
    state->cell_count = column_count + offset;
    state->widths = calloc(state->cell_count + 1, sizeof *state->widths);
    state->names = calloc(state->cell_count + 1, sizeof *state->names);
    if (state->widths == NULL || state->names == NULL) {
        return -1;
    }
    if (state->streaming) {
        state->names[0] = tableau_copy_text(TABLEAU_OP_COLUMN);
        state->widths[0] = strlen(TABLEAU_OP_COLUMN);
        if (state->names[0] == NULL) {
            return -1;
        }
    }
    for (size_t i = 0; i < column_count; i++) {
        const char *name = columns[i].name != NULL ? columns[i].name : "";
        state->names[i + offset] = tableau_copy_text(name);
        if (state->names[i + offset] == NULL) {
            return -1;
        }
        size_t width = text_display_width(name, strlen(name));
        if (state->streaming) {
            size_t type_width = render_type_width(columns[i].type_name, renderer->max_column_width);
            if (type_width < strlen(TABLEAU_NULL_TEXT)) {
                type_width = strlen(TABLEAU_NULL_TEXT);
            }
            if (type_width > width) {
                width = type_width;
            }
        }
        state->widths[i + offset] = width;
    }
    if (state->streaming) {
        FILE *out = renderer->out;
        tableau_write_border(out, state);
        tableau_write_row(out, state, (const char *const *)state->names);
        tableau_write_border(out, state);
        fflush(out);
    }
    return 0;
}

static const char *tableau_row_kind_text(JoineryRowKind kind)
{
    switch (kind) {
    case JOINERY_ROW_UPDATE_BEFORE:
        return "-U";
    case JOINERY_ROW_UPDATE_AFTER:
        return "+U";
    case JOINERY_ROW_DELETE:
        return "-D";
    case JOINERY_ROW_INSERT:
    default:
        return "+I";
    }
}

static int tableau_buffer_row(TableauState *state, const char *const *values, size_t column_count)
{
    if (state->buffered_rows == state->buffered_capacity) {
        size_t capacity = state->buffered_capacity == 0 ? 16 : state->buffered_capacity * 2;
        char **grown = realloc(state->buffered, capacity * state->cell_count * sizeof *grown + 1);
        if (grown == NULL) {
            return -1;
        }
        state->buffered = grown;
        state->buffered_capacity = capacity;
    }
    char **cells = state->buffered + state->buffered_rows * state->cell_count;
    for (size_t i = 0; i < state->cell_count; i++) {
        cells[i] = NULL;
    }
    state->buffered_rows++;
    for (size_t i = 0; i < column_count && i < state->cell_count; i++) {
        if (values[i] != NULL) {
            cells[i] = tableau_copy_text(values[i]);
            if (cells[i] == NULL) {
                return -1;
            }
        }
    }
    return 0;
}

static int tableau_row(Renderer *renderer, JoineryRowKind kind, const char *const *values,
                       size_t column_count)
{
    TableauState *state = renderer->state;
    if (state == NULL) {
        return -1;
    }
    if (!state->streaming) {
        return tableau_buffer_row(state, values, column_count);
    }
    const char *stack_cells[16];
    const char **cells = stack_cells;
    if (state->cell_count > sizeof stack_cells / sizeof stack_cells[0]) {
        cells = malloc(state->cell_count * sizeof *cells);
        if (cells == NULL) {
            return -1;
        }
    }
    cells[0] = tableau_row_kind_text(kind);
    for (size_t i = 1; i < state->cell_count; i++) {
        cells[i] = i - 1 < column_count ? values[i - 1] : NULL;
    }
    tableau_write_row(renderer->out, state, cells);
    fflush(renderer->out);
    if (cells != stack_cells) {
        free(cells);
    }
    return 0;
}

static int tableau_end_table(Renderer *renderer, TableauState *state, bool cancelled)
{
    FILE *out = renderer->out;
    char cost[48];
    render_time_cost(renderer, cost, sizeof cost);
    if (state->buffered_rows == 0) {
        fprintf(out, "%s%s\n",
                cancelled ? "Query terminated, received a total of 0 row" : "Empty set", cost);
        fflush(out);
        return 0;
    }
    for (size_t r = 0; r < state->buffered_rows; r++) {
        char **cells = state->buffered + r * state->cell_count;
        for (size_t i = 0; i < state->cell_count; i++) {
            const char *text = cells[i] != NULL ? cells[i] : state->batch ? TABLEAU_NULL_TEXT : "";
            size_t width = text_display_width(text, strlen(text));
            if (width > state->widths[i]) {
                state->widths[i] = width;
            }
        }
    }
    tableau_write_border(out, state);
    tableau_write_row(out, state, (const char *const *)state->names);
    tableau_write_border(out, state);
    for (size_t r = 0; r < state->buffered_rows; r++) {
        tableau_write_row(out, state,
                          (const char *const *)(state->buffered + r * state->cell_count));
    }
    tableau_write_border(out, state);
    uint64_t rows = state->buffered_rows;
    if (cancelled) {
        fprintf(out, "Query terminated, received a total of %llu %s%s\n", (unsigned long long)rows,
                render_row_term(rows), cost);
    } else {
        fprintf(out, "%llu %s in set%s\n", (unsigned long long)rows, render_row_term(rows), cost);
    }
    fflush(out);
    return 0;
}

static int tableau_end(Renderer *renderer, uint64_t row_count, bool cancelled)
{
    TableauState *state = renderer->state;
    if (state == NULL) {
        return -1;
    }
    if (!state->streaming) {
        return tableau_end_table(renderer, state, cancelled);
    }
    FILE *out = renderer->out;
    if (row_count > 0) {
        tableau_write_border(out, state);
    }
    char cost[48];
    render_time_cost(renderer, cost, sizeof cost);
    if (cancelled) {
        fprintf(out, "Query terminated, received a total of %llu %s%s\n",
                (unsigned long long)row_count, render_row_term(row_count), cost);
    } else {
        fprintf(out, "Received a total of %llu %s%s\n", (unsigned long long)row_count,
                render_row_term(row_count), cost);
    }
    fflush(out);
    return 0;
}

/* A streaming result abandoned after some rows gets its bottom border (no footer). */
static void tableau_close(Renderer *renderer)
{
    TableauState *state = renderer->state;
    if (state != NULL && state->streaming && renderer->rows_received > 0) {
        tableau_write_border(renderer->out, state);
        fflush(renderer->out);
    }
}

const RenderFormat RENDER_FORMAT_TABLEAU = {
    .begin = tableau_begin,
    .row = tableau_row,
    .end = tableau_end,
    .close = tableau_close,
    .discard = tableau_discard,
};
