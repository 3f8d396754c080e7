/*
 * render_csv.c - CSV output (RFC 4180): a header line, then one line per row.
 *
 * Invariants: streaming (CHANGELOG) results carry an "op" column first
 * (+I, -U, +U, -D); a field is quoted when it holds a comma, a double quote,
 * CR or LF, or is the empty string (so that it differs from SQL NULL, which is
 * an empty unquoted field); quotes inside are doubled. Lines end with "\n".
 * Every line is flushed as it is written. No footer is written.
 */
#include "cli/render.h"

#include <stdlib.h>
#include <string.h>

typedef struct CsvState {
    bool streaming;
} CsvState;

static void csv_write_field(FILE *out, const char *text)
{
    if (text == NULL) {
        return;
    }
    bool quote = text[0] == '\0' || strpbrk(text, ",\"\r\n") != NULL;
    if (!quote) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '"') {
            fputc('"', out);
        }
        fputc(*c, out);
    }
    fputc('"', out);
}

static void csv_discard(Renderer *renderer)
{
    free(renderer->state);
    renderer->state = NULL;
}

static int csv_begin(Renderer *renderer, JoineryResultKind kind, const JoineryColumn *columns,
                     size_t column_count)
{
    CsvState *state = calloc(1, sizeof *state);
    if (state == NULL) {
        return -1;
    }
    renderer->state = state;
    state->streaming = kind == JOINERY_RESULT_CHANGELOG;
    FILE *out = renderer->out;
    bool first = true;
    if (state->streaming) {
        fputs("op", out);
        first = false;
    }
    for (size_t i = 0; i < column_count; i++) {
        if (!first) {
            fputc(',', out);
        }
        first = false;
        csv_write_field(out, columns[i].name != NULL ? columns[i].name : "");
    }
    fputc('\n', out);
    fflush(out);
    return 0;
}

static int csv_row(Renderer *renderer, JoineryRowKind kind, const char *const *values,
                   size_t column_count)
{
    CsvState *state = renderer->state;
    if (state == NULL) {
        return -1;
    }
    FILE *out = renderer->out;
    bool first = true;
    if (state->streaming) {
        static const char *const KIND_TEXT[] = {"+I", "-U", "+U", "-D"};
        fputs((unsigned)kind < 4 ? KIND_TEXT[kind] : "+I", out);
        first = false;
    }
    for (size_t i = 0; i < renderer->column_count; i++) {
        if (!first) {
            fputc(',', out);
        }
        first = false;
        csv_write_field(out, i < column_count ? values[i] : NULL);
    }
    fputc('\n', out);
    fflush(out);
    return 0;
}

static int csv_end(Renderer *renderer, uint64_t row_count, bool cancelled)
{
    (void)renderer;
    (void)row_count;
    (void)cancelled;
    return 0;
}

const RenderFormat RENDER_FORMAT_CSV = {
    .begin = csv_begin,
    .row = csv_row,
    .end = csv_end,
    .discard = csv_discard,
};
