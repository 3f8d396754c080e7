#!/usr/bin/env bash
# generate-sample-data.sh - writes the shop tables of sample-data/ as JSON lines.
#
# Deterministic: the same seed gives byte-identical files with any POSIX awk
# (mawk, gawk, busybox). The random numbers come from our own Park-Miller
# generator (x = x * 48271 mod 2^31-1), whose products stay below 2^53 and so
# are exact in awk's doubles; awk's rand() is not used because it differs
# between implementations.
#
# The data is shaped for join demos and tests (see sample-data/README.md):
# dangling foreign keys (orders of users that do not exist, payments of
# orders that do not exist), NULL keys and values, and skew (hot users and
# products that get a large share of the orders).
#
# Usage: scripts/generate-sample-data.sh [OUTPUT_DIR [SEED]]
#        (defaults: sample-data, 20240601)
set -euo pipefail

output_dir=${1:-sample-data}
seed=${2:-20240601}
mkdir -p "$output_dir"

awk -v out="$output_dir" -v seed="$seed" '
# ---------------------------------------------------------------- randomness
function random_next() {
    random_state = (random_state * 48271) % 2147483647
    return random_state
}
# Uniform integer in [low, high].
function random_int(low, high) {
    return low + (random_next() % (high - low + 1))
}
# True with probability percent/100 (percent may be fractional).
function random_chance(percent) {
    return (random_next() % 10000) < percent * 100
}
function random_pick(list, count) {
    return list[random_int(1, count)]
}

# ---------------------------------------------------------------- formatting
function json_string(text) {
    gsub(/\\/, "\\\\", text)
    gsub(/"/, "\\\"", text)
    return "\"" text "\""
}
# A DECIMAL(10,2) from an amount in cents, as a JSON number: 12.50
function json_decimal(cents,   sign) {
    sign = ""
    if (cents < 0) { sign = "-"; cents = -cents }
    return sprintf("%s%d.%02d", sign, int(cents / 100), cents % 100)
}
# TIMESTAMP(3) text for milliseconds since 2024-06-01 00:00:00.000.
function timestamp_text(millis,   days, month, day, seconds, year) {
    seconds = int(millis / 1000)
    days = int(seconds / 86400)
    seconds -= days * 86400
    year = 2024
    month = 6
    day = days + 1
    while (day > month_days[month]) {
        day -= month_days[month]
        month++
    }
    return sprintf("%04d-%02d-%02d %02d:%02d:%02d.%03d", year, month, day,
                   int(seconds / 3600), int(seconds % 3600 / 60), seconds % 60, millis % 1000)
}
# "null" or the value itself.
function or_null(is_null, text) {
    return is_null ? "null" : text
}

BEGIN {
    random_state = seed % 2147483646 + 1
    split("30 31 31 30 31 30 31", month_list, " ")
    for (i = 1; i <= 7; i++) month_days[i + 5] = month_list[i]

    region_count = 10; store_count = 50; user_count = 500; product_count = 300
    order_count = 3000; payment_count = 2500

    # ------------------------------------------------------------ regions
    split("North China,East China,South China,Central China,Southwest,Northwest,Northeast,Hong Kong,Macau,Overseas", region_names, ",")
    file = out "/regions.json"
    for (r = 1; r <= region_count; r++)
        printf "{\"region_id\":%d,\"region_name\":%s}\n", r, json_string(region_names[r]) > file
    close(file)

    # ------------------------------------------------------------ stores
    # region_id: mostly 1..10, some 11..12 (no such region), some NULL.
    split("Flagship,Outlet,Mall,Express,Center", store_kinds, ",")
    file = out "/stores.json"
    for (s = 1; s <= store_count; s++) {
        region = random_int(1, 10)
        if (random_chance(6)) region = random_int(11, 12)
        name = sprintf("%s %s #%d", region_names[region <= 10 ? region : 10], random_pick(store_kinds, 5), s)
        printf "{\"store_id\":%d,\"store_name\":%s,\"region_id\":%s}\n", s,
               json_string(name), or_null(random_chance(4), region) > file
    }
    close(file)

    # ------------------------------------------------------------ users
    split("li,wang,zhang,liu,chen,yang,zhao,huang,zhou,wu,xu,sun,hu,zhu,gao,lin,he,guo,ma,luo", family_names, ",")
    split("wei,fang,na,min,jing,li,qiang,lei,jun,yang,yong,yan,jie,tao,ming,chao,xiu,xia,ping,gang", given_names, ",")
    file = out "/users.json"
    for (u = 1; u <= user_count; u++) {
        name = random_pick(family_names, 20) "_" random_pick(given_names, 20) "_" u
        region = random_int(1, 10)
        if (random_chance(5)) region = random_int(11, 12)
        level = random_int(1, 5)
        # Hot users (1..5) are the big spenders: top level.
        if (u <= 5) level = 5
        printf "{\"user_id\":%d,\"user_name\":%s,\"region_id\":%s,\"level\":%s}\n", u,
               or_null(random_chance(2), json_string(name)), or_null(random_chance(3), region),
               or_null(random_chance(2), level) > file
    }
    close(file)

    # ------------------------------------------------------------ products
    split("electronics,books,clothing,home,toys,food,sports,beauty", categories, ",")
    split("phone,laptop,headphones,tablet,camera,speaker,watch,charger", electronics_names, ",")
    split("novel,cookbook,atlas,comic,textbook,poetry,biography,guide", book_names, ",")
    split("shirt,jacket,dress,jeans,scarf,socks,coat,hat", clothing_names, ",")
    file = out "/products.json"
    for (p = 1; p <= product_count; p++) {
        # Hot products (1..3) are electronics; the rest spread over categories.
        category = p <= 3 ? "electronics" : random_pick(categories, 8)
        if (category == "electronics") base = random_pick(electronics_names, 8)
        else if (category == "books") base = random_pick(book_names, 8)
        else if (category == "clothing") base = random_pick(clothing_names, 8)
        else base = category "-item"
        price = random_int(100, 99999)
        printf "{\"product_id\":%d,\"product_name\":%s,\"category\":%s,\"price\":%s}\n", p,
               json_string(base "-" p), or_null(p > 3 && random_chance(3), json_string(category)),
               or_null(random_chance(2), json_decimal(price)) > file
        product_price[p] = price
    }
    close(file)

    # ------------------------------------------------------------ orders
    # user_id: 20% hot users 1..5, else 1..520 (501..520 do not exist), 2% NULL.
    # product_id: 15% hot products 1..3, else 1..310 (301..310 do not exist), 2% NULL.
    # store_id: 1..52 (51, 52 do not exist), 1% NULL.
    # order_time rises by 0..10 min per order; 3% arrive up to 30 s out of order.
    split("CREATED,PAID,PAID,PAID,SHIPPED,SHIPPED,CANCELLED,REFUNDED", statuses, ",")
    file = out "/orders.json"
    clock = 0
    for (o = 1; o <= order_count; o++) {
        if (random_chance(20)) user = random_int(1, 5); else user = random_int(1, 520)
        if (random_chance(15)) product = random_int(1, 3); else product = random_int(1, 310)
        store = random_int(1, 52)
        clock += random_int(0, 600000)
        time = clock
        if (random_chance(3) && time > 30000) time -= random_int(1, 30000)
        amount = product <= product_count ? product_price[product] : random_int(100, 99999)
        amount *= random_int(1, 3)
        if (amount > 99999999) amount = 99999999
        user_null = random_chance(2); product_null = random_chance(2); store_null = random_chance(1)
        amount_null = random_chance(1); status_null = random_chance(2)
        status = random_pick(statuses, 8)
        printf "{\"order_id\":%d,\"user_id\":%s,\"product_id\":%s,\"store_id\":%s,\"amount\":%s,\"order_time\":%s,\"status\":%s}\n",
               o, or_null(user_null, user), or_null(product_null, product), or_null(store_null, store),
               or_null(amount_null, json_decimal(amount)), json_string(timestamp_text(time)),
               or_null(status_null, json_string(status)) > file
        order_time[o] = time
        order_amount[o] = amount_null ? -1 : amount
        order_status[o] = status_null ? "" : status
    }
    close(file)

    # ------------------------------------------------------------ payments
    # order_id: 90% an existing order (some paid twice), 6% 3001..3200 (no
    # such order), 4% NULL. pay_time is 0..30 min after the order; the amount
    # is the order amount except for a few partial payments.
    split("alipay,wechat,wechat,card,card,cash", methods, ",")
    file = out "/payments.json"
    for (y = 1; y <= payment_count; y++) {
        kind = random_int(1, 100)
        order_null = 0
        if (kind <= 90) order = random_int(1, order_count)
        else if (kind <= 96) order = random_int(order_count + 1, order_count + 200)
        else { order = 0; order_null = 1 }
        if (order >= 1 && order <= order_count) {
            pay_time = order_time[order] + random_int(0, 1800000)
            pay = order_amount[order] >= 0 ? order_amount[order] : random_int(100, 99999)
        } else {
            pay_time = random_int(0, clock)
            pay = random_int(100, 99999)
        }
        if (random_chance(5)) pay = int(pay / 2)
        printf "{\"payment_id\":%d,\"order_id\":%s,\"pay_time\":%s,\"pay_amount\":%s,\"method\":%s}\n",
               y, or_null(order_null, order), json_string(timestamp_text(pay_time)),
               or_null(random_chance(1), json_decimal(pay)),
               or_null(random_chance(3), json_string(random_pick(methods, 6))) > file
    }
    close(file)
}
'
