-- The dimension tables of seeds.sql's MariaDB part (the rows of ../seeds.pg.sql);
-- run as root through tests/jdbc/mariadb.sh sql.
DROP TABLE IF EXISTS products, dim_user, items;
CREATE TABLE products (id INT PRIMARY KEY, product_name TEXT, price DECIMAL(10,2));
INSERT INTO products SELECT seq, CONCAT('product-', seq), seq * 1.5 FROM seq_1_to_20;
CREATE TABLE dim_user (user_id BIGINT PRIMARY KEY, user_name TEXT, user_level INT);
INSERT INTO dim_user VALUES (101, 'alice', 3), (102, 'bob', 1), (104, 'dora', NULL);
CREATE TABLE items (product_id INT, region TEXT, label TEXT, KEY (product_id));
INSERT INTO items VALUES (5, 'EU', 'five-eu'), (5, 'US', 'five-us'), (5, 'EU', 'five-eu-2'),
  (7, 'US', 'seven-us'), (NULL, 'EU', 'no-id');
