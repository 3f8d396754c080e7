/*
 * arena.c - chunked bump allocator (see arena.h for the contract).
 */
#include "engine/base/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *next;
    size_t capacity;
    size_t used;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_ALIGNMENT = 16, ARENA_DEFAULT_CHUNK = 64 * 1024 };

void arena_init(Arena *arena, size_t chunk_size)
{
    arena->head = NULL;
    arena->chunk_size = chunk_size ? chunk_size : ARENA_DEFAULT_CHUNK;
    arena->bytes_allocated = 0;
}

static ArenaChunk *arena_chunk_new(size_t capacity)
{
    ArenaChunk *chunk = malloc(sizeof(ArenaChunk) + capacity);
    if (!chunk)
        return NULL;
    chunk->next = NULL;
    chunk->capacity = capacity;
    chunk->used = 0;
    return chunk;
}

void *arena_alloc(Arena *arena, size_t size)
{
    size_t rounded = (size + ARENA_ALIGNMENT - 1) & ~(size_t)(ARENA_ALIGNMENT - 1);
    if (rounded == 0)
        rounded = ARENA_ALIGNMENT;
    ArenaChunk *chunk = arena->head;
    if (!chunk || chunk->capacity - chunk->used < rounded) {
        size_t capacity = arena->chunk_size;
        if (capacity < rounded)
            capacity = rounded;
        ArenaChunk *fresh = arena_chunk_new(capacity);
        if (!fresh)
            return NULL;
        fresh->next = chunk;
        arena->head = fresh;
        arena->bytes_allocated += capacity;
        chunk = fresh;
    }
    void *result = chunk->data + chunk->used;
    chunk->used += rounded;
    return result;
}

void *arena_calloc(Arena *arena, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *memory = arena_alloc(arena, count * size);
    if (memory)
        memset(memory, 0, count * size);
    return memory;
}

char *arena_strndup(Arena *arena, const char *text, size_t length)
{
    char *copy = arena_alloc(arena, length + 1);
    if (!copy)
        return NULL;
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

char *arena_strdup(Arena *arena, const char *text)
{
    return text ? arena_strndup(arena, text, strlen(text)) : NULL;
}

char *arena_printf(Arena *arena, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (length < 0)
        return NULL;
    char *text = arena_alloc(arena, (size_t)length + 1);
    if (!text)
        return NULL;
    va_start(args, format);
    vsnprintf(text, (size_t)length + 1, format, args);
    va_end(args);
    return text;
}

void arena_reset(Arena *arena)
{
    ArenaChunk *chunk = arena->head;
    if (!chunk)
        return;
    /* keep the oldest chunk (the last in the list) */
    while (chunk->next) {
        ArenaChunk *next = chunk->next;
        arena->bytes_allocated -= chunk->capacity;
        free(chunk);
        chunk = next;
    }
    chunk->used = 0;
    arena->head = chunk;
}

void arena_destroy(Arena *arena)
{
    ArenaChunk *chunk = arena->head;
    while (chunk) {
        ArenaChunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    arena->head = NULL;
    arena->bytes_allocated = 0;
}
