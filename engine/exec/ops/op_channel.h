/*
 * op_channel.h - the hand-over between two tasks (threads) of a job.
 *
 * A channel stands in the producer's thread where the consumer operator
 * would be: it copies each batch it receives into one heap block and puts
 * it, with watermarks, watermark status changes (IDLE / ACTIVE) and the
 * end-of-input signal, into the consumer task's mailbox, in the order they
 * were sent. The consumer's thread takes messages out and pushes them into the
 * real operator. Mailboxes are bounded, so a fast producer waits for a slow
 * consumer (backpressure); the job graph is acyclic, so waits cannot form a
 * cycle.
 */
#ifndef JOINERY_EXEC_OP_CHANNEL_H
#define JOINERY_EXEC_OP_CHANNEL_H

#include <pthread.h>
#include <stdbool.h>

#include "engine/exec/operator.h"

typedef enum MailboxMessageKind {
    MAILBOX_BATCH,
    MAILBOX_WATERMARK,
    MAILBOX_WATERMARK_STATUS,
    MAILBOX_END_OF_INPUT,
} MailboxMessageKind;

typedef struct MailboxMessage {
    MailboxMessageKind kind;
    Operator *target;
    uint32_t input;
    uint32_t channel;                 /* which of target's upstream channels sent it */
    int64_t watermark;                /* MAILBOX_WATERMARK */
    WatermarkStatus watermark_status; /* MAILBOX_WATERMARK_STATUS */
    RowBatch batch;                   /* rows live in the same allocation as the message */
    struct MailboxMessage *next;
} MailboxMessage;

typedef struct Mailbox {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    MailboxMessage *head;
    MailboxMessage *tail;
    uint32_t depth;
    uint32_t capacity;
    volatile int *stop; /* set when the job stops: waiting producers give up */
    /* messages of the job queued or being delivered: raised by every put, before the
       message is visible; the consumer lowers it once the message is fully delivered
       (after anything its delivery sent was counted). NULL: not counted. */
    _Atomic int64_t *in_flight;
} Mailbox;

/*
 * Initialises an empty mailbox holding at most `capacity` messages; puts
 * raise *in_flight (may be NULL).
 */
int mailbox_init(Mailbox *mailbox, uint32_t capacity, volatile int *stop,
                 _Atomic int64_t *in_flight);
/* Frees queued messages and the synchronisation objects. */
void mailbox_destroy(Mailbox *mailbox);
/*
 * Takes the oldest message, waiting up to `timeout_millis` (0: do not wait).
 * Returns NULL when none arrived. The caller frees it with free().
 */
MailboxMessage *mailbox_take(Mailbox *mailbox, int64_t timeout_millis);

/*
 * A channel into `mailbox` for input `input` of `target`, where it is
 * upstream channel `channel` (see OperatorTarget). NULL on no memory.
 */
Operator *channel_operator_create(Mailbox *mailbox, Operator *target, uint32_t input,
                                  uint32_t channel, Diag *diag);

#endif
