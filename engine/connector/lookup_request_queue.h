/*
 * lookup_request_queue.h - the asynchronous requests of one lookup function
 * (lookup.h), shared by every store's LookupFunction (jdbc PostgreSQL,
 * jdbc MySQL / MariaDB, redis): a growable ring of requests in submission
 * order, the reconnect loop, and the hand-over of finished requests to
 * the completion callback.
 *
 * Contract:
 * - Ownership: the queue owns a heap copy of every request's key and the
 *   heap rows added to it (lookup_request_add_row takes the row); both
 *   are freed when the request is completed (after its callback returns)
 *   or when the queue is freed.
 * - Ordering: requests are completed strictly in submission order; a
 *   request answered before an earlier one waits for it. A request whose
 *   key has a NULL field (`null_key`) matches nothing (SQL `=`): it is
 *   never sent and completes with no rows in its turn.
 * - Pending: a request not null_key and not `done`; the store sends the
 *   pending requests in submission order and marks one `done` when its
 *   whole answer has arrived (its rows added).
 * - Reconnect: after a broken connection the store calls
 *   lookup_request_queue_restart, which drops the partial rows of every
 *   pending request and clears its `sent` mark; every request not yet
 *   answered is then sent again once, in submission order, on the new
 *   connection (lookups are reads: re-sending is safe). Answered requests
 *   keep their rows and are not sent again.
 * - The function's counters: push counts the request (`requests`,
 *   `in_flight`); complete takes finished ones off `in_flight`.
 */
#ifndef JOINERY_CONNECTOR_LOOKUP_REQUEST_QUEUE_H
#define JOINERY_CONNECTOR_LOOKUP_REQUEST_QUEUE_H

#include "engine/connector/lookup.h"

typedef struct LookupRequest {
    uint64_t id;       /* the caller's request id, given back to the completion */
    uint64_t sequence; /* 0, 1, ... in submission order: a tag a store can send along */
    Row *key;          /* heap copy, owned */
    bool null_key;     /* matches nothing: never sent */
    bool sent;         /* on the current connection (the store sets it; restart clears it) */
    bool done;         /* its whole answer arrived */
    Row **rows;        /* heap rows, owned */
    uint32_t count;
    uint32_t capacity;
} LookupRequest;

typedef struct LookupRequestQueue {
    LookupRequest *ring;
    uint32_t head, tail, capacity; /* ring[head..tail) modulo capacity: not completed */
    uint64_t next_sequence;
} LookupRequestQueue;

/* An empty queue (no allocation). */
void lookup_request_queue_init(LookupRequestQueue *queue);

/* Frees every request (keys, rows) and the ring. */
void lookup_request_queue_free(LookupRequestQueue *queue);

/*
 * Appends a request for `key` (copied) with `request_id`, counting it in
 * function->requests and function->in_flight; *request (may be NULL) is
 * the new request, valid until the next push. JOINERY_OK or
 * JOINERY_ERROR_NO_MEMORY (nothing appended).
 */
int lookup_request_queue_push(LookupRequestQueue *queue, LookupFunction *function, const Row *key,
                              uint64_t request_id, LookupRequest **request, Diag *diag);

/* Requests not yet completed. */
uint32_t lookup_request_queue_length(const LookupRequestQueue *queue);

/* The i-th request not yet completed (0: the oldest); i < length. */
LookupRequest *lookup_request_queue_at(const LookupRequestQueue *queue, uint32_t i);

/* True when the request waits for the store: not null_key, not done. */
bool lookup_request_pending(const LookupRequest *request);

/* The oldest pending request (the one the store's next answer belongs to), or NULL. */
LookupRequest *lookup_request_queue_first_pending(const LookupRequestQueue *queue);

/* The request tagged `sequence`, or NULL (already completed). */
LookupRequest *lookup_request_queue_find(const LookupRequestQueue *queue, uint64_t sequence);

/* Appends `row` (heap, ownership taken even on failure) to the request's rows. */
int lookup_request_add_row(LookupRequest *request, Row *row, Diag *diag);

/* Frees the rows added so far (a partial answer). */
void lookup_request_clear_rows(LookupRequest *request);

/* After a reconnect: every pending request loses its partial rows and its `sent` mark. */
void lookup_request_queue_restart(LookupRequestQueue *queue);

/*
 * Calls `completion` for each finished request at the head (done or
 * null_key), oldest first, then frees it and takes it off
 * function->in_flight; stops at the first pending request or at the first
 * callback error (returned; that request is still completed).
 */
int lookup_request_queue_complete(LookupRequestQueue *queue, LookupFunction *function,
                                  LookupCompletion completion, void *context);

/* Opens a connection; JOINERY_OK or an error with diag filled. */
typedef int (*LookupConnect)(void *context, Diag *diag);

/*
 * The reconnect loop every store uses after a broken connection: up to
 * `attempts` calls of `connect`, 100 ms * (attempt - 1) apart (at most
 * 900 ms), stopping early with JOINERY_CANCELLED when the spec's
 * cancel_requested is set. A success counts in function->reconnects.
 * When every attempt fails (or attempts <= 0): JOINERY_ERROR_RUNTIME
 * "<last failure> (after N reconnect attempts)".
 */
int lookup_reconnect(LookupFunction *function, int64_t attempts, LookupConnect connect,
                     void *context, Diag *diag);

#endif
