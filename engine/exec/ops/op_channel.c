/*
 * op_channel.c - mailboxes and the channel operator (see op_channel.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/exec/ops/op_channel.h"

#include "engine/base/value.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ChannelOperator {
    Operator base;
    Mailbox *mailbox;
    Operator *target;
    uint32_t input;
    uint32_t channel;
} ChannelOperator;

int mailbox_init(Mailbox *mailbox, uint32_t capacity, volatile int *stop,
                 _Atomic int64_t *in_flight)
{
    memset(mailbox, 0, sizeof *mailbox);
    mailbox->capacity = capacity;
    mailbox->stop = stop;
    mailbox->in_flight = in_flight;
    if (pthread_mutex_init(&mailbox->lock, NULL) != 0)
        return JOINERY_ERROR;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    int status = pthread_cond_init(&mailbox->changed, &attributes);
    pthread_condattr_destroy(&attributes);
    if (status != 0) {
        pthread_mutex_destroy(&mailbox->lock);
        return JOINERY_ERROR;
    }
    return JOINERY_OK;
}

void mailbox_destroy(Mailbox *mailbox)
{
    MailboxMessage *message = mailbox->head;
    while (message) {
        MailboxMessage *next = message->next;
        free(message);
        message = next;
    }
    pthread_cond_destroy(&mailbox->changed);
    pthread_mutex_destroy(&mailbox->lock);
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
 * Appends a message, waiting while the mailbox is full (the wait is added to
 * *blocked_nanos); false when the job stopped.
 */
static bool mailbox_put(Mailbox *mailbox, MailboxMessage *message, uint64_t *blocked_nanos)
{
    pthread_mutex_lock(&mailbox->lock);
    if (mailbox->depth >= mailbox->capacity) {
        int64_t start = datetime_monotonic_nanos();
        while (mailbox->depth >= mailbox->capacity && !*mailbox->stop) {
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
    if (mailbox->in_flight)
        atomic_fetch_add(mailbox->in_flight, 1);
    if (mailbox->tail)
        mailbox->tail->next = message;
    else
        mailbox->head = message;
    mailbox->tail = message;
    mailbox->depth++;
    pthread_cond_broadcast(&mailbox->changed);
    pthread_mutex_unlock(&mailbox->lock);
    return true;
}

MailboxMessage *mailbox_take(Mailbox *mailbox, int64_t timeout_millis)
{
    pthread_mutex_lock(&mailbox->lock);
    if (!mailbox->head && timeout_millis > 0) {
        struct timespec deadline;
        deadline_after(&deadline, timeout_millis);
        while (!mailbox->head && !*mailbox->stop) {
            if (pthread_cond_timedwait(&mailbox->changed, &mailbox->lock, &deadline) == ETIMEDOUT)
                break;
        }
    }
    MailboxMessage *message = mailbox->head;
    if (message) {
        mailbox->head = message->next;
        if (!mailbox->head)
            mailbox->tail = NULL;
        mailbox->depth--;
        pthread_cond_broadcast(&mailbox->changed);
    }
    pthread_mutex_unlock(&mailbox->lock);
    return message;
}

static MailboxMessage *message_new(ChannelOperator *channel, MailboxMessageKind kind, size_t extra)
{
    MailboxMessage *message = malloc(sizeof *message + extra);
    if (!message)
        return NULL;
    memset(message, 0, sizeof *message);
    message->kind = kind;
    message->target = channel->target;
    message->input = channel->input;
    message->channel = channel->channel;
    return message;
}

static int channel_send(Operator *self, MailboxMessage *message)
{
    ChannelOperator *channel = self->impl;
    if (!message)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (!mailbox_put(channel->mailbox, message, &self->metrics.blocked_nanos))
        return JOINERY_CANCELLED;
    return JOINERY_OK;
}

static int channel_process(Operator *self, uint32_t input, const RowBatch *batch)
{
    (void)input;
    ChannelOperator *channel = self->impl;
    size_t pointers = sizeof(Row *) * batch->count;
    size_t bytes = 0;
    for (uint32_t i = 0; i < batch->count; i++)
        bytes += row_size(batch->rows[i]);
    /* rows are 8-byte multiples; the pointer array keeps them 8-aligned */
    MailboxMessage *message = message_new(channel, MAILBOX_BATCH, pointers + bytes + 8);
    if (!message)
        return operator_fail(self, JOINERY_ERROR_NO_MEMORY, "out of memory");
    unsigned char *memory = (unsigned char *)(message + 1);
    Row **rows = (Row **)memory;
    unsigned char *cursor = memory + ((pointers + 7) & ~(size_t)7);
    for (uint32_t i = 0; i < batch->count; i++) {
        uint32_t size = row_size(batch->rows[i]);
        memcpy(cursor, batch->rows[i], size);
        rows[i] = (Row *)cursor;
        cursor += size;
    }
    message->batch.rows = rows;
    message->batch.count = batch->count;
    message->batch.capacity = batch->count;
    self->metrics.rows_out += batch->count;
    return channel_send(self, message);
}

static int channel_watermark(Operator *self, uint32_t input, int64_t watermark)
{
    (void)input;
    MailboxMessage *message = message_new(self->impl, MAILBOX_WATERMARK, 0);
    if (message)
        message->watermark = watermark;
    return channel_send(self, message);
}

static int channel_watermark_status(Operator *self, uint32_t input, WatermarkStatus status)
{
    (void)input;
    MailboxMessage *message = message_new(self->impl, MAILBOX_WATERMARK_STATUS, 0);
    if (message)
        message->watermark_status = status;
    return channel_send(self, message);
}

static int channel_finish(Operator *self)
{
    return channel_send(self, message_new(self->impl, MAILBOX_END_OF_INPUT, 0));
}

static void channel_close(Operator *self)
{
    free(self->impl);
}

static const OperatorVtable CHANNEL_VTABLE = {
    .process = channel_process,
    .watermark = channel_watermark,
    .watermark_status = channel_watermark_status,
    .finish = channel_finish,
    .close = channel_close,
};

Operator *channel_operator_create(Mailbox *mailbox, Operator *target, uint32_t input,
                                  uint32_t channel_index, Diag *diag)
{
    ChannelOperator *channel = calloc(1, sizeof *channel);
    if (!channel) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    channel->mailbox = mailbox;
    channel->target = target;
    channel->input = input;
    channel->channel = channel_index;
    operator_init(&channel->base, &CHANNEL_VTABLE, "Channel", 1, channel);
    return &channel->base;
}
