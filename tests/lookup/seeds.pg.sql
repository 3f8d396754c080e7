DROP TABLE IF EXISTS products, dim_user, items;
CREATE TABLE products (id int PRIMARY KEY, product_name text, price numeric(10,2));
INSERT INTO products SELECT g, 'product-' || g, g * 1.5 FROM generate_series(1, 20) g;
CREATE TABLE dim_user (user_id bigint PRIMARY KEY, user_name text, user_level int);
INSERT INTO dim_user VALUES (101, 'alice', 3), (102, 'bob', 1), (104, 'dora', NULL);
CREATE TABLE items (product_id int, region text, label text);
INSERT INTO items VALUES (5, 'EU', 'five-eu'), (5, 'US', 'five-us'), (5, 'EU', 'five-eu-2'), (7, 'US', 'seven-us'), (NULL, 'EU', 'no-id');
