/*
 * nexmark.c - the 'nexmark' source: the events of Flink's Nexmark
 * benchmark (generator in nexmark_generator.c), one row per event.
 *
 * Schema: upstream's table has event_type INT and three ROW columns
 * (person, auction, bid), one of them set per event. joinery has no ROW
 * type, so the fields are flat columns named <row>_<field> (person_id,
 * auction_itemName, bid_dateTime, ...; NEXMARK_FIELDS below), NULL for the
 * other kinds. A table may declare any of them, in any order; each is
 * matched by name and must have upstream's type (BIGINT, a VARCHAR/STRING,
 * TIMESTAMP, event_type INT), nullable except event_type.
 *
 * Options are upstream's (NexmarkSourceOptions), plus 'seed' and
 * 'base-time', which replace upstream's clock-seeded random numbers and
 * clock-based event time. Upstream accepts rate.shape, rate.period,
 * rate.limited and next-event.rate but its generator ignores them (the
 * inter-event delay comes from first-event.rate alone); so does this one.
 *
 * Splits: the event sequence does not depend on the parallelism. Reader i
 * of p emits events n with n % p == i, so the union over readers is the
 * parallelism-1 sequence. Every reader draws the whole sequence's random
 * numbers (they are one stream, as upstream's) but builds rows only for
 * its own events, and passes over the others without their prices' pow().
 * Upstream instead gives each split its own id range and random stream on
 * its own timeline, so its events change with the parallelism.
 *
 * Rate: with 'max-emit-speed' = 'true' (upstream's default) events come as
 * fast as the job takes them. With 'false', event n is due at the reader's
 * first poll plus its event time minus base-time, as upstream sleeps until
 * then; poll returns SOURCE_POLL_IDLE with the due time instead of
 * sleeping.
 *
 * Bounds: events.num events (0: unbounded, upstream's ~3.7e14), fewer with
 * stop-at; 'keep-alive' = 'true' keeps the source open (idle) at the end.
 *
 * Rows are written straight into the poll's arena, one allocation each.
 */
#include "engine/connector/connector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/base/duration.h"
#include "engine/base/memory_size.h"
#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/connector/nexmark_internal.h"

/* ------------------------------------------------------------- schema */

typedef enum NexmarkValueKind {
    VALUE_INT,       /* event_type */
    VALUE_BIGINT,    /* ids, prices */
    VALUE_STRING,    /* VARCHAR / STRING */
    VALUE_TIMESTAMP, /* TIMESTAMP(3) */
} NexmarkValueKind;

typedef enum NexmarkField {
    FIELD_EVENT_TYPE,
    FIELD_PERSON_ID,
    FIELD_PERSON_NAME,
    FIELD_PERSON_EMAIL_ADDRESS,
    FIELD_PERSON_CREDIT_CARD,
    FIELD_PERSON_CITY,
    FIELD_PERSON_STATE,
    FIELD_PERSON_DATE_TIME,
    FIELD_PERSON_EXTRA,
    FIELD_AUCTION_ID,
    FIELD_AUCTION_ITEM_NAME,
    FIELD_AUCTION_DESCRIPTION,
    FIELD_AUCTION_INITIAL_BID,
    FIELD_AUCTION_RESERVE,
    FIELD_AUCTION_DATE_TIME,
    FIELD_AUCTION_EXPIRES,
    FIELD_AUCTION_SELLER,
    FIELD_AUCTION_CATEGORY,
    FIELD_AUCTION_EXTRA,
    FIELD_BID_AUCTION,
    FIELD_BID_BIDDER,
    FIELD_BID_PRICE,
    FIELD_BID_CHANNEL,
    FIELD_BID_URL,
    FIELD_BID_DATE_TIME,
    FIELD_BID_EXTRA,
    FIELD_COUNT,
} NexmarkField;

typedef struct NexmarkFieldInfo {
    const char *name;
    int event_type; /* NexmarkEventType whose row has the field; -1: every event */
    NexmarkValueKind kind;
} NexmarkFieldInfo;

static const NexmarkFieldInfo NEXMARK_FIELDS[FIELD_COUNT] = {
    [FIELD_EVENT_TYPE] = {"event_type", -1, VALUE_INT},
    [FIELD_PERSON_ID] = {"person_id", NEXMARK_PERSON, VALUE_BIGINT},
    [FIELD_PERSON_NAME] = {"person_name", NEXMARK_PERSON, VALUE_STRING},
    [FIELD_PERSON_EMAIL_ADDRESS] = {"person_emailAddress", NEXMARK_PERSON, VALUE_STRING},
    [FIELD_PERSON_CREDIT_CARD] = {"person_creditCard", NEXMARK_PERSON, VALUE_STRING},
    [FIELD_PERSON_CITY] = {"person_city", NEXMARK_PERSON, VALUE_STRING},
    [FIELD_PERSON_STATE] = {"person_state", NEXMARK_PERSON, VALUE_STRING},
    [FIELD_PERSON_DATE_TIME] = {"person_dateTime", NEXMARK_PERSON, VALUE_TIMESTAMP},
    [FIELD_PERSON_EXTRA] = {"person_extra", NEXMARK_PERSON, VALUE_STRING},
    [FIELD_AUCTION_ID] = {"auction_id", NEXMARK_AUCTION, VALUE_BIGINT},
    [FIELD_AUCTION_ITEM_NAME] = {"auction_itemName", NEXMARK_AUCTION, VALUE_STRING},
    [FIELD_AUCTION_DESCRIPTION] = {"auction_description", NEXMARK_AUCTION, VALUE_STRING},
    [FIELD_AUCTION_INITIAL_BID] = {"auction_initialBid", NEXMARK_AUCTION, VALUE_BIGINT},
    [FIELD_AUCTION_RESERVE] = {"auction_reserve", NEXMARK_AUCTION, VALUE_BIGINT},
    [FIELD_AUCTION_DATE_TIME] = {"auction_dateTime", NEXMARK_AUCTION, VALUE_TIMESTAMP},
    [FIELD_AUCTION_EXPIRES] = {"auction_expires", NEXMARK_AUCTION, VALUE_TIMESTAMP},
    [FIELD_AUCTION_SELLER] = {"auction_seller", NEXMARK_AUCTION, VALUE_BIGINT},
    [FIELD_AUCTION_CATEGORY] = {"auction_category", NEXMARK_AUCTION, VALUE_BIGINT},
    [FIELD_AUCTION_EXTRA] = {"auction_extra", NEXMARK_AUCTION, VALUE_STRING},
    [FIELD_BID_AUCTION] = {"bid_auction", NEXMARK_BID, VALUE_BIGINT},
    [FIELD_BID_BIDDER] = {"bid_bidder", NEXMARK_BID, VALUE_BIGINT},
    [FIELD_BID_PRICE] = {"bid_price", NEXMARK_BID, VALUE_BIGINT},
    [FIELD_BID_CHANNEL] = {"bid_channel", NEXMARK_BID, VALUE_STRING},
    [FIELD_BID_URL] = {"bid_url", NEXMARK_BID, VALUE_STRING},
    [FIELD_BID_DATE_TIME] = {"bid_dateTime", NEXMARK_BID, VALUE_TIMESTAMP},
    [FIELD_BID_EXTRA] = {"bid_extra", NEXMARK_BID, VALUE_STRING},
};

static int field_by_name(const char *name)
{
    for (int i = 0; i < FIELD_COUNT; i++)
        if (strcmp(NEXMARK_FIELDS[i].name, name) == 0)
            return i;
    return -1;
}

static bool kind_accepts(NexmarkValueKind kind, DataType type)
{
    switch (kind) {
    case VALUE_INT:
        return type.id == TYPE_INT;
    case VALUE_BIGINT:
        return type.id == TYPE_BIGINT;
    case VALUE_STRING:
        return type.id == TYPE_VARCHAR;
    case VALUE_TIMESTAMP:
        return type.id == TYPE_TIMESTAMP;
    }
    return false;
}

static const char *kind_name(NexmarkValueKind kind)
{
    static const char *const NAMES[] = {"INT", "BIGINT", "STRING", "TIMESTAMP(3)"};
    return NAMES[kind];
}

static int check_columns(const CatalogTable *table, Diag *diag)
{
    const char *names[FIELD_COUNT];
    for (int i = 0; i < FIELD_COUNT; i++)
        names[i] = NEXMARK_FIELDS[i].name;
    for (size_t c = 0; c < table->column_count; c++) {
        const CatalogColumn *column = &table->columns[c];
        if (column->kind == CATALOG_COLUMN_METADATA)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Connector 'nexmark' provides no metadata (column '%s')",
                              column->name);
        if (column->kind != CATALOG_COLUMN_PHYSICAL)
            continue;
        int field = field_by_name(column->name);
        if (field < 0) {
            StrBuf message = STRBUF_INIT;
            strbuf_printf(&message, "Connector 'nexmark' has no column '%s'.", column->name);
            const char *suggestion = catalog_suggest_name(column->name, names, FIELD_COUNT);
            if (suggestion)
                strbuf_printf(&message, " Did you mean '%s'?", suggestion);
            strbuf_append_cstr(&message, " Columns: ");
            for (int i = 0; i < FIELD_COUNT; i++)
                strbuf_printf(&message, "%s%s", i ? ", " : "", names[i]);
            int status = diag_error(diag, JOINERY_ERROR_VALIDATE, "%s",
                                    message.data ? message.data : "Unknown nexmark column");
            strbuf_free(&message);
            return status;
        }
        const NexmarkFieldInfo *info = &NEXMARK_FIELDS[field];
        if (!kind_accepts(info->kind, column->type)) {
            char type_name[64];
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Column '%s' of connector 'nexmark' is %s, not %s", column->name,
                              kind_name(info->kind),
                              type_format(column->type, type_name, sizeof type_name));
        }
        if (info->event_type >= 0 && !column->type.nullable)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Column '%s' of connector 'nexmark' cannot be NOT NULL: it is NULL "
                              "in the rows of the other event types",
                              column->name);
    }
    return JOINERY_OK;
}

/* ------------------------------------------------------------ options */

typedef struct NexmarkOptions {
    NexmarkConfig config;
    bool keep_alive;
    bool max_emit_speed;
} NexmarkOptions;

static int invalid_option(Diag *diag, const char *key, const char *value, const char *expected)
{
    return diag_error(diag, JOINERY_ERROR_VALIDATE,
                      "Invalid value for option '%s': '%s' (expected %s)", key, value, expected);
}

static int read_int(const CatalogTable *table, const char *key, int64_t low, int32_t *result,
                    Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    int64_t value;
    if (!text)
        return JOINERY_OK;
    if (!connector_parse_int64(text, &value) || value < low || value > INT32_MAX) {
        char expected[64];
        snprintf(expected, sizeof expected, "an integer from %lld to 2147483647", (long long)low);
        return invalid_option(diag, key, text, expected);
    }
    *result = (int32_t)value;
    return JOINERY_OK;
}

static int read_size(const CatalogTable *table, const char *key, int32_t *result, Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    uint64_t bytes;
    if (!text)
        return JOINERY_OK;
    if (memory_size_parse(text, &bytes) != 0 || bytes > INT32_MAX)
        return invalid_option(diag, key, text, "a memory size such as '100b' or '1kb', below 2gb");
    *result = (int32_t)bytes;
    return JOINERY_OK;
}

static int read_bool(const CatalogTable *table, const char *key, bool *result, Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    if (text && !connector_parse_bool(text, result))
        return invalid_option(diag, key, text, "'true' or 'false'");
    return JOINERY_OK;
}

static int read_long(const CatalogTable *table, const char *key, int64_t low, int64_t *result,
                     Diag *diag)
{
    const char *text = catalog_table_option(table, key);
    if (text && (!connector_parse_int64(text, result) || *result < low)) {
        char expected[64];
        snprintf(expected, sizeof expected, "an integer of at least %lld", (long long)low);
        return invalid_option(diag, key, text, expected);
    }
    return JOINERY_OK;
}

/* Reads and checks every option; the ignored ones only for their form. */
static int parse_options(const CatalogTable *table, NexmarkOptions *options, Diag *diag)
{
    NexmarkConfig *config = &options->config;
    nexmark_config_defaults(config);
    options->keep_alive = false;
    options->max_emit_speed = true;
    int32_t next_rate = 0;
    bool rate_limited = false;
    const struct {
        const char *key;
        int64_t low;
        int32_t *value;
    } INTS[] = {
        {"first-event.rate", 1, &config->first_event_rate},
        {"next-event.rate", 1, &next_rate},
        {"person.proportion", 0, &config->person_proportion},
        {"auction.proportion", 0, &config->auction_proportion},
        {"bid.proportion", 0, &config->bid_proportion},
        {"bid.hot-ratio.auctions", 1, &config->hot_auction_ratio},
        {"bid.hot-ratio.bidders", 1, &config->hot_bidders_ratio},
        {"auction.hot-ratio.sellers", 1, &config->hot_sellers_ratio},
    };
    const struct {
        const char *key;
        int32_t *value;
    } SIZES[] = {
        {"person.avg-size", &config->avg_person_bytes},
        {"auction.avg-size", &config->avg_auction_bytes},
        {"bid.avg-size", &config->avg_bid_bytes},
    };
    const struct {
        const char *key;
        int64_t low;
        int64_t *value;
    } LONGS[] = {
        {"events.num", 0, &config->events_num},
        {"stop-at", INT64_MIN, &config->stop_at},
        {"seed", INT64_MIN, &config->seed},
    };
    const struct {
        const char *key;
        bool *value;
    } BOOLS[] = {
        {"keep-alive", &options->keep_alive},
        {"max-emit-speed", &options->max_emit_speed},
        {"rate.limited", &rate_limited},
    };
    int status = JOINERY_OK;
    for (size_t i = 0; i < sizeof INTS / sizeof INTS[0] && status == JOINERY_OK; i++)
        status = read_int(table, INTS[i].key, INTS[i].low, INTS[i].value, diag);
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0] && status == JOINERY_OK; i++)
        status = read_size(table, SIZES[i].key, SIZES[i].value, diag);
    for (size_t i = 0; i < sizeof LONGS / sizeof LONGS[0] && status == JOINERY_OK; i++)
        status = read_long(table, LONGS[i].key, LONGS[i].low, LONGS[i].value, diag);
    for (size_t i = 0; i < sizeof BOOLS / sizeof BOOLS[0] && status == JOINERY_OK; i++)
        status = read_bool(table, BOOLS[i].key, BOOLS[i].value, diag);
    if (status != JOINERY_OK)
        return status;
    const char *shape = catalog_table_option(table, "rate.shape");
    if (shape && strcasecmp(shape, "square") != 0 && strcasecmp(shape, "sine") != 0)
        return invalid_option(diag, "rate.shape", shape, "'SQUARE' or 'SINE'");
    const char *period = catalog_table_option(table, "rate.period");
    int64_t millis;
    if (period && (duration_parse_millis(period, &millis) != 0 || millis < 0))
        return invalid_option(diag, "rate.period", period, "a duration such as '600 s'");
    const char *base_time = catalog_table_option(table, "base-time");
    if (base_time) {
        Value value;
        char reason[96];
        if (value_parse_text(type_make_timestamp(TYPE_TIMESTAMP, 3, true), base_time,
                             (uint32_t)strlen(base_time), NULL, &value, reason, sizeof reason) != 0)
            return invalid_option(diag, "base-time", base_time,
                                  "a timestamp such as '2015-07-15 00:00:00' (UTC)");
        config->base_time = value.i;
    }
    int64_t total =
        (int64_t)config->person_proportion + config->auction_proportion + config->bid_proportion;
    if (total <= 0 || total > INT32_MAX)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The proportions of connector 'nexmark' (person.proportion, "
                          "auction.proportion, bid.proportion) must add up to between 1 and "
                          "2147483647");
    return JOINERY_OK;
}

static int nexmark_validate(const CatalogTable *table, Diag *diag)
{
    NexmarkOptions options;
    int status = parse_options(table, &options, diag);
    return status == JOINERY_OK ? check_columns(table, diag) : status;
}

static bool nexmark_is_bounded(const CatalogTable *table)
{
    NexmarkOptions options;
    Diag diag;
    diag_clear(&diag);
    if (parse_options(table, &options, &diag) != JOINERY_OK || options.keep_alive)
        return false;
    return options.config.events_num > 0 || options.config.stop_at >= 0;
}

static double nexmark_estimate_rows(const CatalogTable *table)
{
    NexmarkOptions options;
    Diag diag;
    diag_clear(&diag);
    if (!nexmark_is_bounded(table) || parse_options(table, &options, &diag) != JOINERY_OK)
        return -1;
    return (double)nexmark_config_max_events(&options.config);
}

/* ------------------------------------------------------------- reader */

enum { NEXMARK_IDLE_MILLIS = 1000 }; /* keep-alive: poll again after this long */

/* The non-NULL fields of one event type's rows, and the NULL bitmap. */
typedef struct NexmarkLayout {
    uint64_t null_bits;
    uint32_t count;
    uint32_t outputs[FIELD_COUNT]; /* produced field index */
    uint8_t fields[FIELD_COUNT];   /* NexmarkField */
} NexmarkLayout;

typedef struct NexmarkReader {
    SourceReader base;
    NexmarkGenerator generator;
    NexmarkOptions options;
    uint32_t field_count;
    NexmarkLayout layouts[3];
    int parallelism;
    int64_t next_own; /* count of the next event this reader emits: subtask, + parallelism, ... */
    bool started;
    bool restored; /* from a checkpoint: the first poll skips to next_own, then paces from there */
    int64_t wall_base_millis; /* first poll: when event time base_time is due */
} NexmarkReader;

static bool event_text(const NexmarkEvent *event, NexmarkField field, NexmarkText *text)
{
    switch (field) {
    case FIELD_PERSON_NAME:
        *text = event->person.name;
        return true;
    case FIELD_PERSON_EMAIL_ADDRESS:
        *text = event->person.email_address;
        return true;
    case FIELD_PERSON_CREDIT_CARD:
        *text = event->person.credit_card;
        return true;
    case FIELD_PERSON_CITY:
        *text = event->person.city;
        return true;
    case FIELD_PERSON_STATE:
        *text = event->person.state;
        return true;
    case FIELD_PERSON_EXTRA:
        *text = event->person.extra;
        return true;
    case FIELD_AUCTION_ITEM_NAME:
        *text = event->auction.item_name;
        return true;
    case FIELD_AUCTION_DESCRIPTION:
        *text = event->auction.description;
        return true;
    case FIELD_AUCTION_EXTRA:
        *text = event->auction.extra;
        return true;
    case FIELD_BID_CHANNEL:
        *text = event->bid.channel;
        return true;
    case FIELD_BID_URL:
        *text = event->bid.url;
        return true;
    case FIELD_BID_EXTRA:
        *text = event->bid.extra;
        return true;
    default:
        return false;
    }
}

static int64_t event_number(const NexmarkEvent *event, NexmarkField field)
{
    switch (field) {
    case FIELD_EVENT_TYPE:
        return event->type;
    case FIELD_PERSON_ID:
        return event->person.id;
    case FIELD_AUCTION_ID:
        return event->auction.id;
    case FIELD_AUCTION_INITIAL_BID:
        return event->auction.initial_bid;
    case FIELD_AUCTION_RESERVE:
        return event->auction.reserve;
    case FIELD_AUCTION_EXPIRES:
        return event->auction.expires;
    case FIELD_AUCTION_SELLER:
        return event->auction.seller;
    case FIELD_AUCTION_CATEGORY:
        return event->auction.category;
    case FIELD_BID_AUCTION:
        return event->bid.auction;
    case FIELD_BID_BIDDER:
        return event->bid.bidder;
    case FIELD_BID_PRICE:
        return event->bid.price;
    default: /* the three dateTime fields */
        return event->date_time;
    }
}

/* Writes the event's row (canonical form, row.h) into arena memory. */
static Row *write_row(const NexmarkReader *reader, const NexmarkEvent *event, Arena *arena)
{
    const NexmarkLayout *layout = &reader->layouts[event->type];
    uint32_t field_count = reader->field_count;
    uint32_t fixed = row_fixed_size(field_count);
    NexmarkText texts[FIELD_COUNT];
    uint32_t tail = 0;
    for (uint32_t i = 0; i < layout->count; i++)
        if (event_text(event, (NexmarkField)layout->fields[i], &texts[i]))
            tail += texts[i].length;
        else
            texts[i].data = NULL;
    uint32_t size = (fixed + tail + 7u) & ~7u;
    Row *row = arena_alloc(arena, size);
    if (!row)
        return NULL;
    memset(row, 0, fixed);
    row->header.size = size;
    row->header.field_count = (uint16_t)field_count;
    row->header.kind = ROW_KIND_INSERT;
    uint32_t bitmap_words = row_bitmap_words(field_count);
    if (bitmap_words > 0)
        row->words[0] = layout->null_bits;
    uint64_t *slots = row->words + bitmap_words;
    char *bytes = (char *)row;
    uint32_t offset = fixed;
    for (uint32_t i = 0; i < layout->count; i++) {
        uint32_t output = layout->outputs[i];
        if (texts[i].data) {
            memcpy(bytes + offset, texts[i].data, texts[i].length);
            slots[output] = ((uint64_t)offset << 32) | texts[i].length;
            offset += texts[i].length;
        } else {
            slots[output] = (uint64_t)event_number(event, (NexmarkField)layout->fields[i]);
        }
    }
    memset(bytes + offset, 0, size - offset);
    return row;
}

static int nexmark_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                        int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    NexmarkReader *reader = (NexmarkReader *)base;
    NexmarkGenerator *generator = &reader->generator;
    if (!reader->started) {
        reader->started = true;
        reader->wall_base_millis = now_millis;
        if (reader->restored) {
            /* the same draws as the run that checkpointed, up to where it was; its next
               event is due now */
            while (generator->events_count < reader->next_own &&
                   nexmark_generator_has_next(generator))
                if (!nexmark_generator_skip(generator))
                    return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in nexmark");
            reader->wall_base_millis =
                now_millis - (nexmark_timestamp_for_event(generator, 1 + generator->events_count) -
                              generator->config.base_time);
        }
    }
    uint32_t limit = out->capacity - out->count;
    if (limit > max_rows)
        limit = max_rows;
    uint32_t added = 0;
    NexmarkEvent event;
    while (added < limit) {
        /* others' events: drawn, not built */
        while (generator->events_count < reader->next_own && nexmark_generator_has_next(generator))
            if (!nexmark_generator_skip(generator))
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in nexmark");
        if (!nexmark_generator_has_next(generator))
            break;
        if (!reader->options.max_emit_speed) {
            int64_t event_time =
                nexmark_timestamp_for_event(generator, 1 + generator->events_count);
            int64_t due = reader->wall_base_millis + (event_time - generator->config.base_time);
            if (due > now_millis) {
                if (added > 0)
                    return SOURCE_POLL_ROWS;
                *next_poll_millis = due;
                return SOURCE_POLL_IDLE;
            }
        }
        if (!nexmark_generator_next(generator, &event))
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in nexmark");
        Row *row = write_row(reader, &event, arena);
        if (!row)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in nexmark");
        out->rows[out->count++] = row;
        added++;
        reader->next_own += reader->parallelism;
    }
    if (added > 0 || limit == 0)
        return SOURCE_POLL_ROWS;
    if (reader->options.keep_alive) {
        *next_poll_millis = now_millis + NEXMARK_IDLE_MILLIS;
        return SOURCE_POLL_IDLE;
    }
    return SOURCE_POLL_END;
}

static void nexmark_close(SourceReader *base)
{
    NexmarkReader *reader = (NexmarkReader *)base;
    if (!reader)
        return;
    nexmark_generator_free(&reader->generator);
    free(reader);
}

/* The position: the count of the next event this reader emits (the generator's draws
   depend only on the count, so a restored reader draws up to it again). */
static int nexmark_snapshot_position(SourceReader *base, const ByteWriter *out)
{
    NexmarkReader *reader = (NexmarkReader *)base;
    return byte_write_int64(out, reader->next_own);
}

static int nexmark_restore_position(SourceReader *base, const ByteReader *in, Diag *diag)
{
    NexmarkReader *reader = (NexmarkReader *)base;
    int64_t next_own = 0;
    if (byte_read_int64(in, &next_own) != JOINERY_OK || next_own < reader->next_own ||
        (next_own - reader->next_own) % reader->parallelism != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The checkpointed position of nexmark table '%s' does not fit it",
                          base->spec->table->name);
    reader->next_own = next_own;
    reader->restored = true;
    return JOINERY_OK;
}

static const SourceReaderVtable NEXMARK_READER = {
    .poll = nexmark_poll,
    .close = nexmark_close,
    .snapshot_position = nexmark_snapshot_position,
    .restore_position = nexmark_restore_position,
};

static int nexmark_create_source(const SourceSpec *spec, SourceReader **result, Diag *diag)
{
    NexmarkReader *reader = calloc(1, sizeof *reader);
    if (!reader)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating nexmark");
    int status = parse_options(spec->table, &reader->options, diag);
    if (status != JOINERY_OK) {
        free(reader);
        return status;
    }
    if (spec->field_count > FIELD_COUNT) {
        free(reader);
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "connector 'nexmark' produces at most %d fields", FIELD_COUNT);
    }
    reader->base.vtable = &NEXMARK_READER;
    reader->base.spec = spec;
    reader->base.impl = reader;
    reader->field_count = spec->field_count;
    for (int type = 0; type < 3; type++) {
        NexmarkLayout *layout = &reader->layouts[type];
        for (uint32_t i = 0; i < spec->field_count; i++) {
            const CatalogColumn *column = &spec->table->columns[spec->columns[i]];
            /* validation admits physical nexmark columns only; anything else is NULL */
            int field = column->kind == CATALOG_COLUMN_PHYSICAL ? field_by_name(column->name) : -1;
            if (field < 0 || (NEXMARK_FIELDS[field].event_type >= 0 &&
                              NEXMARK_FIELDS[field].event_type != type)) {
                layout->null_bits |= (uint64_t)1 << i;
                continue;
            }
            layout->outputs[layout->count] = i;
            layout->fields[layout->count] = (uint8_t)field;
            layout->count++;
        }
    }
    int parallelism = spec->parallelism > 0 ? spec->parallelism : 1;
    reader->parallelism = parallelism;
    reader->next_own =
        spec->subtask_index >= 0 && spec->subtask_index < parallelism ? spec->subtask_index : 0;
    if (!nexmark_generator_init(&reader->generator, &reader->options.config)) {
        free(reader);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating nexmark");
    }
    *result = &reader->base;
    return JOINERY_OK;
}

static const ConnectorOption NEXMARK_OPTIONS[] = {
    {"first-event.rate", false, "events per second of event time, default 10000"},
    {"next-event.rate", false, "accepted and ignored, as upstream"},
    {"rate.shape", false, "SQUARE or SINE; accepted and ignored, as upstream"},
    {"rate.period", false, "accepted and ignored, as upstream"},
    {"rate.limited", false, "accepted and ignored, as upstream (see max-emit-speed)"},
    {"person.proportion", false, "people per total proportion, default 1"},
    {"auction.proportion", false, "auctions per total proportion, default 3"},
    {"bid.proportion", false, "bids per total proportion, default 46"},
    {"person.avg-size", false, "average person size, default 200b"},
    {"auction.avg-size", false, "average auction size, default 500b"},
    {"bid.avg-size", false, "average bid size, default 100b"},
    {"bid.hot-ratio.auctions", false, "1 in N bids is not for a hot auction, default 2"},
    {"bid.hot-ratio.bidders", false, "1 in N bids is not by a hot bidder, default 4"},
    {"auction.hot-ratio.sellers", false, "1 in N auctions is not by a hot seller, default 4"},
    {"events.num", false, "events in total; 0 (default): unbounded"},
    {"stop-at", false, "stop after this many events; -1 (default): never"},
    {"keep-alive", false, "stay open (idle) after the last event, default false"},
    {"max-emit-speed", false, "true (default): as fast as possible; false: at event time"},
    {"seed", false, "seed of the random numbers, default 0 (upstream: the clock)"},
    {"base-time", false, "event time of event number 0, default 2015-07-15 00:00:00 (UTC)"},
};

const Connector connector_nexmark = {
    .name = "nexmark",
    .options = NEXMARK_OPTIONS,
    .option_count = sizeof NEXMARK_OPTIONS / sizeof NEXMARK_OPTIONS[0],
    .validate = nexmark_validate,
    .is_bounded = nexmark_is_bounded,
    .estimate_rows = nexmark_estimate_rows,
    .create_source = nexmark_create_source,
    .create_sink = NULL,
};
