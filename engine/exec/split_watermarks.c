/*
 * split_watermarks.c - per-split watermarks and their combination (see
 * split_watermarks.h).
 */
#include "engine/exec/split_watermarks.h"

#include <stdlib.h>

bool split_watermarks_init(SplitWatermarks *watermarks, uint32_t count, int64_t idle_timeout_millis,
                           int64_t now_millis)
{
    watermarks->splits = calloc(count ? count : 1, sizeof *watermarks->splits);
    if (!watermarks->splits)
        return false;
    watermarks->count = count;
    watermarks->idle_timeout_millis = idle_timeout_millis > 0 ? idle_timeout_millis : 0;
    watermarks->current = INT64_MIN;
    watermarks->assigned_millis = now_millis;
    for (uint32_t i = 0; i < count; i++) {
        watermarks->splits[i].maximum = INT64_MIN;
        watermarks->splits[i].last_active = now_millis;
    }
    return true;
}

void split_watermarks_free(SplitWatermarks *watermarks)
{
    free(watermarks->splits);
    watermarks->splits = NULL;
    watermarks->count = 0;
}

void split_watermarks_observe(SplitWatermarks *watermarks, uint32_t split, int64_t watermark,
                              int64_t now_millis)
{
    if (split >= watermarks->count)
        return;
    SplitWatermark *state = &watermarks->splits[split];
    state->idle = false;
    state->last_active = now_millis;
    if (watermark > state->maximum)
        state->maximum = watermark;
}

void split_watermarks_finish(SplitWatermarks *watermarks, uint32_t split)
{
    if (split < watermarks->count)
        watermarks->splits[split].finished = true;
}

bool split_watermarks_update(SplitWatermarks *watermarks, int64_t now_millis, int64_t *watermark)
{
    int64_t minimum = INT64_MAX;
    bool any_active = false;
    for (uint32_t i = 0; i < watermarks->count; i++) {
        SplitWatermark *state = &watermarks->splits[i];
        if (state->finished)
            continue;
        if (watermarks->idle_timeout_millis > 0 &&
            now_millis - state->last_active >= watermarks->idle_timeout_millis)
            state->idle = true;
        if (state->idle)
            continue;
        any_active = true;
        if (state->maximum < minimum)
            minimum = state->maximum;
    }
    if (!any_active || minimum == INT64_MIN || minimum <= watermarks->current)
        return false;
    watermarks->current = minimum;
    *watermark = minimum;
    return true;
}

bool split_watermarks_all_idle(const SplitWatermarks *watermarks)
{
    for (uint32_t i = 0; i < watermarks->count; i++)
        if (!watermarks->splits[i].finished && !watermarks->splits[i].idle)
            return false;
    return true;
}

bool split_watermarks_source_idle(const SplitWatermarks *watermarks, int64_t now_millis)
{
    if (watermarks->idle_timeout_millis <= 0 || !split_watermarks_all_idle(watermarks))
        return false;
    return watermarks->count > 0 ||
           now_millis - watermarks->assigned_millis >= watermarks->idle_timeout_millis;
}
