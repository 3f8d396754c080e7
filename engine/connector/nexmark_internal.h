/*
 * nexmark_internal.h - the Nexmark event generator behind the 'nexmark'
 * connector (nexmark.c), shared with its unit tests
 * (tests/unit/check_nexmark.c). Not for other modules: they use the
 * Connector entry.
 *
 * A port of the generator of Flink's Nexmark benchmark (github.com/nexmark/
 * nexmark, nexmark-flink, generator/ and generator/model/): the same draws
 * from the same random number generator in the same order, so for a given
 * configuration and seed the event sequence is the one upstream produces
 * when its three unseeded java.util.SplittableRandom instances are given
 * the seeds below (the generator's: seed; BidGenerator's, which builds the
 * channel URLs: seed + 1; StringsGenerator's, which builds the 1 MiB string
 * `extra` values are cut from: seed + 2). Upstream seeds them from the clock.
 *
 * Event n (counting from 0) has event id n + 2 and event number n + 1, as
 * upstream's table factory configures its generator (firstEventId 1,
 * firstEventNumber 1); the id decides the kind (id % total proportion), the
 * number the timestamp.
 */
#ifndef JOINERY_CONNECTOR_NEXMARK_INTERNAL_H
#define JOINERY_CONNECTOR_NEXMARK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* java.util.SplittableRandom built with `new SplittableRandom(seed)`. */
typedef struct NexmarkRandom {
    uint64_t seed;
} NexmarkRandom;

void nexmark_random_init(NexmarkRandom *random, int64_t seed);
/* nextInt(), nextInt(bound) (bound > 0), nextLong(), nextDouble() */
int32_t nexmark_random_next_int(NexmarkRandom *random);
int32_t nexmark_random_next_int_below(NexmarkRandom *random, int32_t bound);
int64_t nexmark_random_next_long(NexmarkRandom *random);
double nexmark_random_next_double(NexmarkRandom *random);

/* Java's Math.round(double): the nearest long, ties toward positive infinity. */
int64_t nexmark_java_round(double value);

typedef enum NexmarkEventType {
    NEXMARK_PERSON = 0,
    NEXMARK_AUCTION = 1,
    NEXMARK_BID = 2,
} NexmarkEventType;

/* Text owned by the generator: valid until its next event. Not NUL-terminated. */
typedef struct NexmarkText {
    const char *data;
    uint32_t length;
} NexmarkText;

typedef struct NexmarkPerson {
    int64_t id;
    NexmarkText name, email_address, credit_card, city, state, extra;
} NexmarkPerson;

typedef struct NexmarkAuction {
    int64_t id;
    NexmarkText item_name, description;
    int64_t initial_bid, reserve;
    int64_t expires; /* ms since the epoch */
    int64_t seller, category;
    NexmarkText extra;
} NexmarkAuction;

typedef struct NexmarkBid {
    int64_t auction, bidder, price;
    NexmarkText channel, url, extra;
} NexmarkBid;

typedef struct NexmarkEvent {
    NexmarkEventType type;
    int64_t date_time; /* ms since the epoch: person/auction/bid dateTime */
    union {
        NexmarkPerson person;
        NexmarkAuction auction;
        NexmarkBid bid;
    };
} NexmarkEvent;

/* What the table's options set (upstream's NexmarkConfiguration subset). */
typedef struct NexmarkConfig {
    int32_t person_proportion, auction_proportion, bid_proportion;   /* 1, 3, 46 */
    int32_t avg_person_bytes, avg_auction_bytes, avg_bid_bytes;      /* 200, 500, 100 */
    int32_t hot_auction_ratio, hot_bidders_ratio, hot_sellers_ratio; /* 2, 4, 4 */
    int32_t first_event_rate;                                        /* 10000 per second */
    int64_t events_num; /* 0: as many as upstream's overflow guard allows */
    int64_t stop_at;    /* -1: none; else stop after this many events */
    int64_t base_time;  /* ms since the epoch of event number 0 */
    int64_t seed;
} NexmarkConfig;

/* Upstream's defaults, base time 2015-07-15 00:00:00 UTC (Beam's), seed 0. */
void nexmark_config_defaults(NexmarkConfig *config);
/* Events the configuration generates in total (events.num, 0 meaning upstream's
   Long.MAX_VALUE / (total proportion * largest average size), capped by stop-at). */
int64_t nexmark_config_max_events(const NexmarkConfig *config);

enum {
    NEXMARK_CHANNELS = 10000,
    NEXMARK_HOT_CHANNELS = 4,
    NEXMARK_EXTRA_POOL = 1024 * 1024, /* upstream's REUSABLE_EXTRA_STRING */
};

typedef struct NexmarkGenerator {
    NexmarkConfig config;
    int32_t total_proportion;
    double inter_event_delay_us;
    int64_t max_events;
    int64_t events_count; /* events generated so far (upstream's eventsCountSoFar) */
    NexmarkRandom random;
    /* channel name and URL of channel i: texts[i] and texts[NEXMARK_CHANNELS + i];
       the hot channels' URLs follow at 2 * NEXMARK_CHANNELS */
    NexmarkText *texts;
    char *text_pool;
    char *extra_pool; /* NEXMARK_EXTRA_POOL bytes */
    char *long_extra; /* extras of half the pool or more are generated here */
    size_t long_extra_capacity;
    bool failed;   /* memory ran out for a long extra */
    bool skipping; /* in nexmark_generator_skip */
    char name[16], email[24], credit_card[20], item_name[24], description[104];
} NexmarkGenerator;

/* Builds the channel and extra tables. Returns false when memory runs out. */
bool nexmark_generator_init(NexmarkGenerator *generator, const NexmarkConfig *config);
void nexmark_generator_free(NexmarkGenerator *generator);

static inline bool nexmark_generator_has_next(const NexmarkGenerator *generator)
{
    return generator->events_count < generator->max_events;
}

/* Event time of event number `number` (upstream's timestampForEvent). */
int64_t nexmark_timestamp_for_event(const NexmarkGenerator *generator, int64_t number);

/* Generates the next event into *event. False when memory runs out. */
bool nexmark_generator_next(NexmarkGenerator *generator, NexmarkEvent *event);
/* Passes over the next event: the same draws, so the events after it are the
   same, but without the work only its values need (prices). */
bool nexmark_generator_skip(NexmarkGenerator *generator);

#endif
