/*
 * arena.h - bump allocator with one lifetime for everything it hands out.
 *
 * Invariants: memory from an arena is 16-byte aligned, zero-initialised by
 * arena_calloc only, and freed all at once by arena_reset / arena_destroy.
 * Lifetimes used in joinery: session, statement (AST, plans), job
 * (operators), batch scratch (reset after each batch).
 * Allocation failure is fatal only for the process (out of memory); the
 * functions return NULL then and callers report JOINERY_ERROR_NO_MEMORY.
 */
#ifndef JOINERY_BASE_ARENA_H
#define JOINERY_BASE_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk ArenaChunk;

typedef struct Arena {
    ArenaChunk *head;       /* chunk currently allocated from */
    size_t chunk_size;      /* default size of a new chunk */
    size_t bytes_allocated; /* sum of all chunk capacities */
} Arena;

/* Initialises an empty arena; chunk_size 0 picks 64 KiB. Never fails. */
void arena_init(Arena *arena, size_t chunk_size);
/* Returns size bytes (16-byte aligned), or NULL when memory is exhausted. */
void *arena_alloc(Arena *arena, size_t size);
/* Like arena_alloc but zeroed. */
void *arena_calloc(Arena *arena, size_t count, size_t size);
/* Copies the NUL-terminated string (NULL gives NULL). */
char *arena_strdup(Arena *arena, const char *text);
/* Copies length bytes and adds a NUL terminator. */
char *arena_strndup(Arena *arena, const char *text, size_t length);
/* printf into arena memory. */
char *arena_printf(Arena *arena, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Frees everything but the first chunk, which is kept for reuse. */
void arena_reset(Arena *arena);
/* Frees all memory; the arena may be initialised again. */
void arena_destroy(Arena *arena);

#endif
