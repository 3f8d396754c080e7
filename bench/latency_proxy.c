/*
 * latency_proxy.c - build/tools/latency_proxy: a TCP proxy on loopback that
 * holds every byte it forwards for a fixed time, so a store on this machine
 * answers as if it were DELAY_MS away over a network (make bench's lookup
 * joins, scripts/bench-lookup.sh). Requests sent one after another, on one
 * pipelined connection or on several, are in the delay line together: the
 * latency is added to each round trip without serializing them.
 *
 * Usage: latency_proxy TARGET_PORT DELAY_MS STATS_FILE
 *   Listens on a free 127.0.0.1 port, prints it on stdout (one line) and
 *   forwards each accepted connection to 127.0.0.1:TARGET_PORT. Each chunk
 *   read in either direction is written on DELAY_MS / 2 after it was read,
 *   in order (a round trip grows by DELAY_MS). On SIGTERM or SIGINT it
 *   writes to STATS_FILE "connections N chunks N max_in_line N" (the most
 *   chunks held at once, over every connection: above 1, requests
 *   overlapped) and exits 0.
 *
 * Invariants: a direction's chunks are in read order, so their due times
 * never decrease and only the first can be due; a direction whose line
 * holds LINE_LIMIT bytes is not read (the sender waits, as on a full
 * network). A link is freed when both directions have delivered their end
 * of stream, or when a write fails.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
    CHUNK_BYTES = 65536,
    LINE_LIMIT = 16 * 1024 * 1024,
    MAX_LINKS = 1024,
};

typedef struct Chunk {
    struct Chunk *next;
    int64_t due_nanos;
    size_t length, written; /* length 0: end of stream */
    char data[];
} Chunk;

typedef struct Direction {
    int from, to;
    Chunk *head, *tail;
    size_t held_bytes;
    int read_done;  /* end of stream read (or a read error) */
    int write_done; /* end of stream delivered (or a write error) */
} Direction;

typedef struct Link {
    Direction way[2]; /* 0: client to server, 1: server to client */
} Link;

static volatile sig_atomic_t stop_requested;
static long long connections, chunks, in_line, max_in_line;

static void on_signal(int signal_number)
{
    (void)signal_number;
    stop_requested = 1;
}

static int64_t now_nanos(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static void set_nodelay(int fd)
{
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

static int connect_target(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0 || set_nonblocking(fd) != 0) {
        close(fd);
        return -1;
    }
    set_nodelay(fd);
    return fd;
}

/* Appends a chunk (length 0: end of stream) due at now + delay. 0, or -1 on no memory. */
static int direction_hold(Direction *way, const char *data, size_t length, int64_t due)
{
    Chunk *chunk = malloc(sizeof *chunk + length);
    if (!chunk)
        return -1;
    chunk->next = NULL;
    chunk->due_nanos = due;
    chunk->length = length;
    chunk->written = 0;
    memcpy(chunk->data, data, length);
    if (way->tail)
        way->tail->next = chunk;
    else
        way->head = chunk;
    way->tail = chunk;
    way->held_bytes += length;
    if (length)
        chunks++;
    if (++in_line > max_in_line)
        max_in_line = in_line;
    return 0;
}

static void direction_drop_head(Direction *way)
{
    Chunk *chunk = way->head;
    way->head = chunk->next;
    if (!way->head)
        way->tail = NULL;
    way->held_bytes -= chunk->length;
    in_line--;
    free(chunk);
}

/* Reads what `from` has; holds it. A read error or end of stream holds the end. */
static void direction_read(Direction *way, int64_t delay)
{
    char buffer[CHUNK_BYTES];
    ssize_t got = read(way->from, buffer, sizeof buffer);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    int64_t due = now_nanos() + delay;
    if (got <= 0) {
        way->read_done = 1;
        if (direction_hold(way, "", 0, due) != 0) { /* no memory: end it now */
            shutdown(way->to, SHUT_WR);
            way->write_done = 1;
        }
        return;
    }
    if (direction_hold(way, buffer, (size_t)got, due) != 0) {
        way->read_done = 1; /* no memory: the stream ends here */
        direction_hold(way, "", 0, due);
    }
}

/* Writes the chunks now due, in order, as far as `to` takes them; -1: `to` failed. */
static int direction_write(Direction *way, int64_t now)
{
    while (way->head && way->head->due_nanos <= now && !way->write_done) {
        Chunk *chunk = way->head;
        if (chunk->length == 0) {
            shutdown(way->to, SHUT_WR);
            way->write_done = 1;
            direction_drop_head(way);
            return 0;
        }
        ssize_t put = write(way->to, chunk->data + chunk->written, chunk->length - chunk->written);
        if (put < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        chunk->written += (size_t)put;
        if (chunk->written < chunk->length)
            return 0;
        direction_drop_head(way);
    }
    return 0;
}

static void link_free(Link *link)
{
    for (int w = 0; w < 2; w++)
        while (link->way[w].head)
            direction_drop_head(&link->way[w]);
    close(link->way[0].from);
    close(link->way[0].to);
    free(link);
}

static int write_stats(const char *path)
{
    FILE *out = fopen(path, "w");
    if (!out)
        return 1;
    fprintf(out, "connections %lld chunks %lld max_in_line %lld\n", connections, chunks,
            max_in_line);
    return fclose(out) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: latency_proxy TARGET_PORT DELAY_MS STATS_FILE\n");
        return 64;
    }
    int target_port = atoi(argv[1]);
    int64_t delay = (int64_t)(atof(argv[2]) * 1e6 / 2);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    signal(SIGPIPE, SIG_IGN);

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(listener, 128) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &length) != 0 ||
        set_nonblocking(listener) != 0) {
        perror("latency_proxy: listen");
        return 1;
    }
    printf("%d\n", ntohs(address.sin_port));
    fflush(stdout);

    static Link *links[MAX_LINKS];
    static struct pollfd fds[1 + 2 * MAX_LINKS];
    int link_count = 0;
    while (!stop_requested) {
        int64_t now = now_nanos(), next_due = -1;
        fds[0] = (struct pollfd){.fd = listener, .events = POLLIN};
        for (int l = 0; l < link_count; l++)
            for (int w = 0; w < 2; w++) {
                /* fds[1 + 2l + w] is way[w].from, which is also way[1 - w].to */
                Direction *way = &links[l]->way[w], *back = &links[l]->way[1 - w];
                short events = 0;
                if (!way->read_done && way->held_bytes < LINE_LIMIT)
                    events |= POLLIN;
                if (back->head && !back->write_done) {
                    if (back->head->due_nanos <= now)
                        events |= POLLOUT;
                    else if (next_due < 0 || back->head->due_nanos < next_due)
                        next_due = back->head->due_nanos;
                }
                fds[1 + 2 * l + w] = (struct pollfd){.fd = way->from, .events = events};
            }
        int64_t wait = next_due < 0 ? 200000000 : next_due - now;
        struct timespec timeout = {(time_t)(wait / 1000000000), (long)(wait % 1000000000)};
        if (ppoll(fds, (nfds_t)(1 + 2 * link_count), &timeout, NULL) < 0 && errno != EINTR)
            break;
        int live = link_count;
        for (int l = 0; l < live; l++)
            for (int w = 0; w < 2; w++)
                if (fds[1 + 2 * l + w].revents & (POLLIN | POLLHUP | POLLERR))
                    direction_read(&links[l]->way[w], delay);
        if (fds[0].revents & POLLIN) {
            int client = accept(listener, NULL, NULL);
            if (client >= 0) {
                int server = link_count < MAX_LINKS ? connect_target(target_port) : -1;
                Link *link = server >= 0 ? calloc(1, sizeof *link) : NULL;
                if (!link || set_nonblocking(client) != 0) {
                    close(client);
                    if (server >= 0)
                        close(server);
                    free(link);
                } else {
                    set_nodelay(client);
                    link->way[0] = (Direction){.from = client, .to = server};
                    link->way[1] = (Direction){.from = server, .to = client};
                    links[link_count++] = link;
                    connections++;
                }
            }
        }
        now = now_nanos();
        for (int l = 0; l < link_count;) {
            Link *link = links[l];
            int failed = direction_write(&link->way[0], now) != 0 ||
                         direction_write(&link->way[1], now) != 0;
            if (failed || (link->way[0].write_done && link->way[1].write_done)) {
                link_free(link);
                links[l] = links[--link_count];
            } else {
                l++;
            }
        }
    }
    return write_stats(argv[3]);
}
