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

/* A growable byte stream in memory: writers append, readers consume from read_offset. */
typedef struct ByteBuffer {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    size_t read_offset;
} ByteBuffer;

/* A writer appending to `buffer` (empty: {0}; JOINERY_ERROR_NO_MEMORY when it cannot grow)
   and a reader of it from read_offset (JOINERY_ERROR past its end). */
ByteWriter byte_buffer_writer(ByteBuffer *buffer);
ByteReader byte_buffer_reader(ByteBuffer *buffer);
/* Frees the bytes; the buffer is empty again. */
void byte_buffer_free(ByteBuffer *buffer);

#endif
