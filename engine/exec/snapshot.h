/*
 * snapshot.h - the seams of checkpoints (Flink's aligned checkpoint
 * barriers): the barrier that flows with the data, where the snapshots
 * taken at a barrier go, and an in-memory byte stream to hold one.
 *
 * Checkpoints (checkpoint.h) are the storage of these snapshots. A barrier
 * starts at the sources (job_trigger_barrier, job.h), travels in order with rows and watermarks
 * through exchanges (to every downstream channel), channels and mailboxes,
 * and is aligned at every operator (operator.h: "Barriers"); there the
 * operator's snapshot entry writes its state and the barrier moves on.
 */
#ifndef JOINERY_EXEC_SNAPSHOT_H
#define JOINERY_EXEC_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/state/state.h"

/* A checkpoint barrier (Flink's CheckpointBarrier). */
typedef struct Barrier {
    int64_t checkpoint_id; /* increases from 1 */
    int64_t timestamp;     /* processing time (ms) when it was triggered */
} Barrier;

typedef struct Operator Operator;

/* The in-memory stream a snapshot is taken into (byte_stream.h). */
typedef ByteBuffer SnapshotBuffer;

/*
 * Where snapshots go (the checkpoints, job_checkpoint.c). `store` is called
 * once per operator and barrier when the operator has aligned it, with the
 * bytes its snapshot wrote (length 0: a stateless operator, or a source
 * starting the barrier), before the barrier moves downstream. It runs on
 * the operator's task thread, so tasks call it concurrently; the bytes are
 * valid during the call. A status other than JOINERY_OK fails the job.
 */
typedef struct SnapshotStorage {
    int (*store)(void *context, Operator *op, const Barrier *barrier, const void *bytes,
                 size_t length);
    void *context;
    /* Optional: instead of `store`, takes the snapshot's buffer over (the storage frees it
       with snapshot_buffer_free, also on failure), so that writing it out need not hold up
       the operator's task (checkpoints write files on a thread of their own). */
    int (*store_buffer)(void *context, Operator *op, const Barrier *barrier,
                        SnapshotBuffer *buffer);
    /* Optional (NULL: not told). `finished`: op's every input ended (called on its thread
       before the end goes downstream); it takes no more snapshots, and checkpoints still
       waiting for it count it as finished. */
    void (*finished)(void *context, Operator *op);
    /* Optional, for the sink's end of input (op_sink.c): final_id gives the id of a last
       checkpoint to take (0: none); store_final stores the sink's snapshot as that
       checkpoint, every other operator finished, and completes it before the sink makes
       its output visible, so a crash after that restores to "all done". */
    int64_t (*final_id)(void *context);
    int (*store_final)(void *context, Operator *op, const Barrier *barrier, const void *bytes,
                       size_t length);
    /* Optional (NULL: no): whether the states of the snapshots taken at `barrier` may be
       references into their task's LMDB environment copy (state.h), on the task's thread. */
    bool (*states_by_copy)(void *context, const Barrier *barrier);
} SnapshotStorage;

/* A writer appending to `buffer` (empty: {0}) and a reader of it from read_offset. */
static inline StateWriter snapshot_buffer_writer(SnapshotBuffer *buffer)
{
    return byte_buffer_writer(buffer);
}
static inline StateReader snapshot_buffer_reader(SnapshotBuffer *buffer)
{
    return byte_buffer_reader(buffer);
}
/* Frees the bytes; the buffer is empty again. */
static inline void snapshot_buffer_free(SnapshotBuffer *buffer)
{
    byte_buffer_free(buffer);
}

#endif
