/*
 * split_watermarks.h - one watermark per source split (Kafka partition),
 * combined as Flink's WatermarkOutputMultiplexer does for a source reader
 * with per-split watermarks, with Flink's idleness (WatermarksWithIdleness,
 * table.exec.source.idle-timeout).
 *
 * Per split: the largest watermark value of its records (the pushed
 * watermark expression evaluated per record) and the processing time of its
 * last record. The combined watermark is the minimum over the splits that
 * are neither idle nor finished; a split without records yet holds it back
 * (unless idle). A split with no record for idle_timeout_millis (processing
 * time, counted from assignment for a split that never had one) is idle and
 * holds nothing back until its next record reactivates it. A finished split
 * (bounded read at its end) never holds back again. When every split is idle
 * or finished the combined watermark does not move, and with an idle
 * timeout the source is idle (split_watermarks_source_idle): it announces
 * WatermarkStatus IDLE downstream until a record arrives.
 *
 * Invariants: the combined watermark only moves forward; INT64_MIN means
 * "no watermark yet". Single-threaded: one per source subtask.
 */
#ifndef JOINERY_EXEC_SPLIT_WATERMARKS_H
#define JOINERY_EXEC_SPLIT_WATERMARKS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct SplitWatermark {
    int64_t maximum;     /* largest record watermark; INT64_MIN before the first */
    int64_t last_active; /* processing time of the last record (or of assignment) */
    bool idle;
    bool finished;
} SplitWatermark;

typedef struct SplitWatermarks {
    SplitWatermark *splits;
    uint32_t count;
    int64_t idle_timeout_millis; /* 0: splits never become idle */
    int64_t current;             /* combined watermark emitted so far; INT64_MIN: none */
    int64_t assigned_millis;     /* when the splits were assigned (init) */
} SplitWatermarks;

/*
 * Prepares `count` splits (0 is allowed: a reader without splits is idle),
 * all assigned at `now_millis`. Returns false when memory is exhausted.
 */
bool split_watermarks_init(SplitWatermarks *watermarks, uint32_t count, int64_t idle_timeout_millis,
                           int64_t now_millis);
/* Frees the splits. Safe on a zeroed or already freed struct. */
void split_watermarks_free(SplitWatermarks *watermarks);
/*
 * A record of `split` (< count) arrived at `now_millis` with watermark value
 * `watermark` (INT64_MIN when the expression was NULL: activity only). The
 * split becomes active again if it was idle.
 */
void split_watermarks_observe(SplitWatermarks *watermarks, uint32_t split, int64_t watermark,
                              int64_t now_millis);
/* `split` reached its end (bounded read): it no longer holds the watermark back. */
void split_watermarks_finish(SplitWatermarks *watermarks, uint32_t split);
/*
 * Marks splits idle whose last record is idle_timeout_millis or more before
 * `now_millis`, then recomputes the combined watermark. Returns true when
 * it advanced, with the new value in *watermark (also in ->current).
 */
bool split_watermarks_update(SplitWatermarks *watermarks, int64_t now_millis, int64_t *watermark);
/* True when no split holds the watermark (every one idle or finished). */
bool split_watermarks_all_idle(const SplitWatermarks *watermarks);
/*
 * True when the source as a whole is idle at `now_millis` (as of the last
 * update): an idle timeout is set and every split is idle or finished; a
 * reader without splits is idle once the timeout passed since assignment.
 * Without an idle timeout a source is never idle (Flink: a Kafka reader
 * with more subtasks than partitions needs the timeout).
 */
bool split_watermarks_source_idle(const SplitWatermarks *watermarks, int64_t now_millis);

#endif
