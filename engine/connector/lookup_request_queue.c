/*
 * lookup_request_queue.c - the asynchronous requests of a lookup function
 * (contract in lookup_request_queue.h). Invariant: ring[head..tail)
 * (indexes modulo capacity, tail - head <= capacity) are the requests not
 * yet completed, oldest first; their sequence numbers increase by one.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/connector/lookup_request_queue.h"

void lookup_request_queue_init(LookupRequestQueue *queue)
{
    memset(queue, 0, sizeof *queue);
}

static void request_free(LookupRequest *request)
{
    lookup_request_clear_rows(request);
    free(request->rows);
    free(request->key);
    memset(request, 0, sizeof *request);
}

void lookup_request_queue_free(LookupRequestQueue *queue)
{
    for (uint32_t i = queue->head; i < queue->tail; i++)
        request_free(&queue->ring[i % queue->capacity]);
    free(queue->ring);
    lookup_request_queue_init(queue);
}

/* Doubles the ring (16 at first), the oldest request moved to index 0. */
static int grow(LookupRequestQueue *queue, Diag *diag)
{
    uint32_t capacity = queue->capacity ? queue->capacity * 2 : 16;
    LookupRequest *ring = calloc(capacity, sizeof *ring);
    if (!ring)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    for (uint32_t i = queue->head; i < queue->tail; i++)
        ring[i - queue->head] = queue->ring[i % queue->capacity];
    free(queue->ring);
    queue->ring = ring;
    queue->tail -= queue->head;
    queue->head = 0;
    queue->capacity = capacity;
    return JOINERY_OK;
}

int lookup_request_queue_push(LookupRequestQueue *queue, LookupFunction *function, const Row *key,
                              uint64_t request_id, LookupRequest **pushed, Diag *diag)
{
    function->requests++;
    if (queue->tail - queue->head == queue->capacity) {
        int status = grow(queue, diag);
        if (status != JOINERY_OK)
            return status;
    }
    LookupRequest *request = &queue->ring[queue->tail % queue->capacity];
    memset(request, 0, sizeof *request);
    request->key = row_copy_heap(key);
    if (!request->key)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    request->id = request_id;
    request->sequence = queue->next_sequence++;
    for (uint32_t k = 0; k < function->spec->key_count; k++)
        request->null_key |= row_is_null(key, k);
    queue->tail++;
    function->in_flight++;
    if (pushed)
        *pushed = request;
    return JOINERY_OK;
}

uint32_t lookup_request_queue_length(const LookupRequestQueue *queue)
{
    return queue->tail - queue->head;
}

LookupRequest *lookup_request_queue_at(const LookupRequestQueue *queue, uint32_t i)
{
    return &queue->ring[(queue->head + i) % queue->capacity];
}

bool lookup_request_pending(const LookupRequest *request)
{
    return !request->null_key && !request->done;
}

LookupRequest *lookup_request_queue_first_pending(const LookupRequestQueue *queue)
{
    for (uint32_t i = queue->head; i < queue->tail; i++) {
        LookupRequest *request = &queue->ring[i % queue->capacity];
        if (lookup_request_pending(request))
            return request;
    }
    return NULL;
}

LookupRequest *lookup_request_queue_find(const LookupRequestQueue *queue, uint64_t sequence)
{
    if (queue->head == queue->tail)
        return NULL;
    uint64_t oldest = queue->ring[queue->head % queue->capacity].sequence;
    if (sequence < oldest || sequence - oldest >= queue->tail - queue->head)
        return NULL;
    return lookup_request_queue_at(queue, (uint32_t)(sequence - oldest));
}

int lookup_request_add_row(LookupRequest *request, Row *row, Diag *diag)
{
    if (request->count == request->capacity) {
        uint32_t capacity = request->capacity ? request->capacity * 2 : 4;
        Row **grown = realloc(request->rows, capacity * sizeof *grown);
        if (!grown) {
            free(row);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        request->rows = grown;
        request->capacity = capacity;
    }
    request->rows[request->count++] = row;
    return JOINERY_OK;
}

void lookup_request_clear_rows(LookupRequest *request)
{
    for (uint32_t i = 0; i < request->count; i++)
        free(request->rows[i]);
    request->count = 0;
}

void lookup_request_queue_restart(LookupRequestQueue *queue)
{
    for (uint32_t i = queue->head; i < queue->tail; i++) {
        LookupRequest *request = &queue->ring[i % queue->capacity];
        if (!lookup_request_pending(request))
            continue;
        lookup_request_clear_rows(request);
        request->sent = false;
    }
}

int lookup_request_queue_complete(LookupRequestQueue *queue, LookupFunction *function,
                                  LookupCompletion completion, void *context)
{
    int status = JOINERY_OK;
    while (status == JOINERY_OK && queue->head < queue->tail) {
        LookupRequest *request = &queue->ring[queue->head % queue->capacity];
        if (lookup_request_pending(request))
            break;
        status = completion(context, request->id, request->rows, request->count);
        request_free(request);
        queue->head++;
        function->in_flight--;
    }
    return status;
}

int lookup_reconnect(LookupFunction *function, int64_t attempts, LookupConnect connect,
                     void *context, Diag *diag)
{
    Diag last;
    diag_clear(&last);
    for (int64_t attempt = 1; attempt <= attempts; attempt++) {
        if (function->spec->cancel_requested && *function->spec->cancel_requested)
            return diag_error(diag, JOINERY_CANCELLED, "cancelled");
        struct timespec pause = {0, 100000000L * (attempt - 1 < 9 ? attempt - 1 : 9)};
        nanosleep(&pause, NULL);
        diag_clear(&last);
        if (connect(context, &last) == JOINERY_OK) {
            function->reconnects++;
            return JOINERY_OK;
        }
    }
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "%s (after %lld reconnect attempts)",
                      last.message[0] ? last.message : "connection lost",
                      (long long)(attempts > 0 ? attempts : 0));
}
