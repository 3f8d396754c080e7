/*
 * check_binder.c - Check suite for the binder (engine/plan/bind.c,
 * bind_expr.c) through the public planner API: plan_bind_query and
 * plan_bind_insert over a catalog filled here from CREATE TABLE / VIEW text
 * (the same definitions DDL stores), with plans checked through the
 * "Abstract Syntax Tree" section of plan_explain or by walking PlanNode.
 *
 * Covered: name resolution (qualified, unqualified, ambiguous, unknown
 * with "did you mean"), types and nullability (outer joins make the other
 * side nullable), `*` and `t.*`, duplicate names suffixed (user_id0),
 * aggregates and their grouping checks, HAVING, DISTINCT, UNION ALL
 * widening, VALUES, views and WITH, computed columns and watermarks,
 * STATE_TTL hints, features rejected as "not supported yet" with their
 * positions, and INSERT column checks.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/strbuf.h"
#include "engine/plan/planner.h"
#include "engine/sql/parser.h"
#include "tests/unit/planner_fixture.h"

#define FS " WITH ('connector' = 'filesystem', 'path' = '/nonexistent/t.json', 'format' = 'json')"

static const char *const TABLES[] = {
    "CREATE TABLE orders (order_id BIGINT NOT NULL, user_id BIGINT, product_id BIGINT, "
    "amount DECIMAL(10, 2), ts TIMESTAMP(3))" FS,
    "CREATE TABLE users (user_id BIGINT NOT NULL, name STRING, city STRING, "
    "PRIMARY KEY (user_id) NOT ENFORCED)" FS,
    "CREATE TABLE products (product_id BIGINT, title STRING, price DOUBLE)" FS,
    "CREATE TABLE clicks (user_id INT, url STRING, n INT NOT NULL)" FS,
    "CREATE TABLE events (id BIGINT, ts TIMESTAMP(3), doubled AS id * 2, "
    "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)" FS,
    "CREATE TABLE sink_t (user_id BIGINT, total DECIMAL(12, 2), note STRING NOT NULL) "
    "WITH ('connector' = 'blackhole')",
};

/* ---- harness: a catalog filled from DDL text, and the planner over it ---- */

/* The Abstract Syntax Tree section of a query that must bind and plan. */
static const char *ast_of(Fixture *f, const char *sql)
{
    explain(f, sql, 0);
    return section(f, "Abstract Syntax Tree");
}

/* Asserts that binding fails with `status` at line:column with a message containing `text`. */
static void expect_error(Fixture *f, const char *sql, int status, int line, int column,
                         const char *text)
{
    int actual = bind(f, sql);
    ck_assert_msg(actual == status, "'%s' gave %d (%s), expected %d", sql, actual, f->diag.message,
                  status);
    ck_assert_msg(strstr(f->diag.message, text) != NULL, "'%s': message '%s' lacks '%s'", sql,
                  f->diag.message, text);
    ck_assert_msg(f->diag.line == line && f->diag.column == column,
                  "'%s': error at %d:%d, expected %d:%d", sql, f->diag.line, f->diag.column, line,
                  column);
}

/* "BIGINT NOT NULL" for field i of the last bound plan's root. */
static const char *root_type(Fixture *f, uint32_t i)
{
    static char text[96];
    ck_assert_uint_lt(i, f->logical->field_count);
    return type_format(f->logical->fields[i].type, text, sizeof text);
}

static const char *root_name(Fixture *f, uint32_t i)
{
    ck_assert_uint_lt(i, f->logical->field_count);
    return f->logical->fields[i].name;
}

#define SCAN(name) "LogicalTableScan(table=[[default_catalog, default_database, " name "]])\n"

/* ---- names ---- */

START_TEST(test_resolve_qualified_and_unqualified)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_str_eq(ast_of(&f, "SELECT o.order_id, name, u.city FROM orders o JOIN users u "
                                "ON o.user_id = u.user_id"),
                     "LogicalProject(order_id=[$0], name=[$6], city=[$7])\n"
                     "+- LogicalJoin(condition=[=($1, $5)], joinType=[inner])\n"
                     "   :- " SCAN("orders") "   +- " SCAN("users"));
    /* names are case-sensitive as in Flink (keywords are not); the other case is suggested */
    ck_assert_str_eq(ast_of(&f, "select o.order_id, amount FROM orders o"),
                     "LogicalProject(order_id=[$0], amount=[$3])\n+- " SCAN("orders"));
    expect_error(&f, "SELECT O.order_id FROM orders o", JOINERY_ERROR_VALIDATE, 1, 8,
                 "Table 'O' not found; did you mean 'o'? Names are case-sensitive.");
    expect_error(&f, "SELECT o.ORDER_ID FROM orders o", JOINERY_ERROR_VALIDATE, 1, 10,
                 "Column 'ORDER_ID' not found in table 'o'; did you mean 'order_id'? Names are "
                 "case-sensitive.");
    expect_error(&f, "SELECT 1 FROM Orders", JOINERY_ERROR_VALIDATE, 1, 15,
                 "Object 'Orders' not found; did you mean 'orders'? Names are case-sensitive.");
    /* the table name qualifies when there is no alias */
    ck_assert_str_eq(ast_of(&f, "SELECT orders.amount FROM orders"),
                     "LogicalProject(amount=[$3])\n+- " SCAN("orders"));
    /* an alias renames the output column */
    ck_assert_str_eq(ast_of(&f, "SELECT u.name AS who, 1 + 1 FROM users u"),
                     "LogicalProject(who=[$1], EXPR$1=[+(1, 1)])\n+- " SCAN("users"));
    fixture_close(&f);
}
END_TEST

START_TEST(test_resolve_errors)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    expect_error(&f, "SELECT user_id FROM orders, users", JOINERY_ERROR_VALIDATE, 1, 8,
                 "Column 'user_id' is ambiguous");
    expect_error(&f, "SELECT user_id FROM orders o JOIN users u ON o.user_id = u.user_id",
                 JOINERY_ERROR_VALIDATE, 1, 8, "Column 'user_id' is ambiguous");
    expect_error(&f, "SELECT usr_id FROM orders", JOINERY_ERROR_VALIDATE, 1, 8,
                 "Column 'usr_id' not found in any table; did you mean 'user_id'?");
    expect_error(&f, "SELECT o.usr_id FROM orders o", JOINERY_ERROR_VALIDATE, 1, 10,
                 "Column 'usr_id' not found in table 'o'; did you mean 'user_id'?");
    expect_error(&f, "SELECT x.user_id FROM orders o", JOINERY_ERROR_VALIDATE, 1, 8,
                 "Table 'x' not found; did you mean 'o'?");
    /* an alias hides the table's own name */
    expect_error(&f, "SELECT orders.amount FROM orders o", JOINERY_ERROR_VALIDATE, 1, 8,
                 "Table 'orders' not found");
    expect_error(&f, "SELECT * FROM ordres", JOINERY_ERROR_VALIDATE, 1, 15,
                 "Object 'ordres' not found; did you mean 'orders'?");
    expect_error(&f, "SELECT * FROM zzzzzzzz", JOINERY_ERROR_VALIDATE, 1, 15,
                 "Object 'zzzzzzzz' not found");
    ck_assert_ptr_null(strstr(f.diag.message, "did you mean"));
    expect_error(&f, "SELECT * FROM other_db.orders", JOINERY_ERROR_VALIDATE, 1, 15,
                 "Object 'orders' not found within 'default_catalog.other_db'");
    expect_error(&f, "SELECT z.* FROM orders o", JOINERY_ERROR_VALIDATE, 1, 8,
                 "Unknown identifier 'z'");
    expect_error(&f, "SELECT NULL", JOINERY_ERROR_VALIDATE, 1, 8, "Illegal use of 'NULL'");
    expect_error(&f, "SELECT * FROM users WHERE name", JOINERY_ERROR_VALIDATE, 1, 27,
                 "WHERE clause must be a condition");
    expect_error(&f, "SELECT * FROM orders o JOIN users u ON o.amount", JOINERY_ERROR_VALIDATE, 1,
                 40, "ON condition must be a boolean expression");
    /* a fully qualified name works */
    ck_assert_int_eq(bind(&f, "SELECT amount FROM default_catalog.default_database.orders"),
                     JOINERY_OK);
    fixture_close(&f);
}
END_TEST

/* ---- types, nullability, star expansion ---- */

START_TEST(test_types_and_outer_join_nullability)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* the join's fields (the projection above reads them through the scope; see the report:
       the scope keeps the NOT NULL of the other side's columns) */
    const char *sql = "SELECT * FROM orders o %s JOIN users u ON o.user_id = u.user_id";
    static const struct {
        const char *join;
        const char *order_id;
        const char *user_id;
    } cases[] = {
        {"INNER", "BIGINT NOT NULL", "BIGINT NOT NULL"},
        {"LEFT", "BIGINT NOT NULL", "BIGINT"},
        {"RIGHT", "BIGINT", "BIGINT NOT NULL"},
        {"FULL", "BIGINT", "BIGINT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char query[512];
        snprintf(query, sizeof query, sql, cases[i].join);
        ck_assert_int_eq(bind(&f, query), JOINERY_OK);
        PlanNode *join = f.logical->inputs[0];
        ck_assert_int_eq(join->kind, PLAN_LOGICAL_JOIN);
        char text[96];
        ck_assert_str_eq(type_format(join->fields[0].type, text, sizeof text), cases[i].order_id);
        ck_assert_str_eq(type_format(join->fields[3].type, text, sizeof text), "DECIMAL(10, 2)");
        ck_assert_str_eq(type_format(join->fields[5].type, text, sizeof text), cases[i].user_id);
        ck_assert_str_eq(type_format(join->fields[6].type, text, sizeof text), "STRING");
    }
    /* expression types */
    ck_assert_int_eq(bind(&f, "SELECT n + 1, n * 2.5, url, CAST(n AS BIGINT), n > 0, "
                              "COALESCE(user_id, n) FROM clicks"),
                     JOINERY_OK);
    ck_assert_str_eq(root_type(&f, 0), "INT NOT NULL");
    ck_assert_str_eq(root_type(&f, 1), "DECIMAL(13, 1) NOT NULL");
    ck_assert_str_eq(root_type(&f, 2), "STRING");
    ck_assert_str_eq(root_type(&f, 3), "BIGINT NOT NULL");
    ck_assert_str_eq(root_type(&f, 4), "BOOLEAN NOT NULL");
    ck_assert_str_eq(root_type(&f, 5), "INT NOT NULL");
    fixture_close(&f);
}
END_TEST

START_TEST(test_star_expansion_and_duplicate_names)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_str_eq(
        ast_of(&f, "SELECT * FROM orders o LEFT JOIN users u ON o.user_id = u.user_id"),
        "LogicalProject(order_id=[$0], user_id=[$1], product_id=[$2], amount=[$3], ts=[$4], "
        "user_id0=[$5], name=[$6], city=[$7])\n"
        "+- LogicalJoin(condition=[=($1, $5)], joinType=[left])\n"
        "   :- " SCAN("orders") "   +- " SCAN("users"));
    ck_assert_str_eq(ast_of(&f,
                            "SELECT u.*, o.amount FROM orders o RIGHT JOIN users u ON o.user_id = "
                            "u.user_id"),
                     "LogicalProject(user_id=[$5], name=[$6], city=[$7], amount=[$3])\n"
                     "+- LogicalJoin(condition=[=($1, $5)], joinType=[right])\n"
                     "   :- " SCAN("orders") "   +- " SCAN("users"));
    /* three inputs: the second and third user_id become user_id0 and user_id1 */
    ck_assert_int_eq(bind(&f, "SELECT * FROM orders a JOIN orders b ON a.order_id = b.order_id "
                              "JOIN users c ON a.user_id = c.user_id"),
                     JOINERY_OK);
    ck_assert_uint_eq(f.logical->field_count, 13);
    ck_assert_str_eq(root_name(&f, 5), "order_id0");
    ck_assert_str_eq(root_name(&f, 6), "user_id0");
    ck_assert_str_eq(root_name(&f, 9), "ts0");
    ck_assert_str_eq(root_name(&f, 10), "user_id1");
    /* aliases that collide are suffixed too */
    ck_assert_str_eq(ast_of(&f, "SELECT u.name AS n, u.city AS n FROM users u"),
                     "LogicalProject(n=[$1], n0=[$2])\n+- " SCAN("users"));
    /* column aliases of a FROM item */
    ck_assert_str_eq(ast_of(&f, "SELECT a, c FROM users AS x (a, b, c)"),
                     "LogicalProject(a=[$0], c=[$2])\n"
                     "+- LogicalProject(a=[$0], b=[$1], c=[$2])\n"
                     "   +- " SCAN("users"));
    expect_error(&f, "SELECT * FROM users AS x (a, b)", JOINERY_ERROR_VALIDATE, 1, 15,
                 "List of column aliases must have same degree as table");
    fixture_close(&f);
}
END_TEST

/* ---- aggregates ---- */

START_TEST(test_aggregates)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_str_eq(ast_of(&f, "SELECT user_id, SUM(amount) AS s, COUNT(*) FROM orders GROUP BY "
                                "user_id HAVING SUM(amount) > 10"),
                     "LogicalFilter(condition=[>($1, 10)])\n"
                     "+- LogicalAggregate(group=[{0}], s=[SUM($1)], EXPR$2=[COUNT()])\n"
                     "   +- LogicalProject(user_id=[$1], amount=[$3])\n"
                     "      +- " SCAN("orders"));
    ck_assert_str_eq(root_type(&f, 0), "BIGINT");
    ck_assert_str_eq(root_type(&f, 2), "BIGINT NOT NULL");
    ck_assert_str_eq(ast_of(&f, "SELECT user_id, COUNT(DISTINCT product_id), MAX(amount), "
                                "AVG(amount) FROM orders GROUP BY user_id"),
                     "LogicalAggregate(group=[{0}], EXPR$1=[COUNT(DISTINCT $1)], "
                     "EXPR$2=[MAX($2)], EXPR$3=[AVG($2)])\n"
                     "+- LogicalProject(user_id=[$1], product_id=[$2], amount=[$3])\n"
                     "   +- " SCAN("orders"));
    /* a computed grouping key, referenced by the same expression in SELECT */
    ck_assert_str_eq(ast_of(&f, "SELECT user_id + 1, COUNT(*) FROM orders GROUP BY user_id + 1"),
                     "LogicalProject(EXPR$0=[$0], EXPR$1=[$1])\n"
                     "+- LogicalAggregate(group=[{0}], EXPR$1=[COUNT()])\n"
                     "   +- LogicalProject($f0=[+($1, 1)])\n"
                     "      +- " SCAN("orders"));
    /* a global aggregate */
    ck_assert_str_eq(ast_of(&f, "SELECT COUNT(*) FROM orders"),
                     "LogicalAggregate(group=[{}], EXPR$0=[COUNT()])\n"
                     "+- LogicalProject()\n"
                     "   +- " SCAN("orders"));
    /* HAVING on a key and an aggregate */
    ck_assert_str_eq(ast_of(&f, "SELECT user_id, COUNT(*) AS c FROM orders GROUP BY user_id "
                                "HAVING COUNT(*) > 2 AND user_id > 0"),
                     "LogicalFilter(condition=[AND(>($1, 2), >($0, 0))])\n"
                     "+- LogicalAggregate(group=[{0}], c=[COUNT()])\n"
                     "   +- LogicalProject(user_id=[$1])\n"
                     "      +- " SCAN("orders"));
    expect_error(&f, "SELECT user_id, amount FROM orders GROUP BY user_id", JOINERY_ERROR_VALIDATE,
                 1, 17, "Expression 'amount' is not being grouped");
    expect_error(&f, "SELECT user_id FROM orders GROUP BY user_id HAVING amount > 1",
                 JOINERY_ERROR_VALIDATE, 1, 52, "Expression 'amount' is not being grouped");
    expect_error(&f, "SELECT * FROM orders GROUP BY user_id", JOINERY_ERROR_VALIDATE, 1, 8,
                 "'*' is not allowed in a grouped query");
    expect_error(&f, "SELECT user_id FROM orders WHERE COUNT(*) > 1", JOINERY_ERROR_VALIDATE, 1, 34,
                 "Aggregate functions are not allowed in WHERE");
    expect_error(&f, "SELECT SUM(user_id) FROM orders GROUP BY COUNT(*)", JOINERY_ERROR_VALIDATE, 1,
                 42, "Aggregate functions are not allowed in GROUP BY");
    expect_error(&f, "SELECT user_id FROM orders GROUP BY user_id HAVING user_id",
                 JOINERY_ERROR_VALIDATE, 1, 52, "HAVING clause must be a condition");
    expect_error(&f, "SELECT * FROM orders o JOIN users u ON COUNT(*) > 1", JOINERY_ERROR_VALIDATE,
                 1, 40, "Aggregate functions are not allowed in ON");
    fixture_close(&f);
}
END_TEST

START_TEST(test_distinct_and_union)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_str_eq(ast_of(&f, "SELECT DISTINCT user_id, city FROM users"),
                     "LogicalAggregate(group=[{0, 1}])\n"
                     "+- LogicalProject(user_id=[$0], city=[$2])\n"
                     "   +- " SCAN("users"));
    /* UNION ALL widens INT to BIGINT with a cast on the narrower side */
    ck_assert_str_eq(ast_of(&f, "SELECT user_id FROM clicks UNION ALL SELECT user_id FROM orders"),
                     "LogicalUnion(all=[true])\n"
                     ":- LogicalProject(user_id=[CAST($0 AS BIGINT)])\n"
                     ":  +- LogicalProject(user_id=[$0])\n"
                     ":     +- " SCAN("clicks") "+- LogicalProject(user_id=[$1])\n"
                                                "   +- " SCAN("orders"));
    ck_assert_str_eq(root_type(&f, 0), "BIGINT");
    /* NOT NULL only when both sides are */
    ck_assert_int_eq(bind(&f, "SELECT n, url FROM clicks UNION ALL SELECT order_id, 'x' FROM "
                              "orders"),
                     JOINERY_OK);
    ck_assert_str_eq(root_type(&f, 0), "BIGINT NOT NULL");
    ck_assert_str_eq(root_type(&f, 1), "STRING");
    ck_assert_str_eq(root_name(&f, 0), "n"); /* names come from the left */
    /* UNION without ALL is a distinct over the union */
    ck_assert_str_eq(ast_of(&f, "SELECT user_id FROM clicks UNION SELECT user_id FROM clicks"),
                     "LogicalAggregate(group=[{0}])\n"
                     "+- LogicalUnion(all=[true])\n"
                     "   :- LogicalProject(user_id=[$0])\n"
                     "   :  +- " SCAN("clicks") "   +- LogicalProject(user_id=[$0])\n"
                                                "      +- " SCAN("clicks"));
    expect_error(&f, "SELECT user_id FROM clicks UNION ALL SELECT user_id, url FROM clicks",
                 JOINERY_ERROR_VALIDATE, 1, 1,
                 "Column count mismatch in UNION: 1 columns on the left, 2 on the right");
    expect_error(&f, "SELECT url FROM clicks UNION ALL SELECT n FROM clicks",
                 JOINERY_ERROR_VALIDATE, 1, 1,
                 "Type mismatch in column 1 of UNION: STRING and INT NOT NULL");
    expect_error(&f, "SELECT user_id FROM clicks INTERSECT SELECT user_id FROM clicks",
                 JOINERY_ERROR_UNSUPPORTED, 1, 1, "INTERSECT is not supported yet");
    fixture_close(&f);
}
END_TEST

START_TEST(test_values)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_int_eq(bind(&f, "VALUES (1, 'a'), (2.5, 'bcd')"), JOINERY_OK);
    ck_assert_str_eq(root_type(&f, 0), "DECIMAL(11, 1) NOT NULL");
    ck_assert_str_eq(root_type(&f, 1), "VARCHAR(3) NOT NULL");
    ck_assert_str_eq(root_name(&f, 0), "EXPR$0");
    ck_assert_int_eq(bind(&f, "VALUES (1), (CAST(NULL AS INT))"), JOINERY_OK);
    ck_assert_str_eq(root_type(&f, 0), "INT");
    expect_error(&f, "VALUES (NULL)", JOINERY_ERROR_VALIDATE, 1, 1,
                 "Illegal use of 'NULL' in VALUES column 1");
    expect_error(&f, "VALUES (1), (2, 3)", JOINERY_ERROR_VALIDATE, 1, 1,
                 "row 2 has 2 values, row 1 has 1");
    expect_error(&f, "VALUES (1), ('a')", JOINERY_ERROR_VALIDATE, 1, 14,
                 "Values passed to VALUES operator must have compatible types");
    fixture_close(&f);
}
END_TEST

/* ---- views, WITH, computed columns, watermarks ---- */

START_TEST(test_views_and_with)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    define(&f, "CREATE VIEW big_orders AS SELECT order_id, user_id AS uid, amount FROM orders "
               "WHERE amount > 100");
    ck_assert_str_eq(ast_of(&f, "SELECT uid, amount FROM big_orders"),
                     "LogicalProject(uid=[$1], amount=[$2])\n"
                     "+- LogicalProject(order_id=[$0], uid=[$1], amount=[$3])\n"
                     "   +- LogicalFilter(condition=[>($3, 100)])\n"
                     "      +- " SCAN("orders"));
    /* a view over a view, qualified by the view's name */
    define(&f, "CREATE VIEW v2 AS SELECT big_orders.uid FROM big_orders");
    ck_assert_int_eq(bind(&f, "SELECT v2.uid FROM v2"), JOINERY_OK);
    ck_assert_str_eq(root_type(&f, 0), "BIGINT");
    ck_assert_str_eq(
        ast_of(&f, "WITH t AS (SELECT user_id, amount FROM orders), s (a, b) AS (SELECT * FROM "
                   "t) SELECT a FROM s"),
        "LogicalProject(a=[$0])\n"
        "+- LogicalProject(a=[$0], b=[$1])\n"
        "   +- LogicalProject(user_id=[$0], amount=[$1])\n"
        "      +- LogicalProject(user_id=[$1], amount=[$3])\n"
        "         +- " SCAN("orders"));
    /* a WITH item shadows a catalog table of the same name */
    ck_assert_str_eq(ast_of(&f, "WITH orders AS (SELECT 1 AS x) SELECT x FROM orders"),
                     "LogicalProject(x=[$0])\n"
                     "+- LogicalProject(x=[1])\n"
                     "   +- LogicalValues(tuples=[[{  }]])\n");
    expect_error(&f, "WITH t (x) AS (SELECT user_id, amount FROM orders) SELECT * FROM t",
                 JOINERY_ERROR_VALIDATE, 1, 6, "WITH item 't' lists 1 columns but its query has 2");
    /* a view whose table changed shape is reported, at the view's use */
    define(&f, "CREATE TABLE shifting (a INT, b INT)" FS);
    define(&f, "CREATE VIEW over_shifting AS SELECT * FROM shifting");
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(catalog_drop(f.catalog, "shifting", false, false, &diag), JOINERY_OK);
    define(&f, "CREATE TABLE shifting (a INT)" FS);
    expect_error(&f, "SELECT * FROM over_shifting", JOINERY_ERROR_VALIDATE, 1, 15,
                 "View `over_shifting` is no longer valid");
    fixture_close(&f);
}
END_TEST

START_TEST(test_computed_columns_and_watermarks)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_str_eq(ast_of(&f, "SELECT * FROM events"),
                     "LogicalProject(id=[$0], ts=[$1], doubled=[$2])\n"
                     "+- LogicalWatermarkAssigner(rowtime=[ts], watermark=[-($1, 5000:INTERVAL "
                     "SECOND)])\n"
                     "   +- LogicalProject(id=[$0], ts=[$1], doubled=[*($0, 2)])\n"
                     "      +- " SCAN("events"));
    ck_assert_str_eq(root_type(&f, 1), "TIMESTAMP(3) *ROWTIME*");
    ck_assert_str_eq(root_type(&f, 2), "BIGINT");
    fixture_close(&f);
}
END_TEST

/* ---- hints ---- */

START_TEST(test_state_ttl_hints)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    explain(&f,
            "SELECT /*+ STATE_TTL('o' = '1d', 'users' = '12h') */ o.order_id FROM orders o "
            "JOIN users ON o.user_id = users.user_id",
            0);
    ck_assert_ptr_nonnull(strstr(section(&f, "Abstract Syntax Tree"),
                                 "LogicalJoin(condition=[=($1, $5)], joinType=[inner], "
                                 "stateTtlHints=[[[STATE_TTL options:{o=1d, users=12h}]]])"));
    ck_assert_ptr_nonnull(
        strstr(section(&f, "Optimized Physical Plan"), "stateTtl=[left=1 d, right=12 h]"));
    /* keys match case-insensitively; one side only */
    explain(&f,
            "SELECT /*+ STATE_TTL('U' = '30 min') */ o.order_id FROM orders o "
            "JOIN users u ON o.user_id = u.user_id",
            0);
    ck_assert_int_eq(f.physical->kind, PLAN_CALC);
    const PlanNode *join = f.physical->inputs[0];
    ck_assert_int_eq(join->kind, PLAN_JOIN);
    ck_assert_int_eq(join->state_ttl_millis, 0); /* forever */
    ck_assert_int_eq(join->state_ttl_right_millis, 1800000);
    /* the side without a hint takes the session's table.exec.state.ttl */
    set_option(&f, "table.exec.state.ttl", "1 h");
    explain(&f,
            "SELECT /*+ STATE_TTL('U' = '30 min') */ o.order_id FROM orders o "
            "JOIN users u ON o.user_id = u.user_id",
            0);
    ck_assert_ptr_nonnull(
        strstr(section(&f, "Optimized Physical Plan"), "stateTtl=[left=1 h, right=30 min]"));
    expect_error(&f,
                 "SELECT /*+ STATE_TTL('nope' = '1d') */ o.order_id FROM orders o JOIN users ON "
                 "o.user_id = users.user_id",
                 JOINERY_ERROR_VALIDATE, 1, 12,
                 "The options of following hints cannot match the name of input tables or "
                 "views: 'nope' in STATE_TTL");
    expect_error(&f,
                 "SELECT /*+ STATE_TTL('o' = 'soon') */ o.order_id FROM orders o JOIN users ON "
                 "o.user_id = users.user_id",
                 JOINERY_ERROR_VALIDATE, 1, 28,
                 "Invalid STATE_TTL value 'soon': expected a duration such as '1d'");
    expect_error(&f, "SELECT /*+ BROADCAST(u) */ * FROM users u", JOINERY_ERROR_UNSUPPORTED, 1, 12,
                 "Hint 'BROADCAST' is not supported yet");
    expect_error(&f, "SELECT * FROM users /*+ OPTIONS('a'='b') */", JOINERY_ERROR_UNSUPPORTED, 1,
                 25, "Table hint 'OPTIONS' is not supported yet");
    fixture_close(&f);
}
END_TEST

/* ---- rejected features ---- */

START_TEST(test_rejected_features)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    /* ORDER BY and LIMIT bind to a LogicalSort; what it takes is checked here */
    expect_error(&f, "SELECT amount FROM orders ORDER BY 2", JOINERY_ERROR_VALIDATE, 1, 36,
                 "Ordinal out of range");
    expect_error(&f, "SELECT * FROM orders LIMIT -5", JOINERY_ERROR_VALIDATE, 1, 28,
                 "LIMIT takes a non-negative integer literal");
    expect_error(&f, "SELECT * FROM orders FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'",
                 JOINERY_ERROR_UNSUPPORTED, 1, 15,
                 "FOR SYSTEM_TIME AS OF is supported only on the right side of a JOIN (a "
                 "temporal join)");
    expect_error(&f, "SELECT COUNT(*) FROM events GROUP BY TUMBLE(id, INTERVAL '1' MINUTE)",
                 JOINERY_ERROR_VALIDATE, 1, 45,
                 "Window can only be defined on a time attribute column, but is type of BIGINT");
    expect_error(&f, "SELECT * FROM orders NATURAL JOIN users", JOINERY_ERROR_UNSUPPORTED, 1, 22,
                 "NATURAL JOIN is not supported yet");
    expect_error(&f, "SELECT * FROM orders JOIN users USING (user_id)", JOINERY_ERROR_UNSUPPORTED,
                 1, 22, "JOIN ... USING is not supported yet");
    expect_error(&f, "SELECT (SELECT 1) FROM users", JOINERY_ERROR_UNSUPPORTED, 1, 8,
                 "Scalar subqueries are not supported yet");
    /* IN / EXISTS subqueries are semi / anti joins only as conjuncts of WHERE */
    expect_error(&f, "SELECT user_id IN (SELECT user_id FROM orders) FROM users",
                 JOINERY_ERROR_UNSUPPORTED, 1, 8,
                 "IN (subquery) is supported only as a conjunct of WHERE");
    expect_error(
        &f, "SELECT * FROM users WHERE user_id = 1 OR user_id IN (SELECT user_id FROM orders)",
        JOINERY_ERROR_UNSUPPORTED, 1, 42, "IN (subquery) is supported only as a conjunct of WHERE");
    expect_error(&f,
                 "SELECT * FROM users u WHERE NOT (u.user_id > 1 AND EXISTS (SELECT * FROM orders "
                 "o WHERE o.user_id = u.user_id))",
                 JOINERY_ERROR_UNSUPPORTED, 1, 52,
                 "EXISTS (subquery) is supported only as a conjunct of WHERE");
    expect_error(&f, "SELECT * FROM users WHERE user_id IN (SELECT user_id, amount FROM orders)",
                 JOINERY_ERROR_VALIDATE, 1, 39,
                 "The subquery of IN must select exactly one column, not 2");
    expect_error(&f,
                 "SELECT * FROM users u WHERE u.user_id IN (SELECT MAX(o.user_id) FROM orders o "
                 "WHERE o.amount = u.user_id)",
                 JOINERY_ERROR_UNSUPPORTED, 1, 96,
                 "A subquery with GROUP BY, aggregates, DISTINCT, set operations, hints, WITH, "
                 "ORDER BY or LIMIT that reads the outer query's column 'user_id' is not "
                 "supported yet");
    /* on the second line, the position is in script coordinates */
    expect_error(&f, "SELECT *\nFROM orders\nLIMIT 5 OFFSET x", JOINERY_ERROR_VALIDATE, 3, 16,
                 "OFFSET takes a non-negative integer literal");
    fixture_close(&f);
}
END_TEST

/* ---- INSERT ---- */

START_TEST(test_insert_columns)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    ck_assert_str_eq(
        ast_of(&f, "INSERT INTO sink_t SELECT user_id, amount, 'x' FROM orders"),
        "LogicalSink(table=[default_catalog.default_database.sink_t], fields=[user_id, total, "
        "note])\n"
        "+- LogicalProject(user_id=[$0], total=[CAST($1 AS DECIMAL(12, 2))], note=[CAST($2 AS "
        "VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\" NOT NULL)])\n"
        "   +- LogicalProject(user_id=[$1], amount=[$3], EXPR$2=[_UTF-16LE'x'])\n"
        "      +- " SCAN("orders"));
    /* a column list: the others get NULL, in the sink's order */
    ck_assert_str_eq(
        ast_of(&f, "INSERT INTO sink_t (note, user_id) SELECT name, user_id FROM users"),
        "LogicalSink(table=[default_catalog.default_database.sink_t], fields=[user_id, total, "
        "note])\n"
        "+- LogicalProject(user_id=[$1], total=[null:DECIMAL(12, 2)], note=[$0])\n"
        "   +- LogicalProject(name=[$1], user_id=[$0])\n"
        "      +- " SCAN("users"));
    /* INT widens into BIGINT; integers go into DECIMAL */
    ck_assert_int_eq(bind(&f, "INSERT INTO sink_t SELECT n, n, url FROM clicks"), JOINERY_OK);
    expect_error(&f, "INSERT INTO sink_t (user_id, total) SELECT user_id, amount FROM orders",
                 JOINERY_ERROR_VALIDATE, 1, 37, "Column 'note' is NOT NULL and needs a value");
    expect_error(&f, "INSERT INTO sink_t SELECT user_id, amount FROM orders",
                 JOINERY_ERROR_VALIDATE, 1, 20, "the query produces 2 columns, the sink has 3");
    expect_error(&f, "INSERT INTO sink_t SELECT user_id, name, name FROM users",
                 JOINERY_ERROR_VALIDATE, 1, 20,
                 "column 'name' is STRING, the sink column 'total' is DECIMAL(12, 2)");
    expect_error(&f, "INSERT INTO sink_t SELECT price, 1, 'x' FROM products",
                 JOINERY_ERROR_VALIDATE, 1, 20,
                 "column 'price' is DOUBLE, the sink column 'user_id' is BIGINT");
    expect_error(&f,
                 "INSERT INTO sink_t (user_id, nope, note) SELECT user_id, amount, 'x' FROM "
                 "orders",
                 JOINERY_ERROR_VALIDATE, 1, 42, "Unknown target column 'nope' of table 'sink_t'");
    expect_error(&f, "INSERT INTO sink_t (user_id, note) SELECT user_id FROM orders",
                 JOINERY_ERROR_VALIDATE, 1, 36,
                 "Column count mismatch: INSERT lists 2 columns, the query produces 1");
    ck_assert_int_eq(bind(&f, "INSERT INTO sink_tt SELECT 1"), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(f.diag.message, "`sink_tt` does not exist; did you mean "
                                                 "'sink_t'?"));
    define(&f, "CREATE VIEW a_view AS SELECT 1 AS x");
    ck_assert_int_eq(bind(&f, "INSERT INTO a_view SELECT 1"), JOINERY_ERROR_VALIDATE);
    ck_assert_ptr_nonnull(strstr(f.diag.message, "cannot be written to; INSERT needs a table"));
    expect_error(&f, "INSERT OVERWRITE sink_t SELECT user_id, amount, 'x' FROM orders",
                 JOINERY_ERROR_UNSUPPORTED, 1, 25,
                 "INSERT OVERWRITE is not supported in streaming mode");
    fixture_close(&f);
}
END_TEST

/* Optimizing `sql` fails (binding succeeds) with a message containing `text`. */
static void expect_plan_error(Fixture *f, const char *sql, const char *text)
{
    ck_assert_msg(bind(f, sql) == JOINERY_OK, "bind of '%s': %s", sql, f->diag.message);
    int status = plan_optimize(&f->context, f->logical, &f->physical);
    ck_assert_msg(status == JOINERY_ERROR_VALIDATE, "'%s' planned (%d: %s)", sql, status,
                  f->diag.message);
    ck_assert_msg(strstr(f->diag.message, text) != NULL, "'%s': message '%s' lacks '%s'", sql,
                  f->diag.message, text);
}

/* A table its connector cannot read is refused at planning (EXPLAIN too), as Flink. */
START_TEST(test_scan_of_unreadable_tables)
{
    Fixture f;
    fixture_open(&f, TABLES, sizeof TABLES / sizeof TABLES[0]);
    define(&f, "CREATE TABLE names (id BIGINT, name STRING) WITH ('connector' = 'redis', "
               "'host' = '127.0.0.1', 'command' = 'get')");
    define(&f, "CREATE TABLE probe (id BIGINT, pt AS PROCTIME())" FS);
    const char *redis = "Cannot generate a valid execution plan for the given query: table "
                        "`names` cannot be read: connector 'redis' is not a source; it can only "
                        "be looked up";
    expect_plan_error(&f, "SELECT * FROM names", redis);
    expect_plan_error(&f, "SELECT name FROM names WHERE id > 3", redis);
    expect_plan_error(&f, "SELECT p.id FROM probe p JOIN names n ON p.id = n.id", redis);
    expect_plan_error(&f, "INSERT INTO sink_t SELECT user_id, total, note FROM sink_t",
                      "table `sink_t` cannot be read: connector 'blackhole' is not a source; "
                      "it can only be written to");
    /* looked up, the same table plans: its rows are not scanned */
    explain(&f,
            "SELECT p.id, n.name FROM probe p JOIN names FOR SYSTEM_TIME AS OF p.pt AS n "
            "ON p.id = n.id",
            0);
    ck_assert_ptr_nonnull(
        strstr(section(&f, "Optimized Physical Plan"),
               "LookupJoin(table=[default_catalog.default_database.names], joinType=[InnerJoin]"));
    fixture_close(&f);
}
END_TEST

static Suite *binder_suite(void)
{
    Suite *suite = suite_create("binder");
    TCase *names = tcase_create("names");
    tcase_add_test(names, test_resolve_qualified_and_unqualified);
    tcase_add_test(names, test_resolve_errors);
    tcase_add_test(names, test_types_and_outer_join_nullability);
    tcase_add_test(names, test_star_expansion_and_duplicate_names);
    suite_add_tcase(suite, names);
    TCase *queries = tcase_create("queries");
    tcase_add_test(queries, test_aggregates);
    tcase_add_test(queries, test_distinct_and_union);
    tcase_add_test(queries, test_values);
    tcase_add_test(queries, test_views_and_with);
    tcase_add_test(queries, test_computed_columns_and_watermarks);
    tcase_add_test(queries, test_state_ttl_hints);
    tcase_add_test(queries, test_rejected_features);
    tcase_add_test(queries, test_insert_columns);
    tcase_add_test(queries, test_scan_of_unreadable_tables);
    suite_add_tcase(suite, queries);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(binder_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
