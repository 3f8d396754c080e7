/*
 * check_nexmark.c - Check suite for the 'nexmark' connector
 * (engine/connector/nexmark.c, nexmark_generator.c): the port of
 * java.util.SplittableRandom and Math.round, the first events for two
 * seeds, proportions, event time, the generator's quirks, and the
 * connector: rows and NULLs, projection, splitting across readers,
 * bounds, keep-alive, rate limiting and option validation.
 *
 * Expected values come from upstream's own code run on Java 17: the
 * nexmark-flink generator classes (commit 6b3646c) compiled with their
 * unseeded `new SplittableRandom()` replaced by seeded ones (the
 * generator's: seed, BidGenerator's: seed + 1, StringsGenerator's:
 * seed + 2), configured as NexmarkTableSourceFactory does (firstEventId 1,
 * firstEventNumber 1, one generator), base time 2015-07-15T00:00:00Z.
 * Only the resulting numbers and strings are here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/connector/connector.h"
#include "engine/exec/snapshot.h"
#include "engine/connector/nexmark_internal.h"
#include "tests/unit/connector_fixture.h"

static const int64_t BASE_TIME = 1436918400000; /* 2015-07-15 00:00:00 UTC */

static bool text_is(NexmarkText text, const char *expected)
{
    return text.length == strlen(expected) && memcmp(text.data, expected, text.length) == 0;
}

static bool text_starts(NexmarkText text, const char *prefix)
{
    return text.length >= strlen(prefix) && memcmp(text.data, prefix, strlen(prefix)) == 0;
}

static void generator_for(NexmarkGenerator *generator, int64_t seed, int64_t events)
{
    NexmarkConfig config;
    nexmark_config_defaults(&config);
    config.seed = seed;
    config.events_num = events;
    ck_assert(nexmark_generator_init(generator, &config));
}

/* Generates events up to and including count `index`. */
static void skip_to(NexmarkGenerator *generator, int64_t index, NexmarkEvent *event)
{
    while (generator->events_count <= index)
        ck_assert(nexmark_generator_next(generator, event));
}

/* ------------------------------------------------------------- random */

START_TEST(test_random_port)
{
    /* new SplittableRandom(42): nextInt() x3, nextLong() x2, nextDouble() x2,
       nextInt(13) x8, nextInt(16) x8, in this order */
    NexmarkRandom random;
    nexmark_random_init(&random, 42);
    ck_assert_int_eq(nexmark_random_next_int(&random), -491277234);
    ck_assert_int_eq(nexmark_random_next_int(&random), 909395113);
    ck_assert_int_eq(nexmark_random_next_int(&random), -1877322334);
    ck_assert(nexmark_random_next_long(&random) == 6349198060258255764);
    ck_assert(nexmark_random_next_long(&random) == 701532786141963250);
    ck_assert(nexmark_random_next_double(&random) == 0.8682280765465323);
    double bits_of = nexmark_random_next_double(&random);
    uint64_t bits;
    memcpy(&bits, &bits_of, sizeof bits);
    ck_assert(bits == 4597036896682679220u);
    const int32_t thirteen[] = {2, 3, 4, 11, 1, 8, 5, 6};
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(nexmark_random_next_int_below(&random, 13), thirteen[i]);
    const int32_t sixteen[] = {3, 9, 2, 0, 9, 5, 11, 13}; /* a power of two: low bits */
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(nexmark_random_next_int_below(&random, 16), sixteen[i]);

    /* new SplittableRandom(7).nextInt(2^30 + 1): its first candidate
       (nextInt() = -1629577904) is rejected, the second (699215106) kept */
    nexmark_random_init(&random, 7);
    const int32_t large[] = {349607553, 784385053, 493486521, 527000107, 884477684, 356735844};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(nexmark_random_next_int_below(&random, 1073741825), large[i]);

    nexmark_random_init(&random, 0);
    ck_assert(nexmark_random_next_long(&random) == -2152535657050944081);
    nexmark_random_init(&random, INT64_MIN);
    ck_assert_int_eq(nexmark_random_next_int_below(&random, 1000), 146);

    /* Math.round */
    ck_assert(nexmark_java_round(2.5) == 3);
    ck_assert(nexmark_java_round(-2.5) == -2);
    ck_assert(nexmark_java_round(0.49999999999999994) == 0);
    ck_assert(nexmark_java_round(-0.5) == 0);
    ck_assert(nexmark_java_round(-3.7) == -4);
    ck_assert(nexmark_java_round(1e300) == INT64_MAX);
}
END_TEST

/* ------------------------------------------------------------- events */

/*
 * Events as upstream generates them. Numbers: person id; auction id,
 * initialBid, reserve, expires - dateTime, seller, category; bid auction,
 * bidder, price. Texts: person name, emailAddress, creditCard, city, state;
 * auction itemName, the start of its description; bid channel, url.
 */
typedef struct ExpectedEvent {
    int64_t seed;
    int64_t count; /* event n, id n + 2 */
    NexmarkEventType type;
    int64_t date_time; /* ms after the base time */
    int64_t numbers[6];
    const char *texts[5];
    uint32_t extra_length;
    const char *extra_start;
} ExpectedEvent;

static const ExpectedEvent EXPECTED_EVENTS[] = {
    /* seed 0: ids 2 and 3 are auctions (ids % 50 in 1..3), then bids; id 50 a person */
    {0,
     0,
     NEXMARK_AUCTION,
     0,
     {1001, 144, 21909169, 142, 1000, 11},
     {"bed efasjklxpgdozf", "swzk"},
     493,
     "_Qaxegtp\\UM][Hwblrmr]"},
    {0,
     1,
     NEXMARK_AUCTION,
     0,
     {1002, 431658, 431868, 286, 1000, 10},
     {"oyyjgkesm", "iwku wlspfivahghyislgxdawtqtmb gehasrkvfqji zjxu"},
     473,
     "SaXaJUJ]K\\"},
    {0,
     2,
     NEXMARK_BID,
     0,
     {1011, 2001, 66117360},
     {"channel-5079",
      "https://www.nexmark.com/chzz/t_oe/usw/item.htm?query=1&channel_id=339214336"},
     71,
     "iattP[QMWHWLV\\]LP^VYQ"},
    {0,
     3,
     NEXMARK_BID,
     0,
     {1000, 2010, 17924438},
     {"Apple", "https://www.nexmark.com/iui/cxl/rh__/item.htm?query=1"},
     77,
     "HQXS`NKU_N"},
    {0,
     4,
     NEXMARK_BID,
     0,
     {1010, 2001, 406},
     {"channel-1055", "https://www.nexmark.com/ftj/_zi/pfwv/item.htm?query=1"},
     56,
     "I_V`W]ONMf"},
    {0,
     48,
     NEXMARK_PERSON,
     4,
     {1001},
     {"Kate White", "yb i@iluq.com", "0056 6565 5017 6602", "Boise", "OR"},
     132,
     "_QaRQMW[MQ_Z_Q`R\\Oytoeh"},
    /* seed 42 */
    {42,
     0,
     NEXMARK_AUCTION,
     0,
     {1001, 4695, 55933585, 253, 1000, 11},
     {"mqlvgk sjz", "qx adngzrujhioqahzftlhjafqfomq"},
     392,
     "HY\\aZWxpoly"},
    {42,
     2,
     NEXMARK_BID,
     0,
     {1012, 2001, 1068},
     {"Facebook", "https://www.nexmark.com/gfl/kum_/f_fp/item.htm?query=1"},
     76,
     "UQWNY^RXRPQq"},
    {42,
     48,
     NEXMARK_PERSON,
     4,
     {1001},
     {"Saul Spencer", "wrer@yjz.com", "1190 9214 5542 3586", "Phoenix", "AZ"},
     122,
     "MYaZ]\\etucm"},
    {42,
     49,
     NEXMARK_AUCTION,
     5,
     {1003, 3977, 82805020, 270, 1000, 14},
     {"zwff idtyfkwtu n", "potrtdaduyag eogndzzxowogth"},
     338,
     "QR\\Rmjsaxtx"},
    {42,
     59,
     NEXMARK_BID,
     6,
     {1015, 2004, 150},
     {"channel-241",
      "https://www.nexmark.com/__pt/du_/_ku_/item.htm?query=1&channel_id=1895825408"},
     58,
     "voJ^SHaKjsov"},
};

static void check_event(const ExpectedEvent *want, const NexmarkEvent *event)
{
    ck_assert_int_eq(event->type, want->type);
    ck_assert(event->date_time == BASE_TIME + want->date_time);
    const int64_t *n = want->numbers;
    const char *const *t = want->texts;
    NexmarkText extra;
    if (want->type == NEXMARK_PERSON) {
        const NexmarkPerson *p = &event->person;
        ck_assert(p->id == n[0]);
        ck_assert(text_is(p->name, t[0]) && text_is(p->email_address, t[1]));
        ck_assert(text_is(p->credit_card, t[2]) && text_is(p->city, t[3]));
        ck_assert(text_is(p->state, t[4]));
        extra = p->extra;
    } else if (want->type == NEXMARK_AUCTION) {
        const NexmarkAuction *a = &event->auction;
        ck_assert(a->id == n[0] && a->initial_bid == n[1] && a->reserve == n[2]);
        ck_assert(a->expires == event->date_time + n[3]);
        ck_assert(a->seller == n[4] && a->category == n[5]);
        ck_assert(text_is(a->item_name, t[0]) && text_starts(a->description, t[1]));
        extra = a->extra;
    } else {
        const NexmarkBid *b = &event->bid;
        ck_assert(b->auction == n[0] && b->bidder == n[1] && b->price == n[2]);
        ck_assert(text_is(b->channel, t[0]) && text_is(b->url, t[1]));
        extra = b->extra;
    }
    ck_assert_uint_eq(extra.length, want->extra_length);
    ck_assert(text_starts(extra, want->extra_start));
}

START_TEST(test_first_events)
{
    NexmarkGenerator generator;
    memset(&generator, 0, sizeof generator);
    NexmarkEvent event;
    size_t count = sizeof EXPECTED_EVENTS / sizeof EXPECTED_EVENTS[0];
    for (size_t i = 0; i < count; i++) {
        const ExpectedEvent *want = &EXPECTED_EVENTS[i];
        if (i == 0 || want->seed != EXPECTED_EVENTS[i - 1].seed) {
            nexmark_generator_free(&generator);
            generator_for(&generator, want->seed, 0);
        }
        skip_to(&generator, want->count, &event);
        check_event(want, &event);
    }
    nexmark_generator_free(&generator);
}
END_TEST

static void count_kinds(const NexmarkConfig *config, int64_t events, int64_t counts[3])
{
    NexmarkGenerator generator;
    ck_assert(nexmark_generator_init(&generator, config));
    NexmarkEvent event;
    counts[0] = counts[1] = counts[2] = 0;
    for (int64_t i = 0; i < events; i++) {
        ck_assert(nexmark_generator_next(&generator, &event));
        /* the kind is decided by the event id, i + 2 */
        int64_t rem = (i + 2) % generator.total_proportion;
        NexmarkEventType expected = rem < config->person_proportion ? NEXMARK_PERSON
                                    : rem < config->person_proportion + config->auction_proportion
                                        ? NEXMARK_AUCTION
                                        : NEXMARK_BID;
        ck_assert_int_eq(event.type, expected);
        counts[event.type]++;
    }
    nexmark_generator_free(&generator);
}

START_TEST(test_proportions)
{
    NexmarkConfig config;
    nexmark_config_defaults(&config);
    int64_t counts[3];
    count_kinds(&config, 50000, counts);
    ck_assert(counts[0] == 1000 && counts[1] == 3000 && counts[2] == 46000);

    config.person_proportion = 2;
    config.auction_proportion = 1;
    config.bid_proportion = 7;
    count_kinds(&config, 1000, counts);
    ck_assert(counts[0] == 200 && counts[1] == 100 && counts[2] == 700);

    config.person_proportion = 0;
    config.auction_proportion = 0;
    config.bid_proportion = 1;
    count_kinds(&config, 100, counts);
    ck_assert(counts[2] == 100);
}
END_TEST

START_TEST(test_event_time)
{
    NexmarkGenerator generator;
    generator_for(&generator, 0, 100);
    /* 10000 events/s: event number n (count + 1) at n * 100 us, in whole ms */
    ck_assert(nexmark_timestamp_for_event(&generator, 9) == BASE_TIME);
    ck_assert(nexmark_timestamp_for_event(&generator, 10) == BASE_TIME + 1);
    ck_assert(nexmark_timestamp_for_event(&generator, 12345) == BASE_TIME + 1234);
    nexmark_generator_free(&generator);

    NexmarkConfig config;
    nexmark_config_defaults(&config);
    config.first_event_rate = 3;
    config.base_time = 0;
    ck_assert(nexmark_generator_init(&generator, &config));
    ck_assert(nexmark_timestamp_for_event(&generator, 1) == 333);
    ck_assert(nexmark_timestamp_for_event(&generator, 2) == 666);
    ck_assert(nexmark_timestamp_for_event(&generator, 3) == 1000);
    NexmarkEvent event;
    ck_assert(nexmark_generator_next(&generator, &event));
    ck_assert(event.date_time == 333);
    nexmark_generator_free(&generator);
}
END_TEST

START_TEST(test_quirks)
{
    NexmarkGenerator generator;
    generator_for(&generator, 0, 200000);
    /* Math.abs(Integer.reverse(1)) is Integer.MIN_VALUE, still negative */
    ck_assert(text_is(generator.texts[NEXMARK_CHANNELS + 1],
                      "https://www.nexmark.com/xad/nxej/a_l/item.htm?query=1"
                      "&channel_id=-2147483648"));
    ck_assert(text_is(generator.texts[1], "channel-1"));
    /* the extra pool: 'a' + Java's signed remainder, 'H' to 'z' */
    bool below_a = false;
    for (int i = 0; i < NEXMARK_EXTRA_POOL; i++) {
        ck_assert(generator.extra_pool[i] >= 'H' && generator.extra_pool[i] <= 'z');
        below_a |= generator.extra_pool[i] < 'a';
    }
    ck_assert(below_a);

    NexmarkEvent event;
    int64_t hot_bidders = 0, bids = 0, short_names = 0;
    while (nexmark_generator_has_next(&generator)) {
        int64_t event_id = generator.events_count + 2;
        ck_assert(nexmark_generator_next(&generator, &event));
        int64_t last_person = event_id / 50; /* base 0, one person per 50 events */
        if (event.type == NEXMARK_BID) {
            /* FIRST_PERSON_ID added twice: a person id + 1000 */
            int64_t person = event.bid.bidder - 2000;
            ck_assert(person >= 0 && person <= last_person + 10);
            hot_bidders += person == last_person / 100 * 100 + 1;
            bids++;
        } else if (event.type == NEXMARK_AUCTION) {
            int64_t seller = event.auction.seller - 1000;
            ck_assert(seller >= 0 && seller <= last_person + 10);
            ck_assert(event.auction.expires > event.date_time);
            NexmarkText name = event.auction.item_name;
            short_names += name.length < 3;
            /* trimmed: no space at either end */
            ck_assert(name.length == 0 ||
                      (name.data[0] != ' ' && name.data[name.length - 1] != ' '));
        } else {
            ck_assert(event.person.id == last_person + 1000);
        }
    }
    ck_assert(generator.events_count == 200000);
    ck_assert(bids == 184000);
    /* 3 in 4 bids are by the hot bidder (bid.hot-ratio.bidders 4) */
    ck_assert(hot_bidders > bids * 70 / 100 && hot_bidders < bids * 80 / 100);
    ck_assert(short_names > 0);
    nexmark_generator_free(&generator);
}
END_TEST

START_TEST(test_max_events)
{
    NexmarkConfig config;
    nexmark_config_defaults(&config);
    /* upstream's guard against overflow: Long.MAX_VALUE / (50 * 500) */
    ck_assert(nexmark_config_max_events(&config) == INT64_MAX / 25000);
    config.stop_at = 7;
    ck_assert(nexmark_config_max_events(&config) == 7);
    config.events_num = 5;
    ck_assert(nexmark_config_max_events(&config) == 5);
    config.stop_at = -1;
    ck_assert(nexmark_config_max_events(&config) == 5);
}
END_TEST

/* ---------------------------------------------------------- connector */

static const char *const ALL_COLUMNS[] = {
    "event_type",         "person_id",        "person_name",      "person_emailAddress",
    "person_creditCard",  "person_city",      "person_state",     "person_dateTime",
    "person_extra",       "auction_id",       "auction_itemName", "auction_description",
    "auction_initialBid", "auction_reserve",  "auction_dateTime", "auction_expires",
    "auction_seller",     "auction_category", "auction_extra",    "bid_auction",
    "bid_bidder",         "bid_price",        "bid_channel",      "bid_url",
    "bid_dateTime",       "bid_extra",
};
enum { ALL_COLUMN_COUNT = sizeof ALL_COLUMNS / sizeof ALL_COLUMNS[0] };

static DataType column_type(const char *name)
{
    if (strcmp(name, "event_type") == 0)
        return type_make(TYPE_INT, true);
    if (strstr(name, "dateTime") || strcmp(name, "auction_expires") == 0)
        return type_make_timestamp(TYPE_TIMESTAMP, 3, true);
    static const char *const NUMBERS[] = {"_id",       "_initialBid", "_reserve", "_seller",
                                          "_category", "bid_auction", "_bidder",  "_price"};
    for (size_t i = 0; i < sizeof NUMBERS / sizeof NUMBERS[0]; i++)
        if (strstr(name, NUMBERS[i]))
            return type_make(TYPE_BIGINT, true);
    return type_make_varchar(TYPE_STRING_LENGTH, true);
}

/* A nexmark table of the named columns (all of them when names is NULL). */
static CatalogTable *nexmark_table(const char *const *names, size_t count,
                                   const char *const *options, size_t option_count)
{
    if (!names) {
        names = ALL_COLUMNS;
        count = ALL_COLUMN_COUNT;
    }
    TestColumn columns[ALL_COLUMN_COUNT];
    for (size_t i = 0; i < count; i++)
        columns[i] = (TestColumn){names[i], column_type(names[i]), NULL};
    const char *pairs[2 * 24] = {"connector", "nexmark"};
    for (size_t i = 0; i < 2 * option_count; i++)
        pairs[2 + i] = options[i];
    return make_table("datagen", columns, count, pairs, option_count + 1);
}

START_TEST(test_connector_rows)
{
    const char *options[] = {"events.num", "100"};
    CatalogTable *table = nexmark_table(NULL, 0, options, 1);
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_OK);
    ck_assert(connector_find("nexmark")->is_bounded(table));
    ck_assert(connector_find("nexmark")->estimate_rows(table) == 100);
    RowList rows = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 100);

    NexmarkGenerator generator;
    generator_for(&generator, 0, 100);
    NexmarkEvent event;
    for (size_t i = 0; i < rows.count; i++) {
        ck_assert(nexmark_generator_next(&generator, &event));
        const Row *row = rows.rows[i];
        ck_assert_uint_eq(row_field_count(row), ALL_COLUMN_COUNT);
        ck_assert(row_get_int64(row, 0) == event.type);
        /* each kind fills its own columns only */
        for (uint32_t f = 1; f < ALL_COLUMN_COUNT; f++) {
            bool own = (event.type == NEXMARK_PERSON && f >= 1 && f <= 8) ||
                       (event.type == NEXMARK_AUCTION && f >= 9 && f <= 18) ||
                       (event.type == NEXMARK_BID && f >= 19);
            ck_assert(row_is_null(row, f) == !own);
        }
        uint32_t length;
        if (event.type == NEXMARK_BID) {
            ck_assert(row_get_int64(row, 19) == event.bid.auction);
            ck_assert(row_get_int64(row, 20) == event.bid.bidder);
            ck_assert(row_get_int64(row, 21) == event.bid.price);
            const char *url = row_get_string(row, 23, &length);
            ck_assert(length == event.bid.url.length &&
                      memcmp(url, event.bid.url.data, length) == 0);
            ck_assert(row_get_int64(row, 24) == event.date_time);
            row_get_string(row, 25, &length);
            ck_assert_uint_eq(length, event.bid.extra.length);
        } else if (event.type == NEXMARK_AUCTION) {
            ck_assert(row_get_int64(row, 9) == event.auction.id);
            const char *name = row_get_string(row, 10, &length);
            ck_assert(length == event.auction.item_name.length &&
                      memcmp(name, event.auction.item_name.data, length) == 0);
            ck_assert(row_get_int64(row, 15) == event.auction.expires);
        } else {
            ck_assert(row_get_int64(row, 1) == event.person.id);
            const char *card = row_get_string(row, 4, &length);
            ck_assert(length == 19 && memcmp(card, event.person.credit_card.data, 19) == 0);
        }
    }
    /* the row of event 2 is canonical: the same bytes as one built field by field */
    RowBuilder builder;
    row_builder_init(&builder);
    const Row *row = rows.rows[2];
    row_builder_begin(&builder, ALL_COLUMN_COUNT, ROW_KIND_INSERT);
    for (uint32_t f = 0; f < ALL_COLUMN_COUNT; f++)
        row_builder_copy_field(&builder, f, row, f, column_type(ALL_COLUMNS[f]).id == TYPE_VARCHAR);
    const Row *rebuilt = row_builder_finish(&builder);
    ck_assert_uint_eq(row_size(rebuilt), row_size(row));
    ck_assert(memcmp(rebuilt, row, row_size(row)) == 0);
    row_builder_free(&builder);
    nexmark_generator_free(&generator);
    row_list_free(&rows);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_projection)
{
    /* any subset of the columns, in any order */
    const char *names[] = {"bid_price", "event_type", "person_name"};
    const char *options[] = {"events.num", "60", "seed", "42"};
    CatalogTable *table = nexmark_table(names, 3, options, 2);
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_OK);
    RowList rows = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 60);
    ck_assert(row_get_int64(rows.rows[2], 0) == 1068 && row_get_int64(rows.rows[2], 1) == 2);
    ck_assert(row_is_null(rows.rows[2], 2));
    ck_assert(row_is_null(rows.rows[48], 0) && row_get_int64(rows.rows[48], 1) == 0);
    uint32_t length;
    const char *name = row_get_string(rows.rows[48], 2, &length);
    ck_assert(length == 12 && memcmp(name, "Saul Spencer", 12) == 0);
    row_list_free(&rows);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_splitting)
{
    const char *options[] = {"events.num", "1000"};
    CatalogTable *table = nexmark_table(NULL, 0, options, 1);
    Diag diag;
    RowList single = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &single, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(single.count, 1000);
    for (int parallelism = 2; parallelism <= 3; parallelism++) {
        RowList all = {0};
        for (int subtask = 0; subtask < parallelism; subtask++) {
            RowList part = {0};
            ck_assert_int_eq(read_all(table, subtask, parallelism, 0, &part, &diag, NULL),
                             SOURCE_POLL_END);
            /* reader i emits events i, i + p, ...: in order, the same bytes */
            size_t expected = (1000 + (size_t)(parallelism - 1 - subtask)) / (size_t)parallelism;
            ck_assert_uint_eq(part.count, expected);
            for (size_t i = 0; i < part.count; i++) {
                const Row *want = single.rows[(size_t)subtask + i * (size_t)parallelism];
                ck_assert(row_size(part.rows[i]) == row_size(want));
                ck_assert(memcmp(part.rows[i], want, row_size(want)) == 0);
                row_list_add(&all, part.rows[i]);
            }
            row_list_free(&part);
        }
        RowList copy = {0};
        for (size_t i = 0; i < single.count; i++)
            row_list_add(&copy, single.rows[i]);
        ck_assert(same_multiset(&all, &copy));
        row_list_free(&all);
        row_list_free(&copy);
    }
    row_list_free(&single);
    catalog_table_free(table);
}
END_TEST

/* One reader of a table, polled by hand at given times. */
typedef struct Poller {
    TestSpec spec;
    SourceReader *reader;
    Arena arena;
    uint32_t count; /* rows the last poll added */
    int64_t next;   /* the last poll's next_poll_millis */
} Poller;

static void poller_open(Poller *poller, const CatalogTable *table)
{
    make_spec(&poller->spec, table, 0, 1, 0);
    poller->reader = NULL;
    Diag diag;
    ck_assert_int_eq(
        connector_find("nexmark")->create_source(&poller->spec.spec, &poller->reader, &diag),
        JOINERY_OK);
    arena_init(&poller->arena, 0);
}

/* Polls once at `now`; returns the status. */
static int poller_poll(Poller *poller, int64_t now)
{
    static Row *slots[ROW_BATCH_CAPACITY];
    RowBatch batch = {slots, 0, ROW_BATCH_CAPACITY};
    Diag diag;
    diag_clear(&diag);
    poller->next = 0;
    int status = poller->reader->vtable->poll(poller->reader, &batch, &poller->arena,
                                              ROW_BATCH_CAPACITY, now, &poller->next, &diag);
    poller->count = batch.count;
    arena_reset(&poller->arena);
    return status;
}

static void poller_close(Poller *poller)
{
    poller->reader->vtable->close(poller->reader);
    arena_destroy(&poller->arena);
}

START_TEST(test_bounds)
{
    const Connector *nexmark = connector_find("nexmark");
    Diag diag;
    const char *unbounded[] = {"events.num", "0"};
    CatalogTable *table = nexmark_table(NULL, 0, unbounded, 1);
    ck_assert(!nexmark->is_bounded(table));
    ck_assert(nexmark->estimate_rows(table) < 0);
    Poller poller;
    poller_open(&poller, table);
    for (int i = 0; i < 50; i++) {
        ck_assert_int_eq(poller_poll(&poller, 1000), SOURCE_POLL_ROWS);
        ck_assert_uint_eq(poller.count, ROW_BATCH_CAPACITY);
    }
    poller_close(&poller);
    catalog_table_free(table);

    /* stop-at bounds an unbounded source */
    const char *stop[] = {"stop-at", "10"};
    table = nexmark_table(NULL, 0, stop, 1);
    ck_assert(nexmark->is_bounded(table));
    RowList rows = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(rows.count, 10);
    row_list_free(&rows);
    catalog_table_free(table);

    /* keep-alive: idle after the last event, never the end */
    const char *alive[] = {"events.num", "3", "keep-alive", "true"};
    table = nexmark_table(NULL, 0, alive, 2);
    ck_assert(!nexmark->is_bounded(table));
    poller_open(&poller, table);
    ck_assert_int_eq(poller_poll(&poller, 1000), SOURCE_POLL_ROWS);
    ck_assert_uint_eq(poller.count, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(poller_poll(&poller, 2000), SOURCE_POLL_IDLE);
        ck_assert(poller.count == 0 && poller.next > 2000);
    }
    poller_close(&poller);
    catalog_table_free(table);
}
END_TEST

START_TEST(test_rate_limit)
{
    /* at event time: event n (count + 1) is due n * 100 us after the first poll */
    const char *options[] = {"events.num", "100", "max-emit-speed", "false"};
    CatalogTable *table = nexmark_table(NULL, 0, options, 2);
    Poller poller;
    poller_open(&poller, table);
    ck_assert_int_eq(poller_poll(&poller, 5000), SOURCE_POLL_ROWS);
    ck_assert_uint_eq(poller.count, 9); /* numbers 1..9: 0 ms */
    ck_assert_int_eq(poller_poll(&poller, 5000), SOURCE_POLL_IDLE);
    ck_assert(poller.next == 5001);
    ck_assert_int_eq(poller_poll(&poller, 5001), SOURCE_POLL_ROWS);
    ck_assert_uint_eq(poller.count, 10); /* numbers 10..19: 1 ms */
    ck_assert_int_eq(poller_poll(&poller, 5100), SOURCE_POLL_ROWS);
    ck_assert_uint_eq(poller.count, 81);
    ck_assert_int_eq(poller_poll(&poller, 5100), SOURCE_POLL_END);
    poller_close(&poller);
    catalog_table_free(table);
}
END_TEST

static const char *validate_message(const char *const *names, size_t count,
                                    const char *const *options, size_t option_count)
{
    static Diag diag;
    CatalogTable *table = nexmark_table(names, count, options, option_count);
    diag_clear(&diag);
    int status = connector_validate_table(table, &diag);
    catalog_table_free(table);
    return status == JOINERY_OK ? NULL : diag.message;
}

START_TEST(test_validation)
{
    const char *typo[] = {"bid_prise"};
    const char *message = validate_message(typo, 1, NULL, 0);
    ck_assert_ptr_nonnull(strstr(message, "no column 'bid_prise'. Did you mean 'bid_price'?"));

    /* upstream's types only */
    CatalogTable *table = nexmark_table(NULL, 0, NULL, 0);
    table->columns[21].type = type_make(TYPE_INT, true);
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "'bid_price' of connector 'nexmark' is BIGINT"));
    table->columns[21].type = type_make(TYPE_BIGINT, false);
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(diag.message, "cannot be NOT NULL"));
    table->columns[21].type = type_make(TYPE_BIGINT, true);
    table->columns[0].type = type_make(TYPE_INT, false); /* event_type is never NULL */
    diag_clear(&diag);
    ck_assert_int_eq(connector_validate_table(table, &diag), JOINERY_OK);
    catalog_table_free(table);

    const char *option_typo[] = {"event.num", "3"};
    message = validate_message(NULL, 0, option_typo, 1);
    ck_assert_ptr_nonnull(strstr(message, "Did you mean 'events.num'?"));
    const char *bad_values[][2] = {
        {"first-event.rate", "0"},
        {"events.num", "-1"},
        {"bid.avg-size", "3 parsecs"},
        {"keep-alive", "yes"},
        {"rate.shape", "triangle"},
        {"rate.period", "soon"},
        {"base-time", "yesterday"},
        {"bid.hot-ratio.auctions", "0"},
        {"seed", "x"},
    };
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        message = validate_message(NULL, 0, bad_values[i], 1);
        ck_assert_ptr_nonnull(message);
        ck_assert_ptr_nonnull(strstr(message, bad_values[i][0]));
    }
    const char *no_events[] = {"person.proportion", "0", "auction.proportion", "0",
                               "bid.proportion",    "0"};
    ck_assert_ptr_nonnull(strstr(validate_message(NULL, 0, no_events, 3), "add up to"));

    /* accepted: upstream's forms, and the options its generator ignores */
    const char *good[] = {"bid.avg-size",     "1 kb",   "rate.shape",      "sine",
                          "rate.period",      "10 min", "next-event.rate", "5",
                          "rate.limited",     "TRUE",   "base-time",       "2024-01-02 03:04:05",
                          "auction.avg-size", "2048"};
    ck_assert_ptr_null(validate_message(NULL, 0, good, 7));
}
END_TEST

START_TEST(test_base_time_and_sizes)
{
    const char *options[] = {"events.num",   "60",  "base-time",       "2024-01-02 03:04:05.5",
                             "bid.avg-size", "1kb", "person.avg-size", "0b"};
    const char *names[] = {"event_type", "bid_dateTime", "bid_extra", "person_extra"};
    CatalogTable *table = nexmark_table(names, 4, options, 4);
    Diag diag;
    RowList rows = {0};
    ck_assert_int_eq(read_all(table, 0, 1, 0, &rows, &diag, NULL), SOURCE_POLL_END);
    ck_assert(row_get_int64(rows.rows[2], 1) == 1704164645500); /* UTC */
    uint32_t length;
    row_get_string(rows.rows[2], 2, &length);
    /* 1024 - 32 bytes, +-20% */
    ck_assert(length >= 794 && length < 1190);
    row_get_string(rows.rows[48], 3, &length);
    ck_assert_uint_eq(length, 0); /* smaller than the fields alone: no extra */
    row_list_free(&rows);
    catalog_table_free(table);
}
END_TEST

/* A reader restored from another's position (checkpoints) goes on with exactly its next
   events: the two together are one uninterrupted reader's rows, in order. */
START_TEST(test_resume_position)
{
    const char *options[] = {"events.num", "3000"};
    CatalogTable *table = nexmark_table(NULL, 0, options, 1);
    Diag diag;
    RowList whole = {0}, parts = {0};
    ck_assert_int_eq(read_all(table, 1, 2, 0, &whole, &diag, NULL), SOURCE_POLL_END);
    ck_assert_uint_eq(whole.count, 1500);
    TestSpec spec;
    make_spec(&spec, table, 1, 2, 0);
    SourceReader *first = NULL, *second = NULL;
    const Connector *nexmark = connector_find("nexmark");
    ck_assert_int_eq(nexmark->create_source(&spec.spec, &first, &diag), JOINERY_OK);
    static Row *slots[ROW_BATCH_CAPACITY];
    Arena arena;
    arena_init(&arena, 0);
    RowBatch batch = {slots, 0, 700};
    int64_t next = 0;
    ck_assert_int_eq(first->vtable->poll(first, &batch, &arena, 700, 1000000, &next, &diag),
                     SOURCE_POLL_ROWS);
    ck_assert_uint_eq(batch.count, 700);
    for (uint32_t i = 0; i < batch.count; i++)
        row_list_add(&parts, batch.rows[i]);
    arena_reset(&arena);
    SnapshotBuffer position = {0};
    StateWriter writer = snapshot_buffer_writer(&position);
    ck_assert_int_eq(first->vtable->snapshot_position(first, &writer), JOINERY_OK);
    first->vtable->close(first);
    ck_assert_int_eq(nexmark->create_source(&spec.spec, &second, &diag), JOINERY_OK);
    StateReader reader = snapshot_buffer_reader(&position);
    ck_assert_int_eq(second->vtable->restore_position(second, &reader, &diag), JOINERY_OK);
    ck_assert_int_eq(drain(second, &parts, &diag), SOURCE_POLL_END);
    second->vtable->close(second);
    ck_assert_uint_eq(parts.count, whole.count);
    for (size_t i = 0; i < whole.count; i++) {
        ck_assert_uint_eq(row_size(parts.rows[i]), row_size(whole.rows[i]));
        ck_assert_int_eq(memcmp(parts.rows[i], whole.rows[i], row_size(whole.rows[i])), 0);
    }
    snapshot_buffer_free(&position);
    arena_destroy(&arena);
    row_list_free(&whole);
    row_list_free(&parts);
    catalog_table_free(table);
}
END_TEST

static Suite *nexmark_suite(void)
{
    Suite *suite = suite_create("nexmark");
    TCase *generator = tcase_create("generator");
    /* the generator walks up to 200,000 events per test: more than Check's 4 s default on a
       loaded 2-core machine (never a timing assertion, only a guard against a hang) */
    tcase_set_timeout(generator, 60);
    tcase_add_test(generator, test_random_port);
    tcase_add_test(generator, test_first_events);
    tcase_add_test(generator, test_proportions);
    tcase_add_test(generator, test_event_time);
    tcase_add_test(generator, test_quirks);
    tcase_add_test(generator, test_max_events);
    suite_add_tcase(suite, generator);
    TCase *connector = tcase_create("connector");
    tcase_set_timeout(connector, 60);
    tcase_add_test(connector, test_connector_rows);
    tcase_add_test(connector, test_projection);
    tcase_add_test(connector, test_splitting);
    tcase_add_test(connector, test_resume_position);
    tcase_add_test(connector, test_bounds);
    tcase_add_test(connector, test_rate_limit);
    tcase_add_test(connector, test_validation);
    tcase_add_test(connector, test_base_time_and_sizes);
    suite_add_tcase(suite, connector);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(nexmark_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
