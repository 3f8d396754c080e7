/*
 * statements.c - the input buffer that cuts text into statements (see cli.h).
 *
 * Boundaries come from the engine (joinery_statement_end) so the CLI and the
 * engine agree. Positions: a '\n' starts a new line at column 1; any other
 * character advances the column by one, a UTF-8 continuation byte does not.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

void statement_buffer_init(StatementBuffer *buffer, int first_line)
{
    memset(buffer, 0, sizeof *buffer);
    statement_buffer_reset(buffer, first_line);
}

void statement_buffer_free(StatementBuffer *buffer)
{
    free(buffer->text);
    memset(buffer, 0, sizeof *buffer);
}

void statement_buffer_reset(StatementBuffer *buffer, int first_line)
{
    buffer->length = 0;
    if (buffer->text != NULL) {
        buffer->text[0] = '\0';
    }
    buffer->base_line = first_line;
    buffer->scan_offset = 0;
    buffer->scan_line = first_line;
    buffer->scan_column = 1;
}

int statement_buffer_append(StatementBuffer *buffer, const char *text, size_t length)
{
    if (buffer->length + length + 1 > buffer->capacity) {
        size_t capacity = buffer->capacity == 0 ? 256 : buffer->capacity;
        while (capacity < buffer->length + length + 1) {
            capacity *= 2;
        }
        char *grown = realloc(buffer->text, capacity);
        if (grown == NULL) {
            return -1;
        }
        buffer->text = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->text + buffer->length, text, length);
    buffer->length += length;
    buffer->text[buffer->length] = '\0';
    return 0;
}

/* Moves (line, column) over text[0..length-1]. */
static void statement_advance(const char *text, size_t length, int *line, int *column)
{
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            (*line)++;
            *column = 1;
        } else if ((c & 0xC0) != 0x80) {
            (*column)++;
        }
    }
}

bool statement_buffer_next(StatementBuffer *buffer, Statement *statement, bool at_end)
{
    while (buffer->scan_offset < buffer->length) {
        const char *rest = buffer->text + buffer->scan_offset;
        size_t rest_length = buffer->length - buffer->scan_offset;
        bool blank = false;
        size_t end = joinery_statement_end(rest, rest_length, &blank);
        if (end == 0) {
            if (!at_end || blank) {
                return false;
            }
            end = rest_length;
        }
        size_t start = joinery_statement_skip_blank(rest, end);
        int line = buffer->scan_line;
        int column = buffer->scan_column;
        statement_advance(rest, start, &line, &column);
        statement->text = rest + start;
        statement->length = end - start;
        statement->line = line;
        statement->column = column;
        statement->blank = blank;
        statement_advance(rest, end, &buffer->scan_line, &buffer->scan_column);
        buffer->scan_offset += end;
        return true;
    }
    return false;
}

bool statement_buffer_pending_is_blank(const StatementBuffer *buffer)
{
    if (buffer->scan_offset >= buffer->length) {
        return true;
    }
    bool blank = false;
    size_t end = joinery_statement_end(buffer->text + buffer->scan_offset,
                                       buffer->length - buffer->scan_offset, &blank);
    return end == 0 && blank;
}

void statement_buffer_compact(StatementBuffer *buffer)
{
    size_t line_start = buffer->scan_offset;
    while (line_start > 0 && buffer->text[line_start - 1] != '\n') {
        line_start--;
    }
    if (line_start == 0) {
        return;
    }
    for (size_t i = 0; i < line_start; i++) {
        if (buffer->text[i] == '\n') {
            buffer->base_line++;
        }
    }
    memmove(buffer->text, buffer->text + line_start, buffer->length - line_start + 1);
    buffer->length -= line_start;
    buffer->scan_offset -= line_start;
}
