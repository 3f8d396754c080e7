/*
 * strbuf.c - growable string (see strbuf.h).
 */
#include "engine/base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int strbuf_reserve(StrBuf *buffer, size_t extra)
{
    size_t needed = buffer->length + extra + 1;
    if (needed <= buffer->capacity)
        return 0;
    size_t capacity = buffer->capacity ? buffer->capacity : 64;
    while (capacity < needed)
        capacity *= 2;
    char *data = realloc(buffer->data, capacity);
    if (!data)
        return -1;
    if (!buffer->data)
        data[0] = '\0';
    buffer->data = data;
    buffer->capacity = capacity;
    return 0;
}

int strbuf_append(StrBuf *buffer, const char *text, size_t length)
{
    if (strbuf_reserve(buffer, length) != 0)
        return -1;
    memcpy(buffer->data + buffer->length, text, length);
    buffer->length += length;
    buffer->data[buffer->length] = '\0';
    return 0;
}

int strbuf_append_cstr(StrBuf *buffer, const char *text)
{
    return strbuf_append(buffer, text, strlen(text));
}

int strbuf_append_char(StrBuf *buffer, char c)
{
    return strbuf_append(buffer, &c, 1);
}

int strbuf_vprintf(StrBuf *buffer, const char *format, va_list args)
{
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (length < 0 || strbuf_reserve(buffer, (size_t)length) != 0)
        return -1;
    vsnprintf(buffer->data + buffer->length, (size_t)length + 1, format, args);
    buffer->length += (size_t)length;
    return 0;
}

int strbuf_printf(StrBuf *buffer, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int status = strbuf_vprintf(buffer, format, args);
    va_end(args);
    return status;
}

void strbuf_clear(StrBuf *buffer)
{
    buffer->length = 0;
    if (buffer->data)
        buffer->data[0] = '\0';
}

const char *strbuf_cstr(const StrBuf *buffer)
{
    return buffer->data ? buffer->data : "";
}

char *strbuf_detach(StrBuf *buffer)
{
    char *data = buffer->data;
    if (!data) {
        data = malloc(1);
        if (data)
            data[0] = '\0';
    }
    buffer->data = NULL;
    buffer->length = buffer->capacity = 0;
    return data;
}

void strbuf_free(StrBuf *buffer)
{
    free(buffer->data);
    buffer->data = NULL;
    buffer->length = buffer->capacity = 0;
}

int strbuf_show_nul(StrBuf *buffer, size_t from)
{
    size_t count = 0;
    for (size_t i = from; i < buffer->length; i++)
        count += buffer->data[i] == '\0';
    if (count == 0)
        return 0;
    if (strbuf_reserve(buffer, 2 * count) != 0)
        return -1;
    /* from the end, so every byte moves once */
    size_t read = buffer->length, write = buffer->length + 2 * count;
    buffer->data[write] = '\0';
    while (read > from) {
        char c = buffer->data[--read];
        if (c == '\0') {
            buffer->data[--write] = '\x80';
            buffer->data[--write] = '\x90';
            buffer->data[--write] = '\xe2';
        } else {
            buffer->data[--write] = c;
        }
    }
    buffer->length += 2 * count;
    return 0;
}
