/*
 * render_view.c - the full-screen result views of result-mode 'table' and
 * 'changelog' (Flink's SQL client's two interactive modes), for streaming
 * (CHANGELOG) results when the shell runs in a terminal.
 *
 * - table: the materialised current result, updated in place as the
 *   changelog arrives: +I appends a row; -U removes its row and the +U that
 *   follows takes that row's place; -D removes its row (the first equal
 *   one), and a +I right after it takes its place too (a join retracts a
 *   row and sends its replacement so). A retraction of a row that is not
 *   there changes nothing. Frames are not drawn between a retraction and
 *   the row that takes its place.
 * - changelog: every row as it arrives, with its op column.
 * Both draw on the terminal's alternate screen: a title line with the keys,
 * the column header, the rows, a status line (rows received, rows in the
 * view, updates/s) and the engine's job status line (rows read, state size,
 * the watermark the result has reached).
 * M switches to the live job view and back: the job's per-operator table
 * (SHOW JOB METRICS's: rows in/out, state rows/keys/bytes, busy,
 * backpressure, watermarks), refreshed about every second while the job
 * runs on one thread (the engine sends it only then), and once more when
 * it ends; h/l or Left/Right scroll it sideways, j/k up and down.
 * Keys: Q leaves (a running query is stopped), Up/Down or k/j scroll a row,
 * PgUp/PgDn or b/space a page, Home/End or g/G the top/bottom. While rows
 * arrive the screen is redrawn at most every VIEW_REDRAW_SECONDS; when the
 * result ends the view stays until Q (a query stopped by Q or Ctrl-C leaves
 * at once), then the normal screen comes back with a one-line summary and
 * the shell goes on.
 *
 * Column widths follow the tableau's (render_type_width); every value is
 * right-aligned and cut with "..." as there; NULL is "<NULL>".
 *
 * Invariants: state is NULL outside a result; the terminal is in raw mode
 * and on the alternate screen exactly while state->active; every path out
 * of a result (end, close, discard) leaves the view first.
 */
#include "cli/render.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/text.h"

#define VIEW_NULL_TEXT "<NULL>"
#define VIEW_REDRAW_SECONDS 0.05

/* A growing line of terminal text (cli/ sees only engine.h, so no engine StrBuf). */
typedef struct ViewLine {
    char *data;
    size_t length;
    size_t capacity;
} ViewLine;

typedef struct ViewRow {
    JoineryRowKind kind;
    char **cells; /* column_count values, NULL for SQL NULL */
} ViewRow;

typedef struct ViewState {
    bool changelog;       /* changelog mode (op column, every row kept) */
    bool active;          /* raw mode and alternate screen are on */
    struct termios saved; /* the terminal's mode before the view */
    int input_fd;
    int output_fd;
    size_t column_count;
    char **names;
    size_t *widths;
    ViewRow *rows;
    size_t row_count;
    size_t row_capacity;
    bool update_pending; /* a -U or -D removed a row whose place the next +U / +I takes */
    size_t update_position;
    JoineryRowKind pending_kind;
    uint64_t received;
    double last_draw;
    double rate_started; /* updates/s: rows over the last second or so */
    uint64_t rate_rows;
    double rate;
    size_t top;       /* first row on screen */
    bool follow;      /* keep the last rows in sight as they arrive */
    bool quit;        /* the user pressed Q */
    bool cancel_sent; /* Q asked the engine to stop the query */
    char status[320];
    char *metrics;     /* the job's latest per-operator table (parallelism 1), or NULL */
    bool show_metrics; /* M: the live job view instead of the rows */
    size_t metrics_top;
    size_t metrics_left; /* columns scrolled away to the left (h/l, Left/Right) */
    char escape[8];      /* a key sequence being read */
    size_t escape_length;
} ViewState;

static double view_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static char *view_copy(const char *text)
{
    if (text == NULL) {
        return NULL;
    }
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length + 1);
    }
    return copy;
}

static void view_free_row(ViewState *state, ViewRow *row)
{
    for (size_t i = 0; i < state->column_count; i++) {
        free(row->cells[i]);
    }
    free(row->cells);
    row->cells = NULL;
}

static void view_screen_size(const ViewState *state, int *lines, int *columns)
{
    struct winsize size;
    if (ioctl(state->output_fd, TIOCGWINSZ, &size) == 0 && size.ws_row > 0 && size.ws_col > 0) {
        *lines = size.ws_row;
        *columns = size.ws_col;
    } else {
        *lines = 24;
        *columns = 80;
    }
}

/* Rows of data that fit between the title, the header and the status line. */
static size_t view_page(const ViewState *state)
{
    int lines, columns;
    view_screen_size(state, &lines, &columns);
    return lines > 4 ? (size_t)(lines - 4) : 1;
}

static void line_append(ViewLine *line, const char *text, size_t length)
{
    if (line->length + length + 1 > line->capacity) {
        size_t capacity = line->capacity ? line->capacity * 2 : 256;
        while (capacity < line->length + length + 1) {
            capacity *= 2;
        }
        char *grown = realloc(line->data, capacity);
        if (grown == NULL) {
            return;
        }
        line->data = grown;
        line->capacity = capacity;
    }
    memcpy(line->data + line->length, text, length);
    line->length += length;
    line->data[line->length] = '\0';
}

static void line_spaces(ViewLine *line, size_t count)
{
    static const char SPACES[] = "                                ";
    while (count > 0) {
        size_t step = count < sizeof SPACES - 1 ? count : sizeof SPACES - 1;
        line_append(line, SPACES, step);
        count -= step;
    }
}

/* Appends one cell right-aligned in width columns (or cut, ending "..."). */
static void view_put_cell(ViewLine *line, const char *text, size_t width)
{
    /* control characters would move the cursor: they are shown as spaces */
    char clean[512];
    size_t length = strlen(text);
    if (length >= sizeof clean) {
        length = sizeof clean - 1;
    }
    for (size_t i = 0; i < length; i++) {
        clean[i] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? ' ' : text[i];
    }
    clean[length] = '\0';
    size_t display = text_display_width(clean, length);
    if (display <= width) {
        line_spaces(line, width - display);
        line_append(line, clean, length);
        return;
    }
    size_t room = width > 3 ? width - 3 : 0;
    size_t used = 0;
    size_t bytes = text_prefix_for_width(clean, length, room, &used);
    line_spaces(line, room - used);
    line_append(line, clean, bytes);
    line_append(line, "...", 3);
}

/* Writes `line` cut to `columns` display columns at screen line `row` (1-based). */
static void view_put_line(FILE *out, int row, const char *text, size_t length, int columns,
                          bool inverse)
{
    size_t used = 0;
    size_t bytes = text_prefix_for_width(text, length, (size_t)columns, &used);
    fprintf(out, "\033[%d;1H%s", row, inverse ? "\033[7m" : "");
    fwrite(text, 1, bytes, out);
    if (inverse) {
        for (size_t i = used; i < (size_t)columns; i++) {
            fputc(' ', out);
        }
        fputs("\033[0m", out);
    }
    fputs("\033[K", out);
}

static const char *view_kind_text(JoineryRowKind kind)
{
    switch (kind) {
    case JOINERY_ROW_UPDATE_BEFORE:
        return "-U";
    case JOINERY_ROW_UPDATE_AFTER:
        return "+U";
    case JOINERY_ROW_DELETE:
        return "-D";
    case JOINERY_ROW_INSERT:
    default:
        return "+I";
    }
}

/* One data or header line: [op] then every column, a space between them. */
static void view_format_row(const ViewState *state, ViewLine *line, const char *op,
                            char *const *cells, bool header)
{
    line->length = 0;
    if (line->data) {
        line->data[0] = '\0';
    }
    if (state->changelog) {
        view_put_cell(line, op, 2);
    }
    for (size_t i = 0; i < state->column_count; i++) {
        if (state->changelog || i > 0) {
            line_append(line, " ", 1);
        }
        const char *text = cells[i] != NULL ? cells[i] : (header ? "" : VIEW_NULL_TEXT);
        view_put_cell(line, text, state->widths[i]);
    }
}

static void view_clamp(ViewState *state)
{
    size_t page = view_page(state);
    size_t last_top = state->row_count > page ? state->row_count - page : 0;
    if (state->follow || state->top > last_top) {
        state->top = last_top;
    }
}

/* The column header on line 2, then a page of rows from state->top. */
static void view_draw_rows(Renderer *renderer, ViewState *state, ViewLine *line, size_t page,
                           int columns)
{
    FILE *out = renderer->out;
    view_format_row(state, line, "op", state->names, true);
    view_put_line(out, 2, line->data ? line->data : "", line->length, columns, false);
    for (size_t i = 0; i < page; i++) {
        int row = (int)i + 3;
        size_t index = state->top + i;
        if (index < state->row_count) {
            view_format_row(state, line, view_kind_text(state->rows[index].kind),
                            state->rows[index].cells, false);
            view_put_line(out, row, line->data ? line->data : "", line->length, columns, false);
        } else {
            fprintf(out, "\033[%d;1H\033[K", row);
        }
    }
}

static void view_draw(Renderer *renderer, ViewState *state, const char *phase)
{
    FILE *out = renderer->out;
    int lines, columns;
    view_screen_size(state, &lines, &columns);
    view_clamp(state);
    size_t page = view_page(state);
    ViewLine line = {NULL, 0, 0};
    char title[256];
    snprintf(title, sizeof title,
             " joinery %s   Q leave  M job/rows  Up/Down j/k  PgUp/PgDn b/space  g/G top/end",
             state->show_metrics ? "job view"
             : state->changelog  ? "changelog view"
                                 : "table view");
    view_put_line(out, 1, title, strlen(title), columns, true);
    if (state->show_metrics) {
        /* the live job view: SHOW JOB METRICS's table, as the job runs */
        const char *text = state->metrics
                               ? state->metrics
                               : "The live job view needs the job on one thread "
                                 "(parallelism.default = 1);\nSHOW JOB METRICS shows the "
                                 "metrics when the job has ended.\n";
        size_t skipped = 0;
        const char *cursor = text;
        while (*cursor && skipped < state->metrics_top) {
            const char *newline = strchr(cursor, '\n');
            cursor = newline ? newline + 1 : cursor + strlen(cursor);
            skipped++;
        }
        for (size_t i = 0; i < page + 1; i++) {
            int row = (int)i + 2;
            const char *newline = strchr(cursor, '\n');
            size_t length = newline ? (size_t)(newline - cursor) : strlen(cursor);
            if (*cursor) {
                /* the table is ASCII: a column is a byte */
                size_t left = state->metrics_left < length ? state->metrics_left : length;
                view_put_line(out, row, cursor + left, length - left, columns, false);
                cursor += length + (newline ? 1 : 0);
            } else {
                fprintf(out, "\033[%d;1H\033[K", row);
            }
        }
    } else {
        view_draw_rows(renderer, state, &line, page, columns);
    }
    char status[600];
    snprintf(
        status, sizeof status, " %s | rows received: %llu | %s: %zu (%zu-%zu) | updates/s: %.0f",
        phase, (unsigned long long)state->received, state->changelog ? "shown" : "in result",
        state->row_count, state->row_count ? state->top + 1 : 0,
        state->top + page < state->row_count ? state->top + page : state->row_count, state->rate);
    view_put_line(out, lines > 1 ? lines - 1 : 1, status, strlen(status), columns, true);
    /* the job's own status: rows read, state size, the watermark the result has reached */
    snprintf(status, sizeof status, " %s", state->status[0] ? state->status : "job starting");
    view_put_line(out, lines, status, strlen(status), columns, false);
    fflush(out);
    free(line.data);
    state->last_draw = view_now();
}

/* Applies one key (or part of an escape sequence) typed in the view. */
static void view_key(ViewState *state, unsigned char c)
{
    size_t page = view_page(state);
    if (state->escape_length > 0 || c == 0x1b) {
        if (state->escape_length < sizeof state->escape - 1) {
            state->escape[state->escape_length++] = (char)c;
        }
        state->escape[state->escape_length] = '\0';
        const char *sequence = state->escape;
        bool complete =
            state->escape_length >= 3 && ((sequence[2] >= 'A' && sequence[2] <= 'Z') || c == '~');
        if (!complete && state->escape_length < sizeof state->escape - 1) {
            return;
        }
        state->escape_length = 0;
        if (strcmp(sequence, "\033[A") == 0) {
            c = 'k';
        } else if (strcmp(sequence, "\033[B") == 0) {
            c = 'j';
        } else if (strcmp(sequence, "\033[C") == 0) {
            c = 'l';
        } else if (strcmp(sequence, "\033[D") == 0) {
            c = 'h';
        } else if (strcmp(sequence, "\033[5~") == 0) {
            c = 'b';
        } else if (strcmp(sequence, "\033[6~") == 0) {
            c = ' ';
        } else if (strcmp(sequence, "\033[H") == 0 || strcmp(sequence, "\033[1~") == 0) {
            c = 'g';
        } else if (strcmp(sequence, "\033[F") == 0 || strcmp(sequence, "\033[4~") == 0) {
            c = 'G';
        } else {
            return;
        }
    }
    if (state->show_metrics && (c == 'h' || c == 'l')) {
        /* the job table is wider than most terminals: it scrolls sideways */
        if (c == 'l') {
            state->metrics_left += 10;
        } else {
            state->metrics_left = state->metrics_left > 10 ? state->metrics_left - 10 : 0;
        }
        return;
    }
    if (state->show_metrics && (c == 'j' || c == 'k' || c == 'g')) {
        /* the scrolling keys move the job view while it is shown */
        if (c == 'j') {
            state->metrics_top++;
        } else if (c == 'k' && state->metrics_top > 0) {
            state->metrics_top--;
        } else if (c == 'g') {
            state->metrics_top = 0;
        }
        return;
    }
    switch (c) {
    case 'm':
    case 'M':
        state->show_metrics = !state->show_metrics;
        break;
    case 'q':
    case 'Q':
    case 0x04: /* Ctrl-D */
        state->quit = true;
        break;
    case 'k':
        state->follow = false;
        state->top = state->top > 0 ? state->top - 1 : 0;
        break;
    case 'j':
        state->follow = false;
        state->top++;
        break;
    case 'b':
        state->follow = false;
        state->top = state->top > page ? state->top - page : 0;
        break;
    case ' ':
        state->follow = false;
        state->top += page;
        break;
    case 'g':
        state->follow = false;
        state->top = 0;
        break;
    case 'G':
        state->follow = true;
        break;
    default:
        break;
    }
}

/* Reads the keys typed so far (waiting up to timeout_ms, -1: until one comes); true when any. */
static bool view_read_keys(ViewState *state, int timeout_ms)
{
    struct pollfd descriptor = {.fd = state->input_fd, .events = POLLIN, .revents = 0};
    int ready = poll(&descriptor, 1, timeout_ms);
    if (ready <= 0) {
        if (ready < 0 && errno == EINTR) {
            state->quit = true; /* Ctrl-C in the view leaves it */
        }
        return ready < 0;
    }
    unsigned char keys[64];
    ssize_t count = read(state->input_fd, keys, sizeof keys);
    if (count <= 0) {
        state->quit = true; /* the terminal went away */
        return true;
    }
    for (ssize_t i = 0; i < count; i++) {
        view_key(state, keys[i]);
    }
    return true;
}

static void view_leave(Renderer *renderer, ViewState *state)
{
    if (!state->active) {
        return;
    }
    fputs("\033[?25h\033[?1049l", renderer->out);
    fflush(renderer->out);
    tcsetattr(state->input_fd, TCSAFLUSH, &state->saved);
    state->active = false;
}

static void view_discard(Renderer *renderer)
{
    ViewState *state = renderer->state;
    if (state == NULL) {
        return;
    }
    view_leave(renderer, state);
    for (size_t r = 0; r < state->row_count; r++) {
        view_free_row(state, &state->rows[r]);
    }
    free(state->rows);
    if (state->names != NULL) {
        for (size_t i = 0; i < state->column_count; i++) {
            free(state->names[i]);
        }
    }
    free(state->names);
    free(state->widths);
    free(state->metrics);
    free(state);
    renderer->state = NULL;
}

static int view_begin(Renderer *renderer, JoineryResultKind kind, const JoineryColumn *columns,
                      size_t column_count)
{
    (void)kind;
    ViewState *state = calloc(1, sizeof *state);
    if (state == NULL) {
        return -1;
    }
    renderer->state = state;
    state->changelog = renderer->view_mode == CLI_OUTPUT_CHANGELOG;
    state->input_fd = renderer->view_input_fd;
    state->output_fd = fileno(renderer->out);
    state->follow = state->changelog;
    state->column_count = column_count;
    state->names = calloc(column_count + 1, sizeof *state->names);
    state->widths = calloc(column_count + 1, sizeof *state->widths);
    if (state->names == NULL || state->widths == NULL) {
        return -1;
    }
    for (size_t i = 0; i < column_count; i++) {
        const char *name = columns[i].name != NULL ? columns[i].name : "";
        state->names[i] = view_copy(name);
        if (state->names[i] == NULL) {
            return -1;
        }
        size_t width = render_type_width(columns[i].type_name, renderer->max_column_width);
        if (width < strlen(VIEW_NULL_TEXT)) {
            width = strlen(VIEW_NULL_TEXT);
        }
        size_t name_width = text_display_width(name, strlen(name));
        state->widths[i] = width > name_width ? width : name_width;
    }
    if (tcgetattr(state->input_fd, &state->saved) != 0) {
        return -1;
    }
    struct termios raw = state->saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* ISIG stays: Ctrl-C still cancels */
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(state->input_fd, TCSANOW, &raw);
    state->active = true;
    fputs("\033[?1049h\033[?25l\033[2J", renderer->out);
    state->rate_started = view_now();
    view_draw(renderer, state, "running");
    return 0;
}

static bool view_same_row(const ViewState *state, const ViewRow *row, const char *const *values)
{
    for (size_t i = 0; i < state->column_count; i++) {
        const char *a = row->cells[i];
        const char *b = values[i];
        if ((a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0)) {
            return false;
        }
    }
    return true;
}

static int view_insert(ViewState *state, size_t position, JoineryRowKind kind,
                       const char *const *values)
{
    if (state->row_count == state->row_capacity) {
        size_t capacity = state->row_capacity ? state->row_capacity * 2 : 64;
        ViewRow *grown = realloc(state->rows, capacity * sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        state->rows = grown;
        state->row_capacity = capacity;
    }
    ViewRow row = {kind, calloc(state->column_count + 1, sizeof(char *))};
    if (row.cells == NULL) {
        return -1;
    }
    for (size_t i = 0; i < state->column_count; i++) {
        if (values[i] != NULL && (row.cells[i] = view_copy(values[i])) == NULL) {
            view_free_row(state, &row);
            return -1;
        }
    }
    memmove(state->rows + position + 1, state->rows + position,
            (state->row_count - position) * sizeof *state->rows);
    state->rows[position] = row;
    state->row_count++;
    return 0;
}

/* Removes the first row equal to values; returns its position, or SIZE_MAX when absent. */
static size_t view_remove(ViewState *state, const char *const *values)
{
    for (size_t r = 0; r < state->row_count; r++) {
        if (view_same_row(state, &state->rows[r], values)) {
            view_free_row(state, &state->rows[r]);
            memmove(state->rows + r, state->rows + r + 1,
                    (state->row_count - r - 1) * sizeof *state->rows);
            state->row_count--;
            return r;
        }
    }
    return SIZE_MAX;
}

/* Reads keys and redraws when the last frame is old enough; non-zero when the user left. */
static int view_refresh(Renderer *renderer, ViewState *state, bool force)
{
    double now = view_now();
    if (!force && now - state->last_draw < VIEW_REDRAW_SECONDS) {
        return 0;
    }
    if (now - state->rate_started >= 1.0) {
        state->rate = (double)state->rate_rows / (now - state->rate_started);
        state->rate_started = now;
        state->rate_rows = 0;
    }
    view_read_keys(state, 0);
    if (state->quit) {
        /* Q while the query runs: stop it as Ctrl-C does; end(cancelled) leaves the view */
        if (!state->cancel_sent && renderer->session != NULL) {
            joinery_session_cancel(renderer->session);
            state->cancel_sent = true;
        }
        return 0;
    }
    if (state->update_pending && !force) {
        return 0; /* between a -U and its +U: the row is away, drawn again when it is back */
    }
    view_draw(renderer, state, "running");
    return 0;
}

static int view_row(Renderer *renderer, JoineryRowKind kind, const char *const *values,
                    size_t column_count)
{
    ViewState *state = renderer->state;
    if (state == NULL || column_count < state->column_count) {
        return -1;
    }
    state->received++;
    state->rate_rows++;
    int status = 0;
    if (state->changelog) {
        status = view_insert(state, state->row_count, kind, values);
    } else if (kind == JOINERY_ROW_INSERT || kind == JOINERY_ROW_UPDATE_AFTER) {
        /* a +U after its -U, or a +I right after a -D (a join's retraction and its
           replacement), takes the removed row's place: the row changes where it is */
        bool in_place =
            state->update_pending &&
            (kind == JOINERY_ROW_UPDATE_AFTER || state->pending_kind == JOINERY_ROW_DELETE) &&
            state->update_position <= state->row_count;
        status =
            view_insert(state, in_place ? state->update_position : state->row_count, kind, values);
        state->update_pending = false;
    } else {
        size_t position = view_remove(state, values);
        state->update_pending = position != SIZE_MAX;
        state->update_position = position;
        state->pending_kind = kind;
    }
    if (status != 0) {
        return -1;
    }
    return view_refresh(renderer, state, false);
}

static int view_status(Renderer *renderer, const char *line)
{
    ViewState *state = renderer->state;
    if (state == NULL) {
        return 0;
    }
    size_t length = 0;
    while (line[length] != '\0' && (unsigned char)line[length] >= 0x20 &&
           length + 1 < sizeof state->status) {
        length++;
    }
    memcpy(state->status, line, length);
    state->status[length] = '\0';
    return view_refresh(renderer, state, true);
}

static int view_metrics(Renderer *renderer, const char *text)
{
    ViewState *state = renderer->state;
    if (state == NULL) {
        return 0;
    }
    char *copy = view_copy(text);
    if (copy != NULL) {
        free(state->metrics);
        state->metrics = copy;
    }
    return state->show_metrics ? view_refresh(renderer, state, true) : 0;
}

/* The result is complete (or stopped): the final view stays until Q. */
static int view_end(Renderer *renderer, uint64_t row_count, bool cancelled)
{
    ViewState *state = renderer->state;
    if (state == NULL) {
        return -1;
    }
    /* a finished result stays until Q; one the user stopped (Q, Ctrl-C) leaves at once */
    if (!state->quit && !cancelled && state->active) {
        const char *phase = "finished, Q leaves";
        state->rate = 0;
        view_draw(renderer, state, phase);
        while (!state->quit) {
            if (view_read_keys(state, -1)) {
                view_draw(renderer, state, phase);
            }
        }
    }
    view_leave(renderer, state);
    FILE *out = renderer->out;
    if (state->changelog) {
        fprintf(out, "%s a total of %llu %s\n",
                cancelled ? "Query terminated, received" : "Received",
                (unsigned long long)row_count, render_row_term(row_count));
    } else {
        fprintf(out, "%s a total of %llu %s; the result has %zu %s\n",
                cancelled ? "Query terminated, received" : "Received",
                (unsigned long long)row_count, render_row_term(row_count), state->row_count,
                render_row_term(state->row_count));
    }
    fflush(out);
    return 0;
}

/* The engine failed mid-result: back to the normal screen so that the error is seen. */
static void view_close(Renderer *renderer)
{
    ViewState *state = renderer->state;
    if (state != NULL) {
        view_leave(renderer, state);
    }
}

const RenderFormat RENDER_FORMAT_VIEW = {
    .begin = view_begin,
    .row = view_row,
    .end = view_end,
    .close = view_close,
    .status = view_status,
    .metrics = view_metrics,
    .discard = view_discard,
};
