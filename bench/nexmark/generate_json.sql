-- generate_json.sql (joinery's, run after ddl.sql): writes the generator's
-- events once into a folder of JSON lines, which ddl_json.sql reads, in the
-- shape upstream's insert_kafka.sql writes to Kafka (INSERT INTO kafka
-- SELECT event_type, person, auction, bid FROM datagen): each event's own
-- kind as a nested object, the other two null. ddl.sql's table is flat (its
-- header says why), so the nested rows are built here with ROW and cast to
-- upstream's field names. scripts/run-nexmark.sh replaces ${NEXMARK_JSON}
-- with the folder (one per event count) and runs this at parallelism 1, so
-- the lines are in the generator's order.
CREATE TABLE kafka_json (
    event_type INT,
    person ROW<id BIGINT, name STRING, emailAddress STRING, creditCard STRING,
        city STRING, state STRING, `dateTime` TIMESTAMP(3), extra STRING>,
    auction ROW<id BIGINT, itemName STRING, description STRING, initialBid BIGINT,
        reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT,
        category BIGINT, extra STRING>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
        `dateTime` TIMESTAMP(3), extra STRING>
) WITH (
    'connector' = 'filesystem',
    'path' = '${NEXMARK_JSON}',
    'format' = 'json'
);

INSERT INTO kafka_json
SELECT
    event_type,
    CASE WHEN event_type = 0 THEN
        CAST(ROW(person_id, person_name, person_emailAddress, person_creditCard,
                 person_city, person_state, person_dateTime, person_extra)
             AS ROW<id BIGINT, name STRING, emailAddress STRING, creditCard STRING,
                 city STRING, state STRING, `dateTime` TIMESTAMP(3), extra STRING>)
    END,
    CASE WHEN event_type = 1 THEN
        CAST(ROW(auction_id, auction_itemName, auction_description, auction_initialBid,
                 auction_reserve, auction_dateTime, auction_expires, auction_seller,
                 auction_category, auction_extra)
             AS ROW<id BIGINT, itemName STRING, description STRING, initialBid BIGINT,
                 reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3),
                 seller BIGINT, category BIGINT, extra STRING>)
    END,
    CASE WHEN event_type = 2 THEN
        CAST(ROW(bid_auction, bid_bidder, bid_price, bid_channel, bid_url, bid_dateTime,
                 bid_extra)
             AS ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,
                 url STRING, `dateTime` TIMESTAMP(3), extra STRING>)
    END
FROM datagen;
