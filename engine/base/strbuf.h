/*
 * strbuf.h - growable, always NUL-terminated byte string on the heap.
 *
 * Invariant: data[length] == '\0' whenever data != NULL. Functions return 0,
 * or -1 when memory is exhausted (the buffer is then left unchanged).
 */
#ifndef JOINERY_BASE_STRBUF_H
#define JOINERY_BASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct StrBuf {
    char *data;
    size_t length;
    size_t capacity;
} StrBuf;

#define STRBUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

int strbuf_reserve(StrBuf *buffer, size_t extra);
int strbuf_append(StrBuf *buffer, const char *text, size_t length);
int strbuf_append_cstr(StrBuf *buffer, const char *text);
int strbuf_append_char(StrBuf *buffer, char c);
int strbuf_printf(StrBuf *buffer, const char *format, ...) __attribute__((format(printf, 2, 3)));
int strbuf_vprintf(StrBuf *buffer, const char *format, va_list args);
/*
 * Replaces every NUL byte from offset `from` on by U+2400 SYMBOL FOR NULL
 * ("\xe2\x90\x80", shown as a small "NUL"), so text that holds NUL bytes
 * (a SQL string may) survives being handed on as a C string and shows where
 * the NUL was. joinery's one rendering of NUL for people (the shell's
 * results, the print sink, EXPLAIN). 0, or -1 on no memory (unchanged).
 */
int strbuf_show_nul(StrBuf *buffer, size_t from);
/* Empties the buffer, keeping its memory. */
void strbuf_clear(StrBuf *buffer);
/* Returns the text ("" for an empty buffer); valid until the next change. */
const char *strbuf_cstr(const StrBuf *buffer);
/* Gives the heap string to the caller (free() it); the buffer becomes empty. */
char *strbuf_detach(StrBuf *buffer);
void strbuf_free(StrBuf *buffer);

#endif
