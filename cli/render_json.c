/*
 * render_json.c - JSON Lines output: one JSON object per row.
 *
 * Invariants:
 * - Streaming (CHANGELOG) rows start with "op" ("+I", "-U", "+U", "-D");
 *   then one key per column, named as the engine names it.
 * - JOINERY_VALUE_NUMBER values are written as JSON numbers when their text
 *   is a valid JSON number; anything else (NaN, Infinity, ...) as a string.
 *   BOOLEAN values "true"/"false" (any case) become true/false. SQL NULL is
 *   null. Everything else is a JSON string.
 * - Strings are escaped: quote, backslash, control characters, U+2028/U+2029;
 *   an ill-formed UTF-8 sequence becomes \ufffd (U+FFFD, as Java decodes
 *   it), so the output is always valid UTF-8 JSON.
 * - Every line is flushed as it is written; no header and no footer.
 */
#include "cli/render.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct JsonState {
    bool streaming;
    size_t column_count;
    char **names;
    JoineryValueClass *classes;
} JsonState;

static int json_write_bytes(void *context, const char *bytes, size_t length)
{
    fwrite(bytes, 1, length, context);
    return 0;
}

/* The engine's JSON string escaper, in its valid-UTF-8 flavour (engine.h). */
static void json_write_string(FILE *out, const char *text)
{
    joinery_json_quote(text, strlen(text), json_write_bytes, out);
}

/* True when text is a number as RFC 8259 spells it. */
static bool json_is_number(const char *text)
{
    const char *c = text;
    if (*c == '-') {
        c++;
    }
    if (*c == '0') {
        c++;
    } else if (*c >= '1' && *c <= '9') {
        while (*c >= '0' && *c <= '9') {
            c++;
        }
    } else {
        return false;
    }
    if (*c == '.') {
        c++;
        if (!(*c >= '0' && *c <= '9')) {
            return false;
        }
        while (*c >= '0' && *c <= '9') {
            c++;
        }
    }
    if (*c == 'e' || *c == 'E') {
        c++;
        if (*c == '+' || *c == '-') {
            c++;
        }
        if (!(*c >= '0' && *c <= '9')) {
            return false;
        }
        while (*c >= '0' && *c <= '9') {
            c++;
        }
    }
    return *c == '\0';
}

static void json_write_value(FILE *out, JoineryValueClass value_class, const char *text)
{
    if (text == NULL) {
        fputs("null", out);
    } else if (value_class == JOINERY_VALUE_NUMBER && json_is_number(text)) {
        fputs(text, out);
    } else if (value_class == JOINERY_VALUE_BOOLEAN && strcasecmp(text, "true") == 0) {
        fputs("true", out);
    } else if (value_class == JOINERY_VALUE_BOOLEAN && strcasecmp(text, "false") == 0) {
        fputs("false", out);
    } else {
        json_write_string(out, text);
    }
}

static void json_discard(Renderer *renderer)
{
    JsonState *state = renderer->state;
    if (state == NULL) {
        return;
    }
    if (state->names != NULL) {
        for (size_t i = 0; i < state->column_count; i++) {
            free(state->names[i]);
        }
    }
    free(state->names);
    free(state->classes);
    free(state);
    renderer->state = NULL;
}

static int json_begin(Renderer *renderer, JoineryResultKind kind, const JoineryColumn *columns,
                      size_t column_count)
{
    JsonState *state = calloc(1, sizeof *state);
    if (state == NULL) {
        return -1;
    }
    renderer->state = state;
    state->streaming = kind == JOINERY_RESULT_CHANGELOG;
    state->column_count = column_count;
    state->names = calloc(column_count + 1, sizeof *state->names);
    state->classes = calloc(column_count + 1, sizeof *state->classes);
    if (state->names == NULL || state->classes == NULL) {
        return -1;
    }
    for (size_t i = 0; i < column_count; i++) {
        const char *name = columns[i].name != NULL ? columns[i].name : "";
        size_t length = strlen(name);
        state->names[i] = malloc(length + 1);
        if (state->names[i] == NULL) {
            return -1;
        }
        memcpy(state->names[i], name, length + 1);
        state->classes[i] = columns[i].value_class;
    }
    return 0;
}

static int json_row(Renderer *renderer, JoineryRowKind kind, const char *const *values,
                    size_t column_count)
{
    JsonState *state = renderer->state;
    if (state == NULL) {
        return -1;
    }
    FILE *out = renderer->out;
    fputc('{', out);
    bool first = true;
    if (state->streaming) {
        static const char *const KIND_TEXT[] = {"+I", "-U", "+U", "-D"};
        fprintf(out, "\"op\":\"%s\"", (unsigned)kind < 4 ? KIND_TEXT[kind] : "+I");
        first = false;
    }
    for (size_t i = 0; i < state->column_count; i++) {
        if (!first) {
            fputc(',', out);
        }
        first = false;
        json_write_string(out, state->names[i]);
        fputc(':', out);
        json_write_value(out, state->classes[i], i < column_count ? values[i] : NULL);
    }
    fputs("}\n", out);
    fflush(out);
    return 0;
}

static int json_end(Renderer *renderer, uint64_t row_count, bool cancelled)
{
    (void)renderer;
    (void)row_count;
    (void)cancelled;
    return 0;
}

const RenderFormat RENDER_FORMAT_JSON = {
    .begin = json_begin,
    .row = json_row,
    .end = json_end,
    .discard = json_discard,
};
