/*
 * op_channel.c - mailboxes and the channel operator (see op_channel.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/exec/ops/op_channel.h"

#include "engine/base/value.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ChannelOperator {
    Operator base;
    Mailbox *mailbox;
    uint32_t queue; /* its queue in the mailbox */
    OperatorTarget destination;
} ChannelOperator;

int mailbox_init(Mailbox *mailbox, uint32_t capacity, volatile int *stop,
                 _Atomic int64_t *in_flight)
{
    memset(mailbox, 0, sizeof *mailbox);
    mailbox->capacity = capacity;
    mailbox->stop = stop;
    mailbox->in_flight = in_flight;
    mailbox->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (mailbox->wake_fd < 0)
        return JOINERY_ERROR;
    if (pthread_mutex_init(&mailbox->lock, NULL) != 0) {
        close(mailbox->wake_fd);
        return JOINERY_ERROR;
    }
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    int status = pthread_cond_init(&mailbox->changed, &attributes);
    pthread_condattr_destroy(&attributes);
    if (status != 0) {
        pthread_mutex_destroy(&mailbox->lock);
        close(mailbox->wake_fd);
        return JOINERY_ERROR;
    }
    return JOINERY_OK;
}

void mailbox_destroy(Mailbox *mailbox)
{
    for (uint32_t q = 0; q < mailbox->queue_count; q++)
        stream_element_free_list(mailbox->queues[q].head);
    free(mailbox->queues);
    pthread_cond_destroy(&mailbox->changed);
    pthread_mutex_destroy(&mailbox->lock);
    close(mailbox->wake_fd);
}

/* Adds the queue of a channel into (target, channel); its index, or -1 on no memory. */
static int64_t mailbox_add_queue(Mailbox *mailbox, Operator *target, uint32_t channel)
{
    pthread_mutex_lock(&mailbox->lock);
    MailboxQueue *queues = realloc(mailbox->queues, (mailbox->queue_count + 1) * sizeof *queues);
    int64_t index = -1;
    if (queues) {
        mailbox->queues = queues;
        index = mailbox->queue_count++;
        memset(&queues[index], 0, sizeof queues[index]);
        queues[index].target = target;
        queues[index].channel = channel;
    }
    pthread_mutex_unlock(&mailbox->lock);
    return index;
}

static void deadline_after(struct timespec *deadline, int64_t millis)
{
    clock_gettime(CLOCK_MONOTONIC, deadline);
    deadline->tv_sec += millis / 1000;
    deadline->tv_nsec += (long)(millis % 1000) * 1000000L;
    if (deadline->tv_nsec >= 1000000000L) {
        deadline->tv_sec++;
        deadline->tv_nsec -= 1000000000L;
    }
}

/*
 * Appends a message to queue `index`, waiting while that queue is full
 * (the wait is added to *blocked_nanos); false when the job stopped.
 */
static bool mailbox_put(Mailbox *mailbox, uint32_t index, MailboxMessage *message,
                        uint64_t *blocked_nanos)
{
    pthread_mutex_lock(&mailbox->lock);
    MailboxQueue *queue = &mailbox->queues[index];
    if (queue->depth >= mailbox->capacity) {
        int64_t start = datetime_monotonic_nanos();
        while (queue->depth >= mailbox->capacity && !*mailbox->stop) {
            struct timespec deadline;
            deadline_after(&deadline, 50);
            pthread_cond_timedwait(&mailbox->changed, &mailbox->lock, &deadline);
        }
        *blocked_nanos += (uint64_t)(datetime_monotonic_nanos() - start);
    }
    if (*mailbox->stop) {
        pthread_mutex_unlock(&mailbox->lock);
        free(message);
        return false;
    }
    message->next = NULL;
    message->sequence = mailbox->sequence++;
    if (mailbox->in_flight)
        atomic_fetch_add(mailbox->in_flight, 1);
    if (queue->tail)
        queue->tail->next = message;
    else
        queue->head = message;
    queue->tail = message;
    queue->depth++;
    mailbox->depth++;
    pthread_cond_broadcast(&mailbox->changed);
    if (mailbox->consumer_waiting) {
        mailbox->consumer_waiting = false;
        uint64_t one = 1;
        ssize_t written = write(mailbox->wake_fd, &one, sizeof one);
        (void)written; /* a full counter still wakes */
    }
    pthread_mutex_unlock(&mailbox->lock);
    return true;
}

/*
 * The unblocked queue whose head was put first; NULL when none has a
 * message. Locked; on the consumer's thread, the only one that blocks and
 * unblocks its operators' channels.
 */
static MailboxQueue *mailbox_next_queue(Mailbox *mailbox)
{
    MailboxQueue *next = NULL;
    for (uint32_t q = 0; q < mailbox->queue_count; q++) {
        MailboxQueue *queue = &mailbox->queues[q];
        if (!queue->head || (next && next->head->sequence < queue->head->sequence) ||
            operator_channel_blocked(queue->target, queue->channel))
            continue;
        next = queue;
    }
    return next;
}

bool mailbox_prepare_wait(Mailbox *mailbox)
{
    pthread_mutex_lock(&mailbox->lock);
    bool wait = !mailbox_next_queue(mailbox);
    mailbox->consumer_waiting = wait;
    pthread_mutex_unlock(&mailbox->lock);
    return wait;
}

MailboxMessage *mailbox_take(Mailbox *mailbox, int64_t timeout_millis)
{
    pthread_mutex_lock(&mailbox->lock);
    MailboxQueue *queue = mailbox_next_queue(mailbox);
    if (!queue && timeout_millis > 0) {
        struct timespec deadline;
        deadline_after(&deadline, timeout_millis);
        while (!(queue = mailbox_next_queue(mailbox)) && !*mailbox->stop) {
            if (pthread_cond_timedwait(&mailbox->changed, &mailbox->lock, &deadline) == ETIMEDOUT)
                break;
        }
    }
    MailboxMessage *message = queue ? queue->head : NULL;
    if (message) {
        queue->head = message->next;
        if (!queue->head)
            queue->tail = NULL;
        queue->depth--;
        mailbox->depth--;
        pthread_cond_broadcast(&mailbox->changed);
    }
    pthread_mutex_unlock(&mailbox->lock);
    return message;
}

static MailboxMessage *channel_message(Operator *self, StreamElementKind kind,
                                       const RowBatch *batch)
{
    ChannelOperator *channel = self->impl;
    return stream_element_new(kind, &channel->destination, batch);
}

/* Puts `message` (NULL: it could not be made) into the channel's queue. */
static int channel_put(Operator *self, MailboxMessage *message)
{
    ChannelOperator *channel = self->impl;
    if (!message)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (!mailbox_put(channel->mailbox, channel->queue, message, &self->metrics.blocked_nanos))
        return JOINERY_CANCELLED;
    return JOINERY_OK;
}

static int channel_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    MailboxMessage *message = channel_message(self, STREAM_BATCH, batch);
    if (message)
        self->metrics.rows_out += batch->count;
    return channel_put(self, message);
}

static int channel_watermark(Operator *self, uint32_t input, int64_t watermark)
{
    (void)input;
    MailboxMessage *message = channel_message(self, STREAM_WATERMARK, NULL);
    if (message)
        message->watermark = watermark;
    return channel_put(self, message);
}

static int channel_watermark_status(Operator *self, uint32_t input, WatermarkStatus status)
{
    (void)input;
    MailboxMessage *message = channel_message(self, STREAM_WATERMARK_STATUS, NULL);
    if (message)
        message->watermark_status = status;
    return channel_put(self, message);
}

static int channel_barrier(Operator *self, uint32_t input, const Barrier *barrier)
{
    (void)input;
    MailboxMessage *message = channel_message(self, STREAM_BARRIER, NULL);
    if (message)
        message->barrier = *barrier;
    return channel_put(self, message);
}

static int channel_finish(Operator *self)
{
    return channel_put(self, channel_message(self, STREAM_END_OF_INPUT, NULL));
}

static void channel_close(Operator *self)
{
    free(self->impl);
}

static const OperatorVtable CHANNEL_VTABLE = {
    .process = channel_process,
    .watermark = channel_watermark,
    .watermark_status = channel_watermark_status,
    .barrier = channel_barrier,
    .finish = channel_finish,
    .close = channel_close,
};

Operator *channel_operator_create(Mailbox *mailbox, Operator *target, uint32_t input,
                                  uint32_t channel_index, Diag *diag)
{
    ChannelOperator *channel = calloc(1, sizeof *channel);
    int64_t queue = channel ? mailbox_add_queue(mailbox, target, channel_index) : -1;
    if (queue < 0) {
        free(channel);
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    channel->mailbox = mailbox;
    channel->queue = (uint32_t)queue;
    channel->destination.op = target;
    channel->destination.input = input;
    channel->destination.channel = channel_index;
    operator_init(&channel->base, &CHANNEL_VTABLE, "Channel", 1, channel);
    return &channel->base;
}
