/*
 * window_spec.c - names, validation, comparison and EXPLAIN text of a
 * window spec (window_spec.h).
 */
#include "engine/plan/window_spec.h"

#include "engine/base/duration.h"

const char *window_kind_name(WindowKind kind)
{
    switch (kind) {
    case WINDOW_TUMBLE:
        return "TUMBLE";
    case WINDOW_HOP:
        return "HOP";
    case WINDOW_CUMULATE:
        return "CUMULATE";
    case WINDOW_SESSION:
        return "SESSION";
    }
    return "?";
}

const char *window_spec_validate(const WindowSpec *spec)
{
    switch (spec->kind) {
    case WINDOW_TUMBLE:
        if (spec->size_millis <= 0)
            return "TUMBLE table function requires size must be > 0";
        return NULL;
    case WINDOW_HOP:
        if (spec->size_millis <= 0 || spec->slide_millis <= 0)
            return "HOP table function requires slide > 0 and size > 0";
        return NULL;
    case WINDOW_CUMULATE:
        if (spec->size_millis <= 0 || spec->step_millis <= 0)
            return "CUMULATE table function requires step > 0 and max size > 0";
        if (spec->size_millis % spec->step_millis != 0)
            return "CUMULATE table function requires max size must be an integral multiple of "
                   "step";
        return NULL;
    case WINDOW_SESSION:
        if (spec->gap_millis <= 0)
            return "SESSION table function requires gap must be > 0";
        return NULL;
    }
    return "unknown window";
}

bool window_spec_equal(const WindowSpec *a, const WindowSpec *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case WINDOW_TUMBLE:
        return a->size_millis == b->size_millis && a->offset_millis == b->offset_millis;
    case WINDOW_HOP:
        return a->size_millis == b->size_millis && a->slide_millis == b->slide_millis &&
               a->offset_millis == b->offset_millis;
    case WINDOW_CUMULATE:
        return a->size_millis == b->size_millis && a->step_millis == b->step_millis &&
               a->offset_millis == b->offset_millis;
    case WINDOW_SESSION:
        return a->gap_millis == b->gap_millis;
    }
    return false;
}

static void append_length(StrBuf *out, bool *separator, const char *name, int64_t millis)
{
    char text[48];
    strbuf_printf(out, "%s%s=[%s]", *separator ? ", " : "", name,
                  duration_format(millis, text, sizeof text));
    *separator = true;
}

void window_spec_append_lengths(StrBuf *out, const WindowSpec *spec, bool separator)
{
    switch (spec->kind) {
    case WINDOW_TUMBLE:
        append_length(out, &separator, "size", spec->size_millis);
        break;
    case WINDOW_HOP:
        append_length(out, &separator, "size", spec->size_millis);
        append_length(out, &separator, "slide", spec->slide_millis);
        break;
    case WINDOW_CUMULATE:
        append_length(out, &separator, "max_size", spec->size_millis);
        append_length(out, &separator, "step", spec->step_millis);
        break;
    case WINDOW_SESSION:
        append_length(out, &separator, "gap", spec->gap_millis);
        return;
    }
    if (spec->has_offset)
        append_length(out, &separator, "offset", spec->offset_millis);
}
