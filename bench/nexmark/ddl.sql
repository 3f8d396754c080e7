-- The Nexmark source and its three views: upstream's ddl_gen.sql and
-- ddl_views.sql (github.com/nexmark/nexmark, nexmark-flink/src/main/resources/
-- queries/) on joinery's flat schema. scripts/run-nexmark.sh replaces
-- ${TPS}, ${EVENTS_NUM} and the ${..._PROPORTION}s, as upstream's runner does.
--
-- Differences from upstream:
-- * The nexmark connector's schema is flat (it was written before joinery
--   had ROW types): upstream's person ROW<id, name, ...>, auction ROW<...>
--   and bid ROW<...> columns are flat columns person_id, person_name, ...,
--   auction_id, ..., bid_auction, ... (NULL in the other kinds' rows), and
--   the views read person_id AS id where upstream reads person.id. The
--   views' columns (names, types, order) are upstream's, so the queries
--   run unchanged on them. ddl_json.sql, the JSON-lines mode, has
--   upstream's ROW columns and views.
-- * STRING where upstream writes VARCHAR: Flink reads a bare VARCHAR as
--   STRING, joinery's parser as VARCHAR(1).
CREATE TABLE datagen (
    event_type INT,
    person_id BIGINT,
    person_name STRING,
    person_emailAddress STRING,
    person_creditCard STRING,
    person_city STRING,
    person_state STRING,
    person_dateTime TIMESTAMP(3),
    person_extra STRING,
    auction_id BIGINT,
    auction_itemName STRING,
    auction_description STRING,
    auction_initialBid BIGINT,
    auction_reserve BIGINT,
    auction_dateTime TIMESTAMP(3),
    auction_expires TIMESTAMP(3),
    auction_seller BIGINT,
    auction_category BIGINT,
    auction_extra STRING,
    bid_auction BIGINT,
    bid_bidder BIGINT,
    bid_price BIGINT,
    bid_channel STRING,
    bid_url STRING,
    bid_dateTime TIMESTAMP(3),
    bid_extra STRING,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person_dateTime
            WHEN event_type = 1 THEN auction_dateTime
            ELSE bid_dateTime
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}'
);

CREATE VIEW person AS
SELECT
    person_id AS id,
    person_name AS name,
    person_emailAddress AS emailAddress,
    person_creditCard AS creditCard,
    person_city AS city,
    person_state AS state,
    `dateTime`,
    person_extra AS extra
FROM datagen WHERE event_type = 0;

CREATE VIEW auction AS
SELECT
    auction_id AS id,
    auction_itemName AS itemName,
    auction_description AS description,
    auction_initialBid AS initialBid,
    auction_reserve AS reserve,
    `dateTime`,
    auction_expires AS expires,
    auction_seller AS seller,
    auction_category AS category,
    auction_extra AS extra
FROM datagen WHERE event_type = 1;

CREATE VIEW bid AS
SELECT
    bid_auction AS auction,
    bid_bidder AS bidder,
    bid_price AS price,
    bid_channel AS channel,
    bid_url AS url,
    `dateTime`,
    bid_extra AS extra
FROM datagen WHERE event_type = 2;
