-- nexmark.sql - the 'nexmark' source (engine/connector/nexmark.c): the
-- flat schema and person / auction / bid views like bench/nexmark/ddl.sql's,
-- on 1000 events of the default configuration (seed 0, base time
-- 2015-07-15 00:00:00, 10000 events per second), so every value repeats.
-- The values match upstream's Java generator for the same seeds (see
-- tests/unit/check_nexmark.c). Event n has id n + 2: ids 2, 3 are auctions,
-- 4..49 bids, 50 the first person, then 1 person, 3 auctions, 46 bids in
-- every 50 events.

-- A subset of bench/nexmark/ddl.sql's flat table (any columns, in any
-- order), with its computed dateTime and watermark, and views as there.
CREATE TABLE datagen (
    event_type INT,
    person_id BIGINT, person_name STRING, person_emailAddress STRING, person_creditCard STRING,
    person_city STRING, person_state STRING, person_dateTime TIMESTAMP(3), person_extra STRING,
    auction_id BIGINT, auction_itemName STRING, auction_initialBid BIGINT,
    auction_reserve BIGINT, auction_dateTime TIMESTAMP(3), auction_expires TIMESTAMP(3),
    auction_seller BIGINT, auction_category BIGINT,
    bid_auction BIGINT, bid_bidder BIGINT, bid_price BIGINT, bid_channel STRING,
    bid_dateTime TIMESTAMP(3),
    `dateTime` AS CASE WHEN event_type = 0 THEN person_dateTime
        WHEN event_type = 1 THEN auction_dateTime ELSE bid_dateTime END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'first-event.rate' = '10000', 'events.num' = '1000');

CREATE VIEW person AS SELECT person_id AS id, person_name AS name,
    person_emailAddress AS emailAddress, person_creditCard AS creditCard, person_city AS city,
    person_state AS state, `dateTime`, person_extra AS extra
FROM datagen WHERE event_type = 0;
CREATE VIEW auction AS SELECT auction_id AS id, auction_itemName AS itemName,
    auction_initialBid AS initialBid, auction_reserve AS reserve, `dateTime`,
    auction_expires AS expires, auction_seller AS seller, auction_category AS category
FROM datagen WHERE event_type = 1;
CREATE VIEW bid AS SELECT bid_auction AS auction, bid_bidder AS bidder, bid_price AS price,
    bid_channel AS channel, `dateTime`
FROM datagen WHERE event_type = 2;

DESCRIBE bid;

-- Events by type, counted by the rows a blackhole sink takes: 20 people,
-- 60 auctions, 920 bids (1 : 3 : 46).
CREATE TABLE people_sink (id BIGINT, name STRING, emailAddress STRING, creditCard STRING,
  city STRING, state STRING, `dateTime` TIMESTAMP(3), extra STRING) WITH ('connector' = 'blackhole');
CREATE TABLE auctions_sink (id BIGINT, itemName STRING, initialBid BIGINT, reserve BIGINT,
  `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT)
  WITH ('connector' = 'blackhole');
CREATE TABLE bids_sink (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,
  `dateTime` TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO people_sink SELECT * FROM person;
INSERT INTO auctions_sink SELECT * FROM auction;
INSERT INTO bids_sink SELECT * FROM bid;

-- The same counts at parallelism 2: each reader emits every other event.
SET 'parallelism.default' = '2';
INSERT INTO people_sink SELECT * FROM person;
INSERT INTO bids_sink SELECT * FROM bid;
RESET 'parallelism.default';

-- The 20 people: ids 1001.. (base 0 plus FIRST_PERSON_ID 1000), one every 5 ms.
SELECT id, name, emailAddress, creditCard, city, state, `dateTime`, CHAR_LENGTH(extra) AS extra_length
FROM person;

-- Auctions of category 10 with their seller and expiry.
SELECT id, itemName, initialBid, reserve, `dateTime`, expires, seller
FROM auction WHERE category = 10;

-- q1's projection and q2's filter (every 123rd auction: 1107 is the first).
CREATE TABLE datagen_5k (
    event_type INT,
    bid_auction BIGINT,
    bid_bidder BIGINT,
    bid_price BIGINT,
    bid_dateTime TIMESTAMP(3)
) WITH ('connector' = 'nexmark', 'events.num' = '5000');
SELECT bid_auction AS auction, bid_bidder AS bidder, 0.908 * bid_price AS price, bid_dateTime
FROM datagen_5k WHERE event_type = 2 AND MOD(bid_auction, 123) = 0;

-- The bidder quirk: upstream adds FIRST_PERSON_ID twice, so bidders are
-- person ids + 1000 and no bid of the first 1000 events names a person
-- who exists (people 1001..1020, bidders 2000..2030).
SELECT B.bidder, P.id FROM bid AS B JOIN person AS P ON B.bidder = P.id;

-- Another seed, another sequence: its first ten events.
CREATE TABLE datagen_42 (event_type INT, bid_price BIGINT, auction_itemName STRING)
WITH ('connector' = 'nexmark', 'events.num' = '10', 'seed' = '42');
SELECT * FROM datagen_42;

-- Mistakes: an unknown column, a wrong type, an unknown option.
CREATE TABLE bad (bid_prise BIGINT) WITH ('connector' = 'nexmark');
CREATE TABLE bad (bid_price INT) WITH ('connector' = 'nexmark');
CREATE TABLE bad (bid_price BIGINT) WITH ('connector' = 'nexmark', 'events.number' = '10');
CREATE TABLE bad (bid_price BIGINT) WITH ('connector' = 'nexmark', 'max-emit-speed' = 'fast');
