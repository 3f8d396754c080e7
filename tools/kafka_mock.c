/*
 * kafka_mock.c - build/kafka-mock: a Kafka cluster to try and test the
 * kafka connectors with, librdkafka's in-process mock cluster (no broker
 * is packaged for Debian).
 *
 *   kafka-mock [--brokers N] [--topic NAME:PARTITIONS]... [--control FIFO]
 *
 * Starts N mock brokers (default 1), each listening on 127.0.0.1 on an
 * ephemeral port, creates the topics, prints the bootstrap server list as
 * the first line of standard output (flushed), and runs until SIGINT or
 * SIGTERM. Topics not created up front are created on first use with 4
 * partitions (librdkafka's mock default).
 *
 * Fault injection for tests: with --control FIFO, the tool creates the
 * named pipe and reads commands from it, one a line; each applied command
 * is acknowledged with a line "ok <command>" on standard output (flushed),
 * a bad one with "error <command>: <reason>":
 *   down BROKER                  broker BROKER (1..N) refuses connections
 *   up BROKER                    and accepts them again
 *   fail API COUNT [ERROR]       the next COUNT requests of API (fetch,
 *                                produce, listoffsets, metadata,
 *                                offsetcommit, offsetfetch,
 *                                findcoordinator, or a number) get Kafka
 *                                error code ERROR (default: a retriable
 *                                error: NOT_LEADER_FOR_PARTITION for fetch,
 *                                NOT_ENOUGH_REPLICAS for produce,
 *                                REQUEST_TIMED_OUT otherwise)
 *   rtt BROKER MILLIS            adds round-trip latency to a broker
 *
 * Mind the mock's retention: about 5 MiB and 100,000 message batches per
 * partition; older data is dropped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_TOPICS = 256, MAX_BROKERS = 64 };

static volatile sig_atomic_t stop_requested;

static void handle_stop_signal(int signal_number)
{
    (void)signal_number;
    stop_requested = 1;
}

static void print_usage(FILE *out)
{
    fprintf(out, "Usage: kafka-mock [--brokers N] [--topic NAME:PARTITIONS]... [--control FIFO]\n"
                 "Starts librdkafka's mock Kafka cluster on 127.0.0.1, prints the bootstrap\n"
                 "servers as the first line, runs until SIGINT or SIGTERM.\n");
}

/* Kafka API key of a name used in 'fail' commands; -1 when unknown. */
static int mock_api_key_from_name(const char *name)
{
    static const struct {
        const char *name;
        int key;
    } APIS[] = {{"produce", 0},          {"fetch", 1},        {"listoffsets", 2},
                {"metadata", 3},         {"offsetcommit", 8}, {"offsetfetch", 9},
                {"findcoordinator", 10}, {"joingroup", 11},   {"heartbeat", 12},
                {"initproducerid", 22}};
    for (size_t i = 0; i < sizeof APIS / sizeof APIS[0]; i++)
        if (strcasecmp(APIS[i].name, name) == 0)
            return APIS[i].key;
    char *end;
    long number = strtol(name, &end, 10);
    if (*name && !*end && number >= 0 && number < 100)
        return (int)number;
    return -1;
}

static rd_kafka_resp_err_t mock_default_error(int api_key)
{
    if (api_key == 1)
        return RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION;
    if (api_key == 0)
        return RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS;
    return RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT;
}

/* Applies one control command; writes the acknowledgement line. */
static void mock_apply_command(rd_kafka_mock_cluster_t *cluster, int broker_count, char *line)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    char *words[4] = {NULL, NULL, NULL, NULL};
    int count = 0;
    for (char *save = NULL, *word = strtok_r(line, " \t", &save); word && count < 4;
         word = strtok_r(NULL, " \t", &save))
        words[count++] = word;
    if (count == 0)
        return;
    const char *reason = NULL;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    if ((strcmp(words[0], "down") == 0 || strcmp(words[0], "up") == 0) && count == 2) {
        int broker = atoi(words[1]);
        if (broker < 1 || broker > broker_count)
            reason = "no such broker";
        else if (words[0][0] == 'd')
            err = rd_kafka_mock_broker_set_down(cluster, broker);
        else
            err = rd_kafka_mock_broker_set_up(cluster, broker);
    } else if (strcmp(words[0], "rtt") == 0 && count == 3) {
        int broker = atoi(words[1]);
        if (broker < 1 || broker > broker_count)
            reason = "no such broker";
        else
            err = rd_kafka_mock_broker_set_rtt(cluster, broker, atoi(words[2]));
    } else if (strcmp(words[0], "fail") == 0 && (count == 3 || count == 4)) {
        int api_key = mock_api_key_from_name(words[1]);
        int failures = atoi(words[2]);
        if (api_key < 0)
            reason = "unknown API";
        else if (failures <= 0 || failures > 10000)
            reason = "COUNT must be 1..10000";
        else {
            rd_kafka_resp_err_t code =
                count == 4 ? (rd_kafka_resp_err_t)atoi(words[3]) : mock_default_error(api_key);
            rd_kafka_resp_err_t *codes = malloc((size_t)failures * sizeof *codes);
            if (!codes) {
                reason = "out of memory";
            } else {
                for (int i = 0; i < failures; i++)
                    codes[i] = code;
                rd_kafka_mock_push_request_errors_array(cluster, (int16_t)api_key, (size_t)failures,
                                                        codes);
                free(codes);
            }
        }
    } else {
        reason = "unknown command (down B | up B | fail API COUNT [ERROR] | rtt B MS)";
    }
    if (!reason && err)
        reason = rd_kafka_err2str(err);
    if (reason)
        printf("error %s: %s\n", copy, reason);
    else
        printf("ok %s\n", copy);
    fflush(stdout);
}

/* Reads complete lines from the control pipe and applies them. */
static void mock_read_control(rd_kafka_mock_cluster_t *cluster, int broker_count, int fd,
                              char *pending, size_t *pending_length, size_t capacity)
{
    for (;;) {
        ssize_t n = read(fd, pending + *pending_length, capacity - 1 - *pending_length);
        if (n <= 0)
            break;
        *pending_length += (size_t)n;
        pending[*pending_length] = '\0';
        char *newline;
        while ((newline = memchr(pending, '\n', *pending_length)) != NULL) {
            *newline = '\0';
            if (newline > pending && newline[-1] == '\r')
                newline[-1] = '\0';
            mock_apply_command(cluster, broker_count, pending);
            size_t used = (size_t)(newline - pending) + 1;
            memmove(pending, newline + 1, *pending_length - used);
            *pending_length -= used;
        }
        if (*pending_length == capacity - 1)
            *pending_length = 0; /* an overlong line is dropped */
    }
}

int main(int argc, char **argv)
{
    int broker_count = 1;
    const char *topics[MAX_TOPICS];
    int topic_count = 0;
    const char *control_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--brokers") == 0 && i + 1 < argc) {
            broker_count = atoi(argv[++i]);
            if (broker_count < 1 || broker_count > MAX_BROKERS) {
                fprintf(stderr, "kafka-mock: --brokers must be 1..%d\n", MAX_BROKERS);
                return 2;
            }
        } else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc) {
            if (topic_count == MAX_TOPICS) {
                fprintf(stderr, "kafka-mock: too many topics\n");
                return 2;
            }
            topics[topic_count++] = argv[++i];
        } else if (strcmp(argv[i], "--control") == 0 && i + 1 < argc) {
            control_path = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            print_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "kafka-mock: unknown argument '%s'\n", argv[i]);
            print_usage(stderr);
            return 2;
        }
    }

    char error[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "3", error, sizeof error);
    rd_kafka_t *handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
    if (!handle) {
        fprintf(stderr, "kafka-mock: %s\n", error);
        return 1;
    }
    rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(handle, broker_count);
    if (!cluster) {
        fprintf(stderr, "kafka-mock: could not start the mock cluster\n");
        rd_kafka_destroy(handle);
        return 1;
    }
    int status = 0;
    for (int i = 0; i < topic_count && status == 0; i++) {
        char name[256];
        const char *colon = strrchr(topics[i], ':');
        int partitions = colon ? atoi(colon + 1) : 1;
        size_t length = colon ? (size_t)(colon - topics[i]) : strlen(topics[i]);
        if (length == 0 || length >= sizeof name || partitions < 1 || partitions > 10000) {
            fprintf(stderr, "kafka-mock: bad --topic '%s' (expected NAME:PARTITIONS)\n", topics[i]);
            status = 2;
            break;
        }
        memcpy(name, topics[i], length);
        name[length] = '\0';
        int replication = broker_count < 3 ? broker_count : 3;
        rd_kafka_resp_err_t err =
            rd_kafka_mock_topic_create(cluster, name, partitions, replication);
        if (err) {
            fprintf(stderr, "kafka-mock: cannot create topic '%s': %s\n", name,
                    rd_kafka_err2str(err));
            status = 1;
        }
    }
    int control_fd = -1;
    if (status == 0 && control_path) {
        if (mkfifo(control_path, 0600) != 0 && errno != EEXIST) {
            fprintf(stderr, "kafka-mock: cannot create '%s': %s\n", control_path, strerror(errno));
            status = 1;
        } else {
            /* read-write so that the pipe never reports end of file between writers */
            control_fd = open(control_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
            if (control_fd < 0) {
                fprintf(stderr, "kafka-mock: cannot open '%s': %s\n", control_path,
                        strerror(errno));
                status = 1;
            }
        }
    }
    if (status == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = handle_stop_signal;
        sigaction(SIGINT, &action, NULL);
        sigaction(SIGTERM, &action, NULL);
        printf("%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
        fflush(stdout);
        char pending[1024];
        size_t pending_length = 0;
        while (!stop_requested) {
            struct pollfd descriptor = {control_fd, POLLIN, 0};
            int ready = poll(&descriptor, control_fd >= 0 ? 1 : 0, 200);
            if (ready > 0)
                mock_read_control(cluster, broker_count, control_fd, pending, &pending_length,
                                  sizeof pending);
        }
    }
    if (control_fd >= 0) {
        close(control_fd);
        unlink(control_path);
    }
    rd_kafka_mock_cluster_destroy(cluster);
    rd_kafka_destroy(handle);
    return status;
}
