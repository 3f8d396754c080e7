/*
 * byte_stream.h - the byte streams snapshots are written to and read from:
 * state snapshots (engine/state/state.h: StateWriter / StateReader are these
 * types), sources' positions and sinks' pending files (engine/connector),
 * and the checkpoint files that hold them (engine/exec/checkpoint_store.h).
 *
 * write appends `length` bytes; read consumes exactly `length` bytes and
 * fails when fewer remain. Both return JOINERY_OK or an error status and
 * never fill a Diag: the caller names what it was writing.
 */
#ifndef JOINERY_BASE_BYTE_STREAM_H
#define JOINERY_BASE_BYTE_STREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct ByteWriter {
    int (*write)(void *context, const void *bytes, size_t length);
    void *context;
} ByteWriter;

typedef struct ByteReader {
    int (*read)(void *context, void *bytes, size_t length);
    void *context;
} ByteReader;

/* A 64-bit integer in host byte order (snapshots are read back on the host that wrote
   them: the state snapshot header records the byte order). 0 or the stream's status. */
static inline int byte_write_int64(const ByteWriter *out, int64_t value)
{
    return out->write(out->context, &value, sizeof value);
}

static inline int byte_read_int64(const ByteReader *in, int64_t *value)
{
    return in->read(in->context, value, sizeof *value);
}

#endif
