/*
 * window_assigner.c - window assignment and session merging
 * (window_assigner.h).
 */
#include "engine/exec/window/window_assigner.h"

#include <stdlib.h>
#include <string.h>

int64_t window_start_with_offset(int64_t timestamp, int64_t offset, int64_t size)
{
    int64_t remainder = (timestamp - offset % size) % size;
    if (remainder < 0)
        remainder += size;
    return timestamp - remainder;
}

uint32_t window_assign_max(const WindowSpec *spec)
{
    switch (spec->kind) {
    case WINDOW_TUMBLE:
        return 1;
    case WINDOW_HOP:
        return (uint32_t)((spec->size_millis + spec->slide_millis - 1) / spec->slide_millis);
    case WINDOW_CUMULATE:
        return (uint32_t)(spec->size_millis / spec->step_millis);
    case WINDOW_SESSION:
        return 0;
    }
    return 0;
}

uint32_t window_assign(const WindowSpec *spec, int64_t timestamp, WindowBounds *out,
                       uint32_t capacity)
{
    uint32_t count = 0;
    switch (spec->kind) {
    case WINDOW_TUMBLE: {
        int64_t start = window_start_with_offset(timestamp, spec->offset_millis, spec->size_millis);
        if (capacity > 0)
            out[0] = (WindowBounds){start, start + spec->size_millis};
        return 1;
    }
    case WINDOW_HOP: {
        /* every start on the slide grid in (timestamp - size, timestamp], latest first */
        int64_t last = window_start_with_offset(timestamp, spec->offset_millis, spec->slide_millis);
        for (int64_t start = last; start > timestamp - spec->size_millis;
             start -= spec->slide_millis) {
            if (count < capacity)
                out[count] = (WindowBounds){start, start + spec->size_millis};
            count++;
        }
        return count;
    }
    case WINDOW_CUMULATE: {
        /* the max-size window holding the timestamp, and every end of it from the
           step that holds the timestamp up */
        int64_t start = window_start_with_offset(timestamp, spec->offset_millis, spec->size_millis);
        int64_t last_end = start + spec->size_millis;
        int64_t first_end =
            window_start_with_offset(timestamp, spec->offset_millis, spec->step_millis) +
            spec->step_millis;
        for (int64_t end = first_end; end <= last_end; end += spec->step_millis) {
            if (count < capacity)
                out[count] = (WindowBounds){start, end};
            count++;
        }
        return count;
    }
    case WINDOW_SESSION:
        return 0;
    }
    return 0;
}

bool session_windows_add(SessionWindows *set, int64_t timestamp, int64_t gap, WindowBounds *result,
                         WindowBounds *absorbed, uint32_t absorbed_capacity,
                         uint32_t *absorbed_count)
{
    WindowBounds merged = {timestamp, timestamp + gap};
    /* the windows it intersects are contiguous in the sorted set: [first, last) */
    uint32_t first = 0;
    while (first < set->count && set->windows[first].end < merged.start)
        first++;
    uint32_t last = first;
    while (last < set->count && set->windows[last].start <= merged.end)
        last++;
    uint32_t taken = last - first;
    if (taken == 0 && set->count == set->capacity) {
        uint32_t capacity = set->capacity ? set->capacity * 2 : 4;
        WindowBounds *windows = realloc(set->windows, capacity * sizeof *windows);
        if (!windows)
            return false;
        set->windows = windows;
        set->capacity = capacity;
    }
    for (uint32_t i = first; i < last; i++) {
        const WindowBounds *window = &set->windows[i];
        if (i - first < absorbed_capacity && absorbed)
            absorbed[i - first] = *window;
        if (window->start < merged.start)
            merged.start = window->start;
        if (window->end > merged.end)
            merged.end = window->end;
    }
    if (absorbed_count)
        *absorbed_count = taken;
    if (taken == 0) {
        memmove(&set->windows[first + 1], &set->windows[first],
                (set->count - first) * sizeof *set->windows);
        set->count++;
    } else if (taken > 1) {
        memmove(&set->windows[first + 1], &set->windows[last],
                (set->count - last) * sizeof *set->windows);
        set->count -= taken - 1;
    }
    set->windows[first] = merged;
    *result = merged;
    return true;
}

bool session_windows_reserve(SessionWindows *set, uint32_t count)
{
    if (count <= set->capacity)
        return true;
    uint32_t capacity = set->capacity ? set->capacity : 4;
    while (capacity < count)
        capacity *= 2;
    WindowBounds *windows = realloc(set->windows, capacity * sizeof *windows);
    if (!windows)
        return false;
    set->windows = windows;
    set->capacity = capacity;
    return true;
}

uint32_t session_windows_remove_ended(SessionWindows *set, int64_t bound)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < set->count; i++)
        if (set->windows[i].end > bound)
            set->windows[kept++] = set->windows[i];
    uint32_t removed = set->count - kept;
    set->count = kept;
    return removed;
}

void session_windows_free(SessionWindows *set)
{
    free(set->windows);
    set->windows = NULL;
    set->count = set->capacity = 0;
}
