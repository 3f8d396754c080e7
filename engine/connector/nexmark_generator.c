/*
 * nexmark_generator.c - the Nexmark event generator (see nexmark_internal.h).
 *
 * Mirrors upstream's NexmarkGenerator, GeneratorConfig and the model
 * generators (Person, Auction, Bid, Strings, Price, Long) draw for draw,
 * including their quirks, which the queries see:
 * - a bid's bidder gets FIRST_PERSON_ID (1000) added twice, so bidders are
 *   person ids + 1000 (q23 joins bids to people and sellers on it);
 * - ids "lead" the generated ones: bids and auctions may name people and
 *   auctions up to 10 ahead, and the hot auction / seller / bidder of an
 *   epoch is the first (second for bidders) id of its block of 100, which
 *   may not exist yet;
 * - strings of random length are trimmed of the spaces they may start or
 *   end with (Java's trim), so they can be shorter than 3 or empty;
 * - the `extra` pool's characters are 'a' + (nextInt() % 26) with Java's
 *   signed remainder, so they range from 'H' to 'z';
 * - channel URLs carry "&channel_id=" + Math.abs(Integer.reverse(i)),
 *   negative for the channels whose reversed bits overflow abs.
 * No allocation per event: texts point into the generator's tables or its
 * per-event scratch buffers.
 */
#include "engine/connector/nexmark_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- SplittableRandom */

enum { JAVA_INT_MAX = 2147483647 };

static const uint64_t GOLDEN_GAMMA = 0x9e3779b97f4a7c15ull;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int32_t mix32(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0x62a9d9ed799705f5ull;
    return (int32_t)(uint32_t)(((z ^ (z >> 28)) * 0xcb24d0a5c88c35b3ull) >> 32);
}

void nexmark_random_init(NexmarkRandom *random, int64_t seed)
{
    random->seed = (uint64_t)seed;
}

int32_t nexmark_random_next_int(NexmarkRandom *random)
{
    random->seed += GOLDEN_GAMMA;
    return mix32(random->seed);
}

int64_t nexmark_random_next_long(NexmarkRandom *random)
{
    random->seed += GOLDEN_GAMMA;
    return (int64_t)mix64(random->seed);
}

/* Java's bounded nextInt: a power of two keeps the low bits; other bounds
   reject the candidates of the last, incomplete, multiple of bound. */
static inline int32_t next_int_below(NexmarkRandom *random, int32_t bound)
{
    uint32_t r = (uint32_t)nexmark_random_next_int(random);
    uint32_t m = (uint32_t)bound - 1;
    if (((uint32_t)bound & m) == 0)
        return (int32_t)(r & m);
    uint32_t u = r >> 1;
    for (;;) {
        r = u % (uint32_t)bound;
        if ((int32_t)(u + m - r) >= 0)
            return (int32_t)r;
        u = (uint32_t)nexmark_random_next_int(random) >> 1;
    }
}

int32_t nexmark_random_next_int_below(NexmarkRandom *random, int32_t bound)
{
    return next_int_below(random, bound);
}

double nexmark_random_next_double(NexmarkRandom *random)
{
    return (double)((uint64_t)nexmark_random_next_long(random) >> 11) * 0x1.0p-53;
}

int64_t nexmark_java_round(double value)
{
    if (isnan(value))
        return 0;
    if (value >= 0x1.0p63)
        return INT64_MAX;
    if (value <= -0x1.0p63)
        return INT64_MIN;
    double whole = floor(value);
    /* value - whole is exact below 2^52; above, value is already whole */
    return (int64_t)whole + (value - whole >= 0.5 ? 1 : 0);
}

/* LongGenerator.nextLong: [0, n) with nextInt when n fits, else a skewed modulo. */
static int64_t next_long_below(NexmarkRandom *random, int64_t n)
{
    if (n < JAVA_INT_MAX)
        return next_int_below(random, (int32_t)n);
    int64_t r = nexmark_random_next_long(random) % n;
    return r < 0 ? -r : r;
}

/* ------------------------------------------------------------- config */

enum {
    FIRST_AUCTION_ID = 1000,
    FIRST_PERSON_ID = 1000,
    FIRST_CATEGORY_ID = 10,
    NUM_CATEGORIES = 5,
    PERSON_ID_LEAD = 10,
    AUCTION_ID_LEAD = 10,
    HOT_SELLER_RATIO = 100,
    HOT_AUCTION_RATIO = 100,
    HOT_BIDDER_RATIO = 100,
    HOT_CHANNELS_RATIO = 2,
    NUM_IN_FLIGHT_AUCTIONS = 100,
    NUM_ACTIVE_PEOPLE = 1000,
    MIN_STRING_LENGTH = 3,
    /* the factory's GeneratorConfig: firstEventId 1, firstEventNumber 1 */
    FIRST_EVENT_ID = 1,
    FIRST_EVENT_NUMBER = 1,
};

void nexmark_config_defaults(NexmarkConfig *config)
{
    *config = (NexmarkConfig){
        .person_proportion = 1,
        .auction_proportion = 3,
        .bid_proportion = 46,
        .avg_person_bytes = 200,
        .avg_auction_bytes = 500,
        .avg_bid_bytes = 100,
        .hot_auction_ratio = 2,
        .hot_bidders_ratio = 4,
        .hot_sellers_ratio = 4,
        .first_event_rate = 10000,
        .events_num = 0,
        .stop_at = -1,
        .base_time = 1436918400000, /* 2015-07-15T00:00:00Z */
        .seed = 0,
    };
}

int64_t nexmark_config_max_events(const NexmarkConfig *config)
{
    int64_t max_events = config->events_num;
    if (max_events == 0) {
        int32_t largest = config->avg_person_bytes;
        if (config->avg_auction_bytes > largest)
            largest = config->avg_auction_bytes;
        if (config->avg_bid_bytes > largest)
            largest = config->avg_bid_bytes;
        /* Java multiplies two ints here */
        int32_t total =
            config->person_proportion + config->auction_proportion + config->bid_proportion;
        int32_t product = (int32_t)((uint32_t)total * (uint32_t)largest);
        max_events = product > 0 ? INT64_MAX / product : INT64_MAX;
    }
    if (config->stop_at >= 0 && config->stop_at < max_events)
        max_events = config->stop_at;
    return max_events;
}

int64_t nexmark_timestamp_for_event(const NexmarkGenerator *generator, int64_t number)
{
    return generator->config.base_time +
           (int64_t)((double)number * generator->inter_event_delay_us) / 1000;
}

/* ------------------------------------------------------------ strings */

static const char *const US_STATES[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
static const char *const US_CITIES[] = {"Phoenix",  "Los Angeles", "San Francisco", "Boise",
                                        "Portland", "Bend",        "Redmond",       "Seattle",
                                        "Kent",     "Cheyenne"};
static const char *const FIRST_NAMES[] = {"Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
                                          "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
static const char *const LAST_NAMES[] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                         "Walton", "Smith",  "Jones",   "Noris"};
static const char *const HOT_CHANNELS[] = {"Google", "Facebook", "Baidu", "Apple"};

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static NexmarkText text_of(const char *text)
{
    return (NexmarkText){text, (uint32_t)strlen(text)};
}

/*
 * StringsGenerator.nextString: 3 to max_length - 1 characters, each a space
 * (or `special`) one time in 13, else a lowercase letter; then trimmed of
 * spaces. Writes into `out` (at least max_length bytes); returns the length
 * and sets *start to the first kept character.
 */
static uint32_t next_string(NexmarkRandom *random, int32_t max_length, char special, char *out,
                            const char **start)
{
    int32_t length = MIN_STRING_LENGTH + next_int_below(random, max_length - MIN_STRING_LENGTH);
    for (int32_t i = 0; i < length; i++)
        out[i] =
            next_int_below(random, 13) == 0 ? special : (char)('a' + next_int_below(random, 26));
    int32_t begin = 0, end = length;
    while (begin < end && out[begin] == ' ')
        begin++;
    while (end > begin && out[end - 1] == ' ')
        end--;
    *start = out + begin;
    return (uint32_t)(end - begin);
}

/* StringsGenerator.nextExactString's loop: six letters from each nextInt(). */
static void exact_string(NexmarkRandom *random, char *out, size_t length)
{
    int32_t rnd = 0;
    int left = 0;
    for (size_t i = 0; i < length; i++) {
        if (left == 0) {
            rnd = nexmark_random_next_int(random);
            left = 6;
        }
        out[i] = (char)('a' + rnd % 26);
        rnd /= 26;
        left--;
    }
}

/* StringsGenerator.nextExtra: padding so that the event's size averages `average`;
   sets generator->failed when memory runs out. */
static void next_extra(NexmarkGenerator *generator, int32_t current_size, int32_t average,
                       NexmarkText *extra)
{
    NexmarkRandom *random = &generator->random;
    *extra = (NexmarkText){"", 0};
    if (current_size > average)
        return;
    int32_t desired = average - current_size;
    int32_t delta = (int32_t)nexmark_java_round(desired * 0.2);
    int32_t size = desired - delta + (delta == 0 ? 0 : next_int_below(random, 2 * delta));
    if (size < NEXMARK_EXTRA_POOL / 2) {
        int32_t offset = next_int_below(random, NEXMARK_EXTRA_POOL - size);
        *extra = (NexmarkText){generator->extra_pool + offset, (uint32_t)size};
        return;
    }
    if ((size_t)size > generator->long_extra_capacity) {
        char *grown = realloc(generator->long_extra, (size_t)size);
        if (!grown) {
            generator->failed = true;
            return;
        }
        generator->long_extra = grown;
        generator->long_extra_capacity = (size_t)size;
    }
    exact_string(random, generator->long_extra, (size_t)size);
    *extra = (NexmarkText){generator->long_extra, (uint32_t)size};
}

/* PriceGenerator.nextPrice: cents, log-uniform between $1 and $1M (0 when skipping:
   the draw is all that counts). */
static int64_t next_price(NexmarkGenerator *generator)
{
    double draw = nexmark_random_next_double(&generator->random);
    return generator->skipping ? 0 : nexmark_java_round(pow(10.0, draw * 6.0) * 100.0);
}

/* ----------------------------------------------------------- tables */

/* Appends "https://www.nexmark.com/x/y/z/item.htm?query=1" (BidGenerator.getBaseUrl). */
static size_t base_url(NexmarkRandom *random, char *out)
{
    static const char PREFIX[] = "https://www.nexmark.com/";
    static const char SUFFIX[] = "item.htm?query=1";
    size_t used = sizeof PREFIX - 1;
    memcpy(out, PREFIX, used);
    for (int part = 0; part < 3; part++) {
        char scratch[8];
        const char *start;
        uint32_t length = next_string(random, 5, '_', scratch, &start);
        memcpy(out + used, start, length);
        used += length;
        out[used++] = '/';
    }
    memcpy(out + used, SUFFIX, sizeof SUFFIX - 1);
    return used + sizeof SUFFIX - 1;
}

static uint32_t reverse_bits(uint32_t value)
{
    uint32_t result = 0;
    for (int i = 0; i < 32; i++, value >>= 1)
        result = (result << 1) | (value & 1);
    return result;
}

/* Longest table entry: a URL with a channel id, or "channel-9999". */
enum { TEXT_ENTRY_MAX = 24 + 3 * 5 + 16 + 12 + 11 };

/* BidGenerator's static HOT_URLS and CHANNEL_URL_CACHE, from one random in that order. */
static bool build_channels(NexmarkGenerator *generator)
{
    enum { ENTRIES = 2 * NEXMARK_CHANNELS + NEXMARK_HOT_CHANNELS };
    generator->texts = malloc(ENTRIES * sizeof *generator->texts);
    generator->text_pool = malloc((size_t)ENTRIES * TEXT_ENTRY_MAX);
    if (!generator->texts || !generator->text_pool)
        return false;
    NexmarkRandom random;
    nexmark_random_init(&random, generator->config.seed + 1);
    char *pool = generator->text_pool;
    size_t used = 0;
    for (int i = 0; i < NEXMARK_HOT_CHANNELS; i++) {
        size_t length = base_url(&random, pool + used);
        generator->texts[2 * NEXMARK_CHANNELS + i] = (NexmarkText){pool + used, (uint32_t)length};
        used += length;
    }
    for (int i = 0; i < NEXMARK_CHANNELS; i++) {
        size_t length = base_url(&random, pool + used);
        if (next_int_below(&random, 10) > 0) {
            int32_t reversed = (int32_t)reverse_bits((uint32_t)i);
            /* Math.abs(Integer.MIN_VALUE) stays negative */
            int64_t shown = reversed < 0 && reversed != INT32_MIN ? -(int64_t)reversed : reversed;
            length += (size_t)snprintf(pool + used + length, TEXT_ENTRY_MAX, "&channel_id=%lld",
                                       (long long)shown);
        }
        generator->texts[NEXMARK_CHANNELS + i] = (NexmarkText){pool + used, (uint32_t)length};
        used += length;
        int name_length = snprintf(pool + used, TEXT_ENTRY_MAX, "channel-%d", i);
        generator->texts[i] = (NexmarkText){pool + used, (uint32_t)name_length};
        used += (size_t)name_length;
    }
    return true;
}

bool nexmark_generator_init(NexmarkGenerator *generator, const NexmarkConfig *config)
{
    memset(generator, 0, sizeof *generator);
    generator->config = *config;
    generator->total_proportion =
        config->person_proportion + config->auction_proportion + config->bid_proportion;
    /* upstream: 1000000.0 / firstEventRate * numEventGenerators, with one timeline */
    generator->inter_event_delay_us = 1000000.0 / config->first_event_rate * 1;
    generator->max_events = nexmark_config_max_events(config);
    nexmark_random_init(&generator->random, config->seed);
    generator->extra_pool = malloc(NEXMARK_EXTRA_POOL);
    if (!generator->extra_pool || !build_channels(generator)) {
        nexmark_generator_free(generator);
        return false;
    }
    NexmarkRandom random;
    nexmark_random_init(&random, config->seed + 2);
    exact_string(&random, generator->extra_pool, NEXMARK_EXTRA_POOL);
    return true;
}

void nexmark_generator_free(NexmarkGenerator *generator)
{
    free(generator->texts);
    free(generator->text_pool);
    free(generator->extra_pool);
    free(generator->long_extra);
    memset(generator, 0, sizeof *generator);
}

/* ------------------------------------------------------------- people */

/* PersonGenerator.lastBase0PersonId: the newest person at this event id. */
static int64_t last_base0_person_id(const NexmarkGenerator *generator, int64_t event_id)
{
    int64_t epoch = event_id / generator->total_proportion;
    int64_t offset = event_id % generator->total_proportion;
    if (offset >= generator->config.person_proportion)
        offset = generator->config.person_proportion - 1;
    return epoch * generator->config.person_proportion + offset;
}

/* PersonGenerator.nextBase0PersonId: one of the active people, or a few ahead. */
static int64_t next_base0_person_id(NexmarkGenerator *generator, int64_t event_id)
{
    int64_t people = last_base0_person_id(generator, event_id) + 1;
    int64_t active = people < NUM_ACTIVE_PEOPLE ? people : NUM_ACTIVE_PEOPLE;
    int64_t n = next_long_below(&generator->random, active + PERSON_ID_LEAD);
    return people - active + n;
}

static void next_person(NexmarkGenerator *generator, int64_t event_id, NexmarkPerson *person)
{
    NexmarkRandom *random = &generator->random;
    person->id = last_base0_person_id(generator, event_id) + FIRST_PERSON_ID;

    const char *first = FIRST_NAMES[next_int_below(random, (int32_t)COUNT_OF(FIRST_NAMES))];
    const char *last = LAST_NAMES[next_int_below(random, (int32_t)COUNT_OF(LAST_NAMES))];
    size_t first_length = strlen(first), last_length = strlen(last);
    memcpy(generator->name, first, first_length);
    generator->name[first_length] = ' ';
    memcpy(generator->name + first_length + 1, last, last_length);
    person->name = (NexmarkText){generator->name, (uint32_t)(first_length + 1 + last_length)};

    /* nextString(7) + "@" + nextString(5) + ".com" */
    char scratch[8];
    const char *start;
    uint32_t used = next_string(random, 7, ' ', scratch, &start);
    memcpy(generator->email, start, used);
    generator->email[used++] = '@';
    uint32_t domain = next_string(random, 5, ' ', scratch, &start);
    memcpy(generator->email + used, start, domain);
    used += domain;
    memcpy(generator->email + used, ".com", 4);
    person->email_address = (NexmarkText){generator->email, used + 4};

    /* four groups of four digits */
    char *card = generator->credit_card;
    for (int group = 0; group < 4; group++) {
        int32_t digits = next_int_below(random, 10000);
        char *out = card + group * 5;
        if (group > 0)
            out[-1] = ' ';
        out[0] = (char)('0' + digits / 1000);
        out[1] = (char)('0' + digits / 100 % 10);
        out[2] = (char)('0' + digits / 10 % 10);
        out[3] = (char)('0' + digits % 10);
    }
    person->credit_card = (NexmarkText){card, 19};

    person->city = text_of(US_CITIES[next_int_below(random, (int32_t)COUNT_OF(US_CITIES))]);
    person->state = text_of(US_STATES[next_int_below(random, (int32_t)COUNT_OF(US_STATES))]);
    int32_t size =
        8 + (int32_t)(person->name.length + person->email_address.length +
                      person->credit_card.length + person->city.length + person->state.length);
    next_extra(generator, size, generator->config.avg_person_bytes, &person->extra);
}

/* ----------------------------------------------------------- auctions */

/* AuctionGenerator.lastBase0AuctionId: the newest auction at this event id. */
static int64_t last_base0_auction_id(const NexmarkGenerator *generator, int64_t event_id)
{
    const NexmarkConfig *config = &generator->config;
    int64_t epoch = event_id / generator->total_proportion;
    int64_t offset = event_id % generator->total_proportion;
    if (offset < config->person_proportion) {
        epoch--;
        offset = config->auction_proportion - 1;
    } else if (offset >= config->person_proportion + config->auction_proportion) {
        offset = config->auction_proportion - 1;
    } else {
        offset -= config->person_proportion;
    }
    return epoch * config->auction_proportion + offset;
}

/* AuctionGenerator.nextBase0AuctionId: one likely still in flight, or a few ahead. */
static int64_t next_base0_auction_id(NexmarkGenerator *generator, int64_t event_id)
{
    int64_t last = last_base0_auction_id(generator, event_id);
    int64_t min = last - NUM_IN_FLIGHT_AUCTIONS > 0 ? last - NUM_IN_FLIGHT_AUCTIONS : 0;
    return min + next_long_below(&generator->random, last - min + 1 + AUCTION_ID_LEAD);
}

/* AuctionGenerator.nextAuctionLengthMs: averaging the time until
   NUM_IN_FLIGHT_AUCTIONS more auctions have been generated. */
static int64_t next_auction_length(NexmarkGenerator *generator, int64_t timestamp)
{
    int64_t number = FIRST_EVENT_NUMBER + generator->events_count;
    int64_t events_for_auctions = ((int64_t)NUM_IN_FLIGHT_AUCTIONS * generator->total_proportion) /
                                  generator->config.auction_proportion;
    int64_t future = nexmark_timestamp_for_event(generator, number + events_for_auctions);
    int64_t horizon = future - timestamp;
    return 1 + next_long_below(&generator->random, horizon * 2 > 1 ? horizon * 2 : 1);
}

static void next_auction(NexmarkGenerator *generator, int64_t event_id, int64_t timestamp,
                         NexmarkAuction *auction)
{
    NexmarkRandom *random = &generator->random;
    auction->id = last_base0_auction_id(generator, event_id) + FIRST_AUCTION_ID;
    int64_t seller;
    if (next_int_below(random, generator->config.hot_sellers_ratio) > 0)
        seller = last_base0_person_id(generator, event_id) / HOT_SELLER_RATIO * HOT_SELLER_RATIO;
    else
        seller = next_base0_person_id(generator, event_id);
    auction->seller = seller + FIRST_PERSON_ID;
    auction->category = FIRST_CATEGORY_ID + next_int_below(random, NUM_CATEGORIES);
    auction->initial_bid = next_price(generator);
    auction->expires = timestamp + next_auction_length(generator, timestamp);
    const char *start;
    uint32_t length = next_string(random, 20, ' ', generator->item_name, &start);
    auction->item_name = (NexmarkText){start, length};
    length = next_string(random, 100, ' ', generator->description, &start);
    auction->description = (NexmarkText){start, length};
    auction->reserve = auction->initial_bid + next_price(generator);
    int32_t size =
        8 + (int32_t)(auction->item_name.length + auction->description.length) + 8 + 8 + 8 + 8 + 8;
    next_extra(generator, size, generator->config.avg_auction_bytes, &auction->extra);
}

/* --------------------------------------------------------------- bids */

static void next_bid(NexmarkGenerator *generator, int64_t event_id, NexmarkBid *bid)
{
    NexmarkRandom *random = &generator->random;
    int64_t auction;
    if (next_int_below(random, generator->config.hot_auction_ratio) > 0)
        auction =
            last_base0_auction_id(generator, event_id) / HOT_AUCTION_RATIO * HOT_AUCTION_RATIO;
    else
        auction = next_base0_auction_id(generator, event_id);
    bid->auction = auction + FIRST_AUCTION_ID;

    int64_t bidder;
    if (next_int_below(random, generator->config.hot_bidders_ratio) > 0)
        bidder =
            last_base0_person_id(generator, event_id) / HOT_BIDDER_RATIO * HOT_BIDDER_RATIO + 1;
    else
        bidder = next_base0_person_id(generator, event_id);
    bid->bidder = bidder + FIRST_PERSON_ID;

    bid->price = next_price(generator);
    if (next_int_below(random, HOT_CHANNELS_RATIO) > 0) {
        int32_t i = next_int_below(random, NEXMARK_HOT_CHANNELS);
        bid->channel = text_of(HOT_CHANNELS[i]);
        bid->url = generator->texts[2 * NEXMARK_CHANNELS + i];
    } else {
        int32_t i = next_int_below(random, NEXMARK_CHANNELS);
        bid->channel = generator->texts[i];
        bid->url = generator->texts[NEXMARK_CHANNELS + i];
    }
    bid->bidder += FIRST_PERSON_ID; /* upstream adds it a second time */
    next_extra(generator, 8 + 8 + 8 + 8, generator->config.avg_bid_bytes, &bid->extra);
}

/* ------------------------------------------------------------- events */

bool nexmark_generator_next(NexmarkGenerator *generator, NexmarkEvent *event)
{
    /* outOfOrderGroupSize is 1 upstream: adjusted number = number */
    int64_t number = FIRST_EVENT_NUMBER + generator->events_count;
    int64_t event_id = FIRST_EVENT_ID + number;
    int64_t timestamp = nexmark_timestamp_for_event(generator, number);
    int64_t rem = event_id % generator->total_proportion;
    const NexmarkConfig *config = &generator->config;
    event->date_time = timestamp;
    if (rem < config->person_proportion) {
        event->type = NEXMARK_PERSON;
        next_person(generator, event_id, &event->person);
    } else if (rem < config->person_proportion + config->auction_proportion) {
        event->type = NEXMARK_AUCTION;
        next_auction(generator, event_id, timestamp, &event->auction);
    } else {
        event->type = NEXMARK_BID;
        next_bid(generator, event_id, &event->bid);
    }
    generator->events_count++;
    return !generator->failed;
}

bool nexmark_generator_skip(NexmarkGenerator *generator)
{
    NexmarkEvent event;
    generator->skipping = true;
    bool ok = nexmark_generator_next(generator, &event);
    generator->skipping = false;
    return ok;
}
