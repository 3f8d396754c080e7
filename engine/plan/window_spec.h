/*
 * window_spec.h - a window of the window table functions (TUMBLE, HOP,
 * CUMULATE, SESSION) as plan nodes carry it and operators read it.
 *
 * The plan keeps it in the nodes that assign or consume windows
 * (WindowTableFunction, WindowJoin; window aggregation too); the operators
 * (exec/window/window_assigner.h) compute windows from it. Invariants of a
 * spec the binder made (window_spec_validate): every length is positive
 * and in milliseconds; CUMULATE's max size is a multiple of its step (as
 * Flink's assigner requires; HOP's size need not be); offset is any
 * value, only its remainder by the window's period matters; SESSION has a
 * gap and no offset.
 */
#ifndef JOINERY_PLAN_WINDOW_SPEC_H
#define JOINERY_PLAN_WINDOW_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/strbuf.h"

typedef enum WindowKind {
    WINDOW_TUMBLE,
    WINDOW_HOP,
    WINDOW_CUMULATE,
    WINDOW_SESSION,
} WindowKind;

typedef struct WindowSpec {
    WindowKind kind;
    int64_t size_millis;   /* TUMBLE and HOP: size; CUMULATE: max size */
    int64_t slide_millis;  /* HOP */
    int64_t step_millis;   /* CUMULATE */
    int64_t gap_millis;    /* SESSION */
    int64_t offset_millis; /* TUMBLE, HOP, CUMULATE; 0 = aligned to the epoch */
    bool has_offset;       /* written (EXPLAIN prints offset=[...] then, even 0) */
} WindowSpec;

/* "TUMBLE", "HOP", "CUMULATE", "SESSION". */
const char *window_kind_name(WindowKind kind);
/*
 * NULL when the spec is valid, else why not (a sentence naming the
 * argument, as Flink's validation says it).
 */
const char *window_spec_validate(const WindowSpec *spec);
/* True when both specs assign the same windows (kind and every length). */
bool window_spec_equal(const WindowSpec *a, const WindowSpec *b);
/*
 * Appends the spec's lengths in Flink's EXPLAIN order after the caller's
 * leading attributes: "size=[15 min]", "size=[10 min], slide=[5 min]",
 * "max_size=[1 h], step=[10 min]", "gap=[15 min]", then ", offset=[5 min]"
 * when one was written. Starts with ", " when `separator` is true.
 */
void window_spec_append_lengths(StrBuf *out, const WindowSpec *spec, bool separator);

#endif
