// bench-duckdb.mjs - DuckDB's side of scripts/bench-duckdb.sh: the two-table
// join of bench_join's JSON-lines files (orders JOIN users ON user_id), one
// thread, as a batch query that reads the columns joinery's join outputs
// (o.order_id, o.amount, u.user_name) and counts them.
//
// Usage: node bench-duckdb.mjs MODULE_DIR ORDERS_JSON USERS_JSON
//   MODULE_DIR is the folder npm installed @duckdb/node-api into.
// Prints one line: "rows N wall_s W cpu_s C version V", where W and C are the
// query's elapsed and CPU seconds (user + system of this process, all its
// threads: process.cpuUsage), measured around the query alone (not node's
// start-up or the module's loading). Exit status 1 on any error.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [moduleDir, ordersPath, usersPath] = process.argv.slice(2);
if (!moduleDir || !ordersPath || !usersPath) {
  console.error('usage: node bench-duckdb.mjs MODULE_DIR ORDERS_JSON USERS_JSON');
  process.exit(1);
}
const require = createRequire(join(moduleDir, 'package.json'));
const { DuckDBInstance, version } = require('@duckdb/node-api');

// SQL string literal
const literal = (text) => `'${text.replaceAll("'", "''")}'`;

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const connection = await instance.connect();
await connection.run('SET threads = 1');
// the columns as bench_join's DDL declares them for joinery
const sql = `
  SELECT count(o.order_id) AS order_ids, count(o.amount) AS amounts,
         count(u.user_name) AS user_names, count(*) AS joined
  FROM read_ndjson(${literal(ordersPath)}, columns = {
         'order_id': 'BIGINT', 'user_id': 'BIGINT', 'product_id': 'BIGINT',
         'amount': 'DECIMAL(10, 2)'}) AS o
  JOIN read_ndjson(${literal(usersPath)}, columns = {
         'user_id': 'BIGINT', 'user_name': 'VARCHAR', 'region_id': 'BIGINT'}) AS u
    ON o.user_id = u.user_id`;
const cpuBefore = process.cpuUsage();
const wallBefore = process.hrtime.bigint();
const reader = await connection.runAndReadAll(sql);
const wall = Number(process.hrtime.bigint() - wallBefore) / 1e9;
const cpuUsed = process.cpuUsage(cpuBefore);
const [orderIds, amounts, userNames, joined] = reader.getRows()[0].map(Number);
if (orderIds !== joined || amounts !== joined || userNames !== joined) {
  console.error(`bench-duckdb.mjs: column counts differ: ${orderIds} ${amounts} ${userNames} ${joined}`);
  process.exit(1);
}
const cpu = (cpuUsed.user + cpuUsed.system) / 1e6;
console.log(`rows ${joined} wall_s ${wall.toFixed(3)} cpu_s ${cpu.toFixed(3)} version ${version()}`);
connection.closeSync?.();
