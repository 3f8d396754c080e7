-- The Nexmark source of the JSON-lines mode (NEXMARK_SOURCE=json in
-- scripts/run-nexmark.sh): upstream's ddl_kafka.sql table and ddl_views.sql
-- views (github.com/nexmark/nexmark, nexmark-flink/src/main/resources/
-- queries/) over a filesystem folder of JSON lines instead of a Kafka topic.
-- The lines are the events of ddl.sql's generator written once per event
-- count by generate_json.sql, one event a line in the shape upstream's
-- insert_kafka.sql writes to Kafka: {"event_type": 2, "person": null,
-- "auction": null, "bid": {"auction": ..., ...}}. So every query reads the
-- same events as in the generator mode and pays for decoding JSON.
-- scripts/run-nexmark.sh replaces ${NEXMARK_JSON} with the folder.
--
-- Differences from upstream: STRING where upstream writes VARCHAR (see
-- ddl.sql); the 'filesystem' connector where upstream has 'kafka'; and the
-- view datagen, joinery's own, which flattens the table into ddl.sql's
-- columns so that source.sql runs unchanged in both modes.
CREATE TABLE kafka (
    event_type INT,
    person ROW<
        id BIGINT,
        name STRING,
        emailAddress STRING,
        creditCard STRING,
        city STRING,
        state STRING,
        `dateTime` TIMESTAMP(3),
        extra STRING>,
    auction ROW<
        id BIGINT,
        itemName STRING,
        description STRING,
        initialBid BIGINT,
        reserve BIGINT,
        `dateTime` TIMESTAMP(3),
        expires TIMESTAMP(3),
        seller BIGINT,
        category BIGINT,
        extra STRING>,
    bid ROW<
        auction BIGINT,
        bidder BIGINT,
        price BIGINT,
        channel STRING,
        url STRING,
        `dateTime` TIMESTAMP(3),
        extra STRING>,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person.`dateTime`
            WHEN event_type = 1 THEN auction.`dateTime`
            ELSE bid.`dateTime`
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'filesystem',
    'path' = '${NEXMARK_JSON}',
    'format' = 'json'
);

CREATE VIEW person AS
SELECT
    person.id,
    person.name,
    person.emailAddress,
    person.creditCard,
    person.city,
    person.state,
    `dateTime`,
    person.extra
FROM kafka WHERE event_type = 0;

CREATE VIEW auction AS
SELECT
    auction.id,
    auction.itemName,
    auction.description,
    auction.initialBid,
    auction.reserve,
    `dateTime`,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
FROM kafka WHERE event_type = 1;

CREATE VIEW bid AS
SELECT
    bid.auction,
    bid.bidder,
    bid.price,
    bid.channel,
    bid.url,
    `dateTime`,
    bid.extra
FROM kafka WHERE event_type = 2;

CREATE VIEW datagen AS
SELECT
    event_type,
    person.id AS person_id,
    person.name AS person_name,
    person.emailAddress AS person_emailAddress,
    person.creditCard AS person_creditCard,
    person.city AS person_city,
    person.state AS person_state,
    person.`dateTime` AS person_dateTime,
    person.extra AS person_extra,
    auction.id AS auction_id,
    auction.itemName AS auction_itemName,
    auction.description AS auction_description,
    auction.initialBid AS auction_initialBid,
    auction.reserve AS auction_reserve,
    auction.`dateTime` AS auction_dateTime,
    auction.expires AS auction_expires,
    auction.seller AS auction_seller,
    auction.category AS auction_category,
    auction.extra AS auction_extra,
    bid.auction AS bid_auction,
    bid.bidder AS bid_bidder,
    bid.price AS bid_price,
    bid.channel AS bid_channel,
    bid.url AS bid_url,
    bid.`dateTime` AS bid_dateTime,
    bid.extra AS bid_extra,
    `dateTime`
FROM kafka;
