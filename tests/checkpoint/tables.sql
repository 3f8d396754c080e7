CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '@ORDERS_ROWS@', 'rows-per-second' = '800',
  'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', 'fields.order_id.end' = '1000000',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '48',
  'fields.amount.min' = '1', 'fields.amount.max' = '100');
CREATE TABLE users (user_id BIGINT, region INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '40', 'rows-per-second' = '20',
  'fields.user_id.kind' = 'sequence', 'fields.user_id.start' = '1', 'fields.user_id.end' = '40',
  'fields.region.min' = '1', 'fields.region.max' = '5');
CREATE TABLE payments (user_id BIGINT, paid INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '@PAYMENTS_ROWS@', 'rows-per-second' = '200',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '48',
  'fields.paid.min' = '1', 'fields.paid.max' = '50');
CREATE TABLE orders_t (order_id BIGINT, user_id BIGINT, amount INT,
  rowtime AS TO_TIMESTAMP_LTZ(order_id * 1000, 3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' HOUR) WITH (
  'connector' = 'datagen', 'number-of-rows' = '@ORDERS_ROWS@', 'rows-per-second' = '800',
  'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', 'fields.order_id.end' = '1000000',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '48',
  'fields.amount.min' = '1', 'fields.amount.max' = '100');
CREATE TABLE payments_t (payment_id BIGINT, user_id BIGINT, paid INT,
  rowtime AS TO_TIMESTAMP_LTZ(payment_id * 4000, 3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' HOUR) WITH (
  'connector' = 'datagen', 'number-of-rows' = '@PAYMENTS_ROWS@', 'rows-per-second' = '200',
  'fields.payment_id.kind' = 'sequence', 'fields.payment_id.start' = '1', 'fields.payment_id.end' = '1000000',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '48',
  'fields.paid.min' = '1', 'fields.paid.max' = '50');
