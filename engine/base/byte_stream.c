/*
 * byte_stream.c - the in-memory byte buffer of byte_stream.h.
 */
#include "engine/base/byte_stream.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/diag.h"

static int byte_buffer_write(void *context, const void *bytes, size_t length)
{
    ByteBuffer *buffer = context;
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

static int byte_buffer_read(void *context, void *bytes, size_t length)
{
    ByteBuffer *buffer = context;
    if (length > buffer->length - buffer->read_offset)
        return JOINERY_ERROR;
    if (length)
        memcpy(bytes, buffer->bytes + buffer->read_offset, length);
    buffer->read_offset += length;
    return JOINERY_OK;
}

ByteWriter byte_buffer_writer(ByteBuffer *buffer)
{
    ByteWriter writer = {byte_buffer_write, buffer};
    return writer;
}

ByteReader byte_buffer_reader(ByteBuffer *buffer)
{
    ByteReader reader = {byte_buffer_read, buffer};
    return reader;
}

void byte_buffer_free(ByteBuffer *buffer)
{
    free(buffer->bytes);
    memset(buffer, 0, sizeof *buffer);
}
