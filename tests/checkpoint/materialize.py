#!/usr/bin/env python3
"""materialize.py - reads the visible part files of a filesystem sink folder
(debezium-json lines, hidden '.'/'_' files skipped, as the filesystem source
does) and prints, sorted, either every line (--lines: the changelog as a
multiset) or the materialized table (default: +I/+U add the row, -U/-D take
it away). Exits 2 when a retraction takes away a row that is not there (a
lost insert or a duplicated retraction) - so a duplicate or a loss shows
either as a different table or as this error."""
import collections
import json
import os
import sys


def records(folder):
    for name in sorted(os.listdir(folder)):
        if name.startswith('.') or name.startswith('_'):
            continue
        with open(os.path.join(folder, name)) as handle:
            for line in handle:
                if line.strip():
                    yield line.rstrip('\n')


def main():
    lines_mode = '--lines' in sys.argv[1:]
    folder = [a for a in sys.argv[1:] if not a.startswith('--')][0]
    if lines_mode:
        for line in sorted(records(folder)):
            print(line)
        return 0
    table = collections.Counter()
    for line in records(folder):
        event = json.loads(line)
        before, after = event.get('before'), event.get('after')
        if before is not None:
            key = json.dumps(before, sort_keys=True)
            if table[key] <= 0:
                print('retraction of a row not in the table: ' + line, file=sys.stderr)
                return 2
            table[key] -= 1
        if after is not None:
            table[json.dumps(after, sort_keys=True)] += 1
    for key in sorted(table):
        for _ in range(table[key]):
            print(key)
    return 0


sys.exit(main())
