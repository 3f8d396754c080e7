/*
 * op_channel.h - the hand-over between two tasks (threads) of a job.
 *
 * A channel stands in the producer's thread where the consumer operator
 * would be: it copies each batch it receives into one heap block and puts
 * it, with watermarks, watermark status changes (IDLE / ACTIVE), barriers
 * and the end-of-input signal, into the consumer task's mailbox, in the
 * order they were sent (stream elements, operator.h). The consumer's
 * thread takes messages out and delivers them to the real operator
 * (operator_deliver).
 *
 * A mailbox holds one bounded queue per channel into it (per upstream
 * channel of an operator of the consumer task), so a fast producer waits
 * for a slow consumer (backpressure) without holding back the others, and
 * a channel blocked at a barrier (operator.h: "Barriers") stops only its
 * own producer: the consumer does not take from the queue of a blocked
 * channel until the barrier is aligned. Unblocked queues are taken in the
 * order of their puts. The job graph is a tree of subtasks (every
 * subtask feeds only subtasks of its parent plan node), so waits cannot
 * form a cycle, blocked channels included.
 *
 * Threading: puts come from producer threads; mailbox_take and everything
 * else from the consumer's thread (or before the threads start).
 */
#ifndef JOINERY_EXEC_OP_CHANNEL_H
#define JOINERY_EXEC_OP_CHANNEL_H

#include <pthread.h>
#include <stdbool.h>

#include "engine/exec/operator.h"

/* What a mailbox holds: a stream element (operator.h); kinds STREAM_*. */
typedef StreamElement MailboxMessage;

/* The queue of one channel into the mailbox. */
typedef struct MailboxQueue {
    MailboxMessage *head;
    MailboxMessage *tail;
    uint32_t depth;
    Operator *target; /* the consumer operator and its upstream channel the queue feeds */
    uint32_t channel;
} MailboxQueue;

typedef struct Mailbox {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    MailboxQueue *queues;
    uint32_t queue_count;
    uint32_t depth;    /* messages queued, over every queue */
    uint32_t capacity; /* of each queue */
    uint64_t sequence; /* of the next put */
    int wake_fd;       /* eventfd written by a put while the consumer waits (exec_io.h) */
    bool consumer_waiting;
    volatile int *stop; /* set when the job stops: waiting producers give up */
    /* messages of the job queued or being delivered: raised by every put, before the
       message is visible; the consumer lowers it once the message is fully delivered
       (after anything its delivery sent was counted). NULL: not counted. */
    _Atomic int64_t *in_flight;
} Mailbox;

/*
 * Initialises an empty mailbox whose queues hold at most `capacity`
 * messages each; puts raise *in_flight (may be NULL).
 */
int mailbox_init(Mailbox *mailbox, uint32_t capacity, volatile int *stop,
                 _Atomic int64_t *in_flight);
/* Frees queued messages and the synchronisation objects. */
void mailbox_destroy(Mailbox *mailbox);
/*
 * The consumer is about to wait (exec_io_wait on wake_fd): false when a
 * message can be taken now; else true, and the next put signals wake_fd.
 */
bool mailbox_prepare_wait(Mailbox *mailbox);
/*
 * Takes the oldest message of the queues whose channel is not blocked,
 * waiting up to `timeout_millis` (0: do not wait). Returns NULL when none
 * arrived. The caller frees it with free().
 */
MailboxMessage *mailbox_take(Mailbox *mailbox, int64_t timeout_millis);

/*
 * A channel into `mailbox` for input `input` of `target`, where it is
 * upstream channel `channel` (see OperatorTarget); it adds its queue to the
 * mailbox (before the threads start). NULL on no memory.
 */
Operator *channel_operator_create(Mailbox *mailbox, Operator *target, uint32_t input,
                                  uint32_t channel, Diag *diag);

#endif
