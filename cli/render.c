/*
 * render.c - what all output formats share (see render.h): the callback
 * trampolines into the RenderFormat, text and [INFO] output, the status line
 * and write-error tracking.
 */
#include "cli/render.h"

#include <string.h>
#include <strings.h>
#include <time.h>

static double render_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

void renderer_init(Renderer *renderer, CliOutputFormat format, FILE *out, FILE *status_out,
                   RenderStatusMode status_mode, size_t max_column_width)
{
    memset(renderer, 0, sizeof *renderer);
    switch (format) {
    case CLI_OUTPUT_CSV:
        renderer->format = &RENDER_FORMAT_CSV;
        break;
    case CLI_OUTPUT_JSON:
        renderer->format = &RENDER_FORMAT_JSON;
        break;
    case CLI_OUTPUT_TABLE:
    case CLI_OUTPUT_CHANGELOG:
        renderer->format = &RENDER_FORMAT_TABLEAU; /* the view replaces it for streaming results */
        renderer->view_mode = format;
        renderer->view_input_fd = 0; /* standard input */
        break;
    case CLI_OUTPUT_TABLEAU:
    default:
        renderer->format = &RENDER_FORMAT_TABLEAU;
        break;
    }
    renderer->out = out;
    renderer->message_out = format == CLI_OUTPUT_CSV || format == CLI_OUTPUT_JSON ? stderr : out;
    renderer->status_out = status_out;
    renderer->status_mode = status_out != NULL ? status_mode : RENDER_STATUS_IGNORE;
    renderer->max_column_width = max_column_width < 4 ? 4 : max_column_width;
    renderer->started = render_now();
}

const char *render_time_cost(const Renderer *renderer, char *buffer, size_t size)
{
    if (!renderer->print_time_cost) {
        snprintf(buffer, size, "%s", "");
        return buffer;
    }
    snprintf(buffer, size, " (%.2f seconds)", render_now() - renderer->started);
    return buffer;
}

const char *render_row_term(uint64_t row_count)
{
    return row_count > 1 ? "rows" : "row";
}

bool render_parse_format(const char *name, CliOutputFormat *format)
{
    if (name == NULL) {
        return false;
    }
    if (strcasecmp(name, "tableau") == 0) {
        *format = CLI_OUTPUT_TABLEAU;
    } else if (strcasecmp(name, "table") == 0) {
        *format = CLI_OUTPUT_TABLE;
    } else if (strcasecmp(name, "changelog") == 0) {
        *format = CLI_OUTPUT_CHANGELOG;
    } else if (strcasecmp(name, "csv") == 0) {
        *format = CLI_OUTPUT_CSV;
    } else if (strcasecmp(name, "json") == 0) {
        *format = CLI_OUTPUT_JSON;
    } else {
        return false;
    }
    return true;
}

int renderer_check_output(Renderer *renderer)
{
    if (renderer->write_failed || ferror(renderer->out)) {
        renderer->write_failed = true;
        return -1;
    }
    return 0;
}

void renderer_clear_status(Renderer *renderer)
{
    if (renderer->status_visible) {
        fputs("\r\033[K", renderer->status_out);
        fflush(renderer->status_out);
        renderer->status_visible = false;
    }
}

static int renderer_on_begin(void *context, JoineryResultKind kind, const JoineryColumn *columns,
                             size_t column_count)
{
    Renderer *renderer = context;
    if (renderer->write_failed) {
        return -1;
    }
    renderer_clear_status(renderer);
    renderer->format->discard(renderer); /* a result left open by a previous begin */
    if (renderer->view_mode != 0) {
        renderer->format =
            kind == JOINERY_RESULT_CHANGELOG ? &RENDER_FORMAT_VIEW : &RENDER_FORMAT_TABLEAU;
    }
    renderer->kind = kind;
    renderer->column_count = column_count;
    renderer->result_open = true;
    renderer->rows_received = 0;
    if (renderer->format->begin(renderer, kind, columns, column_count) != 0) {
        renderer->write_failed = true;
        return -1;
    }
    return renderer_check_output(renderer);
}

static int renderer_on_row(void *context, JoineryRowKind kind, const char *const *values,
                           size_t column_count)
{
    Renderer *renderer = context;
    if (renderer->write_failed) {
        return -1;
    }
    if (!renderer->result_open) {
        return 0; /* a row without begin: nothing to lay it out against */
    }
    renderer_clear_status(renderer);
    if (column_count > renderer->column_count) {
        column_count = renderer->column_count;
    }
    renderer->rows_received++;
    if (renderer->format->row(renderer, kind, values, column_count) != 0) {
        renderer->write_failed = true;
        return -1;
    }
    return renderer_check_output(renderer);
}

static int renderer_on_end(void *context, uint64_t row_count, bool cancelled)
{
    Renderer *renderer = context;
    renderer_clear_status(renderer);
    if (!renderer->result_open) {
        return renderer->write_failed ? -1 : 0;
    }
    renderer->result_open = false;
    renderer->result_cancelled = cancelled;
    int status = 0;
    if (!renderer->write_failed) {
        if (cancelled && renderer->erase_interrupt_echo) {
            fputc('\r', renderer->out);
        }
        status = renderer->format->end(renderer, row_count, cancelled);
    }
    renderer->format->discard(renderer);
    if (status != 0) {
        renderer->write_failed = true;
        return -1;
    }
    return renderer_check_output(renderer);
}

/* Writes text followed by a newline unless it already ends with one. */
static int renderer_write_line(Renderer *renderer, FILE *stream, const char *prefix,
                               const char *text)
{
    if (renderer->write_failed) {
        return -1;
    }
    renderer_clear_status(renderer);
    if (stream != renderer->out) {
        fflush(renderer->out); /* results first: stdout is flushed before stderr */
    }
    size_t length = text != NULL ? strlen(text) : 0;
    fputs(prefix, stream);
    if (length > 0) {
        fwrite(text, 1, length, stream);
    }
    if (length == 0 || text[length - 1] != '\n') {
        fputc('\n', stream);
    }
    fflush(stream);
    if (stream == renderer->out) {
        return renderer_check_output(renderer);
    }
    return 0;
}

static int renderer_on_text(void *context, const char *text)
{
    Renderer *renderer = context;
    return renderer_write_line(renderer, renderer->out, "", text);
}

static int renderer_on_info(void *context, const char *message)
{
    Renderer *renderer = context;
    return renderer_write_line(renderer, renderer->message_out, "[INFO] ", message);
}

static int renderer_on_warning(void *context, const char *message)
{
    Renderer *renderer = context;
    return renderer_write_line(renderer, renderer->message_out, "[WARNING] ", message);
}

static int renderer_on_metrics(void *context, const char *text)
{
    Renderer *renderer = context;
    if (text == NULL || !renderer->result_open || renderer->format->metrics == NULL ||
        renderer->write_failed) {
        return renderer->write_failed ? -1 : 0;
    }
    return renderer->format->metrics(renderer, text);
}

static int renderer_on_status(void *context, const char *line)
{
    Renderer *renderer = context;
    if (line != NULL && renderer->result_open && renderer->format->status != NULL &&
        !renderer->write_failed) {
        return renderer->format->status(renderer, line);
    }
    if (renderer->status_mode == RENDER_STATUS_IGNORE || line == NULL) {
        return renderer->write_failed ? -1 : 0;
    }
    /* one terminal line: stop at the first control character, at most 200 bytes */
    size_t length = 0;
    while (line[length] != '\0' && (unsigned char)line[length] >= 0x20 && length < 200) {
        length++;
    }
    if (renderer->status_out != renderer->out) {
        fflush(renderer->out); /* results first: stdout is flushed before stderr */
    }
    if (renderer->status_mode == RENDER_STATUS_LIVE) {
        fputs("\r\033[K", renderer->status_out);
        fwrite(line, 1, length, renderer->status_out);
        renderer->status_visible = true;
    } else {
        fwrite(line, 1, length, renderer->status_out);
        fputc('\n', renderer->status_out);
    }
    fflush(renderer->status_out);
    return renderer->write_failed ? -1 : 0;
}

JoineryResultHandler renderer_handler(Renderer *renderer)
{
    JoineryResultHandler handler = {
        .context = renderer,
        .begin = renderer_on_begin,
        .row = renderer_on_row,
        .end = renderer_on_end,
        .text = renderer_on_text,
        .info = renderer_on_info,
        .warning = renderer_on_warning,
        .status = renderer_on_status,
        .metrics = renderer_on_metrics,
    };
    return handler;
}

void renderer_finish(Renderer *renderer, bool cancelled)
{
    renderer_clear_status(renderer);
    if (renderer->result_open && cancelled && !renderer->write_failed) {
        renderer->result_cancelled = true;
        if (renderer->erase_interrupt_echo) {
            fputc('\r', renderer->out);
        }
        renderer->format->end(renderer, renderer->rows_received, true);
    } else if (renderer->result_open && !renderer->write_failed && renderer->format->close) {
        renderer->format->close(renderer);
    }
    renderer->format->discard(renderer);
    renderer->result_open = false;
    renderer_clear_status(renderer);
    fflush(renderer->out);
    renderer_check_output(renderer);
}
