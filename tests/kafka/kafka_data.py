#!/usr/bin/env python3
"""kafka_data.py - data and expected results for tests/kafka/run.sh.

Subcommands (all output sorted, one record a line, so results compare with diff):
  keyed FILE FIELD            JSON lines of FILE as 'key<TAB>value' for kcat -K'\t' (key = FIELD)
  join-expected DIR MIN       expected JSON records of the bounded join query
                              (orders JOIN users JOIN products WHERE amount > MIN)
  cdc-events DIR              debezium-json change events for the users table:
                              create all, then renames and deletes (key<TAB>event)
  cdc-expected DIR            final users state after cdc-events, as CSV (user_id,user_name,region_id)
  cdc-join-expected DIR MIN   final state of orders JOIN users_cdc WHERE amount > MIN as CSV
  materialize-csv FILE        final state of a joinery --output csv changelog (op column first)
  materialize-upsert FILE     final value per key of kcat '%k<TAB>%s' lines (NULL = tombstone)
  materialize-debezium FILE   final rows (CSV) of debezium-json events, one a line ("c"/"r"/"u" add
                              "after", "u"/"d" remove "before")
  user-counts-expected DIR    CSV user_id,count of orders per user
  join-count DIR KEYED        rows of orders JOIN users over DIR's orders plus the orders of the
                              kcat KEYED file (key<TAB>json lines)
  seed-expected FILE          the rows of a tableau golden output (tests/sql/seed000.out) as CSV
  sorted-values FILE          the non-empty lines of FILE, sorted
"""
import csv
import io
import json
import sys
from decimal import Decimal


def load(path):
    with open(path) as handle:
        return [json.loads(line, parse_float=Decimal) for line in handle if line.strip()]


def emit(lines):
    for line in sorted(lines):
        print(line)


def csv_line(values):
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(["" if v is None else v for v in values])
    return out.getvalue()


def money(value):
    return str(Decimal(value).quantize(Decimal("0.01")))


def cdc_events(directory):
    users = load(f"{directory}/users.json")
    events = []
    for user in users:
        row = {k: user[k] for k in ("user_id", "user_name", "region_id")}
        events.append((user["user_id"], {"before": None, "after": row, "op": "c"}))
    for user in users:
        uid = user["user_id"]
        row = {k: user[k] for k in ("user_id", "user_name", "region_id")}
        if uid % 5 == 0:
            after = dict(row, user_name=(row["user_name"] or "anonymous") + "_renamed")
            events.append((uid, {"before": row, "after": after, "op": "u"}))
        elif uid % 7 == 0:
            events.append((uid, {"before": row, "after": None, "op": "d"}))
    return events


def cdc_state(directory):
    state = {}
    for uid, event in cdc_events(directory):
        if event["op"] == "d":
            del state[uid]
        else:
            state[uid] = event["after"]
    return state


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "keyed":
        with open(args[0]) as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    print(f"{record[args[1]]}\t{line.strip()}")
    elif command == "join-expected":
        directory, minimum = args[0], Decimal(args[1])
        users = {u["user_id"]: u for u in load(f"{directory}/users.json")}
        products = {p["product_id"]: p for p in load(f"{directory}/products.json")}
        lines = []
        for order in load(f"{directory}/orders.json"):
            user, product = users.get(order["user_id"]), products.get(order["product_id"])
            if user and product and order["amount"] is not None and order["amount"] > minimum:
                lines.append(json.dumps({"order_id": order["order_id"], "user_name": user["user_name"],
                                         "product_name": product["product_name"]},
                                        separators=(",", ":"))[:-1]
                             + f',"amount":{money(order["amount"])}}}')
        emit(lines)
    elif command == "cdc-events":
        for uid, event in cdc_events(args[0]):
            print(f"{uid}\t{json.dumps(event, separators=(',', ':'))}")
    elif command == "cdc-expected":
        emit(csv_line([u["user_id"], u["user_name"], u["region_id"]])
             for u in cdc_state(args[0]).values())
    elif command == "cdc-join-expected":
        directory, minimum = args[0], Decimal(args[1])
        state = cdc_state(directory)
        lines = []
        for order in load(f"{directory}/orders.json"):
            user = state.get(order["user_id"])
            if user and order["amount"] is not None and order["amount"] > minimum:
                lines.append(csv_line([order["order_id"], user["user_name"], money(order["amount"])]))
        emit(lines)
    elif command == "materialize-csv":
        rows = {}
        with open(args[0], newline="") as handle:
            reader = csv.reader(handle)
            for record in reader:
                if not record or record[0] not in ("+I", "-U", "+U", "-D"):
                    continue
                key = csv_line(record[1:])
                rows[key] = rows.get(key, 0) + (1 if record[0] in ("+I", "+U") else -1)
        lines = []
        for key, count in rows.items():
            if count < 0:
                lines.append("NEGATIVE " + key)
            lines.extend([key] * max(count, 0))
        emit(lines)
    elif command == "materialize-upsert":
        state = {}
        with open(args[0]) as handle:
            for line in handle:
                line = line.rstrip("\n")
                if not line:
                    continue
                key, _, value = line.partition("\t")
                if value == "NULL":
                    state.pop(key, None)
                else:
                    state[key] = value
        emit(f"{k}\t{v}" for k, v in state.items())
    elif command == "materialize-debezium":
        rows = {}
        for event in load(args[0]):
            if event["op"] in ("u", "d"):
                key = csv_line(event["before"].values())
                rows[key] = rows.get(key, 0) - 1
            if event["op"] in ("c", "r", "u"):
                key = csv_line(event["after"].values())
                rows[key] = rows.get(key, 0) + 1
        lines = []
        for key, count in rows.items():
            if count < 0:
                lines.append("NEGATIVE " + key)
            lines.extend([key] * max(count, 0))
        emit(lines)
    elif command == "user-counts-expected":
        counts = {}
        for order in load(f"{args[0]}/orders.json"):
            counts[order["user_id"]] = counts.get(order["user_id"], 0) + 1
        emit(csv_line([user, count]) for user, count in counts.items())
    elif command == "join-count":
        users = {u["user_id"] for u in load(f"{args[0]}/users.json")}
        orders = load(f"{args[0]}/orders.json")
        with open(args[1]) as handle:
            orders += [json.loads(line.split("\t", 1)[1]) for line in handle if line.strip()]
        print(sum(1 for order in orders if order["user_id"] in users))
    elif command == "seed-expected":
        lines = []
        with open(args[0]) as handle:
            for line in handle:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) > 1 and cells[0] in ("+I", "+U"):
                    lines.append(csv_line([None if c == "<NULL>" else c for c in cells[1:]]))
        emit(lines)
    elif command == "sorted-values":
        with open(args[0]) as handle:
            emit(line.rstrip("\n") for line in handle if line.strip())
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
