-- source (joinery's, not an upstream query): SELECT * of ddl.sql's datagen
-- table into a blackhole sink: the source as the queries see it, every
-- column of every event plus the computed dateTime and the watermark.

CREATE TABLE nexmark_source (
    event_type INT,
    person_id BIGINT, person_name STRING, person_emailAddress STRING,
    person_creditCard STRING, person_city STRING, person_state STRING,
    person_dateTime TIMESTAMP(3), person_extra STRING,
    auction_id BIGINT, auction_itemName STRING, auction_description STRING,
    auction_initialBid BIGINT, auction_reserve BIGINT, auction_dateTime TIMESTAMP(3),
    auction_expires TIMESTAMP(3), auction_seller BIGINT, auction_category BIGINT,
    auction_extra STRING,
    bid_auction BIGINT, bid_bidder BIGINT, bid_price BIGINT, bid_channel STRING,
    bid_url STRING, bid_dateTime TIMESTAMP(3), bid_extra STRING,
    `dateTime` TIMESTAMP(3)
) WITH (
    'connector' = 'blackhole'
);

INSERT INTO nexmark_source SELECT * FROM datagen;
