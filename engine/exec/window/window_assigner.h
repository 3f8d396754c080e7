/*
 * window_assigner.h - the windows a row's time falls into, for the window
 * table functions, window joins and window aggregation (Flink's
 * TumblingWindowAssigner, SlidingWindowAssigner, CumulativeWindowAssigner
 * and the merging of session windows).
 *
 * Windows are half-open [start, end) in epoch milliseconds. Invariants:
 * - window_assign gives every window of a TUMBLE, HOP or CUMULATE spec
 *   (plan/window_spec.h) that contains the timestamp, in Flink's order:
 *   HOP from the latest start down, CUMULATE from the earliest end up;
 * - a window start is the largest start <= the timestamp on the grid
 *   offset + k * period (period: TUMBLE size, HOP slide, CUMULATE max
 *   size), for negative timestamps and offsets too;
 * - session windows (SessionWindows) are sorted by start and pairwise
 *   apart: adding a row's window [t, t + gap) merges every window it
 *   intersects, ends included (Flink's TimeWindow.intersects), so windows
 *   that touch become one.
 * Nothing here allocates except SessionWindows, which owns its array.
 */
#ifndef JOINERY_EXEC_WINDOW_WINDOW_ASSIGNER_H
#define JOINERY_EXEC_WINDOW_WINDOW_ASSIGNER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/plan/window_spec.h"

typedef struct WindowBounds {
    int64_t start; /* inclusive */
    int64_t end;   /* exclusive */
} WindowBounds;

/* The largest start <= timestamp on the grid offset + k * size (size > 0). */
int64_t window_start_with_offset(int64_t timestamp, int64_t offset, int64_t size);

/* How many windows window_assign can give for the spec at most (0 for SESSION). */
uint32_t window_assign_max(const WindowSpec *spec);

/*
 * Writes the windows of `timestamp` under a TUMBLE, HOP or CUMULATE spec
 * into out[0..capacity-1] and returns how many there are (never more than
 * window_assign_max; capacity must be at least that). SESSION: 0 (its
 * windows are known only once merged, SessionWindows).
 */
uint32_t window_assign(const WindowSpec *spec, int64_t timestamp, WindowBounds *out,
                       uint32_t capacity);

/* The session windows of one key, sorted by start, apart from each other. */
typedef struct SessionWindows {
    WindowBounds *windows; /* owned */
    uint32_t count;
    uint32_t capacity;
} SessionWindows;

/*
 * Adds the window [timestamp, timestamp + gap) and merges it with every
 * window it intersects (ends included). *result gets the merged window;
 * absorbed[0..*absorbed_count-1] (absorbed may be NULL; capacity
 * absorbed_capacity, the count is the full number even past it) get the
 * windows that were in the set before and are now part of *result.
 * Returns false when memory is exhausted (the set is then unchanged).
 */
bool session_windows_add(SessionWindows *set, int64_t timestamp, int64_t gap, WindowBounds *result,
                         WindowBounds *absorbed, uint32_t absorbed_capacity,
                         uint32_t *absorbed_count);
/* Makes room for `count` windows in all (a caller filling the array itself); false on no memory. */
bool session_windows_reserve(SessionWindows *set, uint32_t count);
/* Removes the windows with end <= bound (those a watermark has passed); returns how many. */
uint32_t session_windows_remove_ended(SessionWindows *set, int64_t bound);
/* Frees the array. Safe on a zeroed set. */
void session_windows_free(SessionWindows *set);

#endif
