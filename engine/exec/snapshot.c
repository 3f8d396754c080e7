/*
 * snapshot.c - the in-memory snapshot byte stream (see snapshot.h).
 */
#include "engine/exec/snapshot.h"

#include <stdlib.h>
#include <string.h>

static int snapshot_buffer_write(void *context, const void *bytes, size_t length)
{
    SnapshotBuffer *buffer = context;
    if (length > buffer->capacity - buffer->length) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity - buffer->length < length)
            capacity *= 2;
        unsigned char *grown = realloc(buffer->bytes, capacity);
        if (!grown)
            return JOINERY_ERROR_NO_MEMORY;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    if (length)
        memcpy(buffer->bytes + buffer->length, bytes, length);
    buffer->length += length;
    return JOINERY_OK;
}

static int snapshot_buffer_read(void *context, void *bytes, size_t length)
{
    SnapshotBuffer *buffer = context;
    if (length > buffer->length - buffer->read_offset)
        return JOINERY_ERROR;
    if (length)
        memcpy(bytes, buffer->bytes + buffer->read_offset, length);
    buffer->read_offset += length;
    return JOINERY_OK;
}

StateWriter snapshot_buffer_writer(SnapshotBuffer *buffer)
{
    StateWriter writer = {snapshot_buffer_write, buffer};
    return writer;
}

StateReader snapshot_buffer_reader(SnapshotBuffer *buffer)
{
    StateReader reader = {snapshot_buffer_read, buffer};
    return reader;
}

void snapshot_buffer_free(SnapshotBuffer *buffer)
{
    free(buffer->bytes);
    memset(buffer, 0, sizeof *buffer);
}
