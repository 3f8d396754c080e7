#!/usr/bin/env python3
"""Terminal tests of the joinery shell through a pseudo-terminal.

Usage: pty_test.py JOINERY WORK_DIR

Each test starts JOINERY on a fresh pseudo-terminal with HOME set to its own
directory, types input and waits for expected output. Every wait is bounded
(TIMEOUT seconds) and waits for text, never for time, so results do not
depend on machine speed. Prints one line per test and a last line
"pty: N passed, N failed, N skipped".
"""
import os
import pty
import re
import select
import signal
import sys
import time

TIMEOUT = 15.0
PROMPT = b"joinery> "
CONTINUATION = b"       > "


class Terminal:
    """A joinery process on a pseudo-terminal, with everything it printed."""

    def __init__(self, joinery, home, args=()):
        self.output = b""
        self.status = None
        pid, fd = pty.fork()
        if pid == 0:
            os.environ["HOME"] = home
            os.environ["TERM"] = "xterm"
            os.environ.pop("INPUTRC", None)
            try:
                os.execv(joinery, [joinery, *args])
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd

    def read_some(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([self.fd], [], [], remaining)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            data = b""
        if not data:
            self.reap(deadline)
            return False
        self.output += data
        return True

    def expect(self, needle, start=0):
        """Waits until needle appears in output after offset start; returns its end offset."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = self.output.find(needle, start)
            if found >= 0:
                return found + len(needle)
            if self.status is not None or not self.read_some(deadline):
                found = self.output.find(needle, start)
                if found >= 0:
                    return found + len(needle)
                raise AssertionError("did not see %r; output so far:\n%s" % (needle, self.shown()))

    def send(self, data):
        os.write(self.fd, data)

    def mark(self):
        return len(self.output)

    def reap(self, deadline):
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.status = status
                return
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def wait_exit(self):
        """Reads until the process ends; returns its exit code (or -signal)."""
        deadline = time.monotonic() + TIMEOUT
        while self.status is None and time.monotonic() < deadline:
            if not self.read_some(deadline):
                self.reap(deadline)
        if self.status is None:
            raise AssertionError("joinery did not exit; output:\n" + self.shown())
        if os.WIFEXITED(self.status):
            return os.WEXITSTATUS(self.status)
        return -os.WTERMSIG(self.status)

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.reap(time.monotonic() + TIMEOUT)
        os.close(self.fd)

    def shown(self):
        return self.output.decode("utf-8", "replace")[-3000:]


def test_prompt_and_quit(term, home):
    term.expect(PROMPT)
    term.send(b"QUIT;\r")
    assert term.wait_exit() == 0


def test_ctrl_d_exits(term, home):
    term.expect(PROMPT)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_multi_line_continuation(term, home):
    term.expect(PROMPT)
    term.send(b"SET 'parallelism.default' =\r")
    term.expect(CONTINUATION)
    start = term.mark()
    term.send(b"  '17';\r")
    term.expect(b"[INFO] Session property has been set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SET;\r")
    term.expect(b" 17 |", start)
    term.expect(PROMPT, start)
    term.send(b"EXIT;\r")
    assert term.wait_exit() == 0


def test_two_statements_on_one_line(term, home):
    term.expect(PROMPT)
    term.send(b"SET 'parallelism.default' = '1'; SET 'parallelism.default' = '2';\r")
    end = term.expect(b"[INFO] Session property has been set.")
    end = term.expect(b"[INFO] Session property has been set.", end)
    term.expect(PROMPT, end)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_ctrl_c_clears_line(term, home):
    term.expect(PROMPT)
    term.send(b"SELECT garbage")
    term.expect(b"garbage")
    start = term.mark()
    term.send(b"\x03")
    term.expect(PROMPT, start)
    # an unfinished statement on a continuation line is dropped as well
    start = term.mark()
    term.send(b"SELECT\r")
    term.expect(CONTINUATION, start)
    start = term.mark()
    term.send(b"\x03")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SET 'parallelism.default' = '3';\r")
    term.expect(b"[INFO] Session property has been set.", start)
    term.expect(PROMPT, start)
    assert b"[ERROR]" not in term.output[start:], term.shown()
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_history_file(term, home):
    term.expect(PROMPT)
    for line in (b" SET 'table.exec.state.ttl' = '1 h';\r",
                 b"SET 'properties.sasl.PASSWORD' = 'hunter2';\r",
                 b"CREATE TABLE k (x INT) WITH ('connector' = 'datagen', 'my.Token' = 'tok');\r",
                 b"SET 'parallelism.default' =\r'4';\r"):
        start = term.mark()
        term.send(line)
        term.expect(PROMPT, start + len(line))
    term.send(b"\x04")
    assert term.wait_exit() == 0
    path = os.path.join(home, ".joinery_history")
    with open(path, "rb") as f:
        history = f.read()
    assert b"SET 'parallelism.default' =\\n'4';" in history, history
    assert b"hunter2" not in history and b"PASSWORD" not in history, history
    assert b"tok" not in history, history
    assert b"state.ttl" not in history, history
    assert os.stat(path).st_mode & 0o077 == 0, oct(os.stat(path).st_mode)


def test_history_recall(term, home):
    with open(os.path.join(home, ".joinery_history"), "wb") as f:
        f.write(b"SET 'parallelism.default' = '3';\n")
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"\x1b[A\r")  # up arrow, enter
    end = term.expect(b"[INFO] Session property has been set.", start)
    term.expect(PROMPT, end)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_tab_completes_keyword(term, home):
    # checks what the completed line does, not how the editor redraws it
    # (readline echoes the rest of the word, editline repositions the cursor)
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"HEL\t")
    term.expect(b"P ", start)  # completed in upper case, then a space
    term.send(b";\r")
    term.expect(b"statements are available", start)  # HELP ran
    term.expect(PROMPT, start)
    assert b"[ERROR]" not in term.output[start:], term.shown()
    # lower case in, lower case out
    start = term.mark()
    term.send(b"hel\t")
    term.expect(b"p ", start)
    term.send(b";\r")
    term.expect(b"statements are available", start)
    term.expect(PROMPT, start)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_tab_completes_table_name(term, home):
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE completable_orders (order_id BIGINT) WITH ("
              b"'connector' = 'datagen', 'number-of-rows' = '1');\r")
    term.expect(PROMPT, start)
    if b"[ERROR]" in term.output[start:]:
        raise Skip("engine cannot create a datagen table")
    start = term.mark()
    term.send(b"SELECT order_i\t")
    term.expect(b"d ", start)
    term.send(b"FROM completable_o\t")
    term.expect(b"rders ", start)
    term.send(b";\r")
    term.expect(b"Received a total of 1 row", start)
    term.expect(PROMPT, start)
    assert b"[ERROR]" not in term.output[start:], term.shown()
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_completion_knows_the_context(term, home):
    """Tab completes what may stand there: tables after FROM (not the keyword ORDER),
    an alias's columns after 'o.', option keys after SET (quoted or raw), the connector's
    keys inside WITH (...), connector names, functions with their '('. Each completed
    line is then finished and run: what it does shows what the completion wrote (the
    editor's redrawing is not checked)."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE orders (order_id BIGINT, user_id BIGINT) WITH ("
              b"'connector' = 'datagen', 'number-of-rows' = '1');\r")
    term.expect(PROMPT, start)
    cases = [
        (b"SELECT COUNT(*) AS n FROM ord\t", b";\r", b"Received a total of"),
        (b"SELECT upp\t", b"'x') AS u;\r", b" X |"),
        (b"SET 'table.exec.st\t", b" = '1 h';\r", b"Session property has been set."),
        (b"SET table.optimizer.mu\t", b"nabled = true;\r", b"Session property has been set."),
        (b"SELECT *\rFROM orders AS o WHERE o.us\t", b"= 0;\r", b"Received a total of"),
        (b"CREATE TABLE t2 (x INT) WITH ('connector' = 'datagen', 'number-of\t", b" = '1');\r",
         b"[INFO] Execute statement succeeded."),
        (b"CREATE TABLE t3 (x INT) WITH ('connector' = 'upsert-k\t", b");\r", b"'upsert-kafka'"),
    ]
    for typed, rest, effect in cases:
        mark = term.mark()
        term.send(typed + rest)  # the editor takes the Tab before the characters after it
        term.expect(effect, mark)
        term.expect(PROMPT, mark)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_error_with_caret(term, home):
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"SELECT *\rFROM missing_table;\r")
    term.expect(b"[ERROR] Could not execute SQL statement. Reason:", start)
    term.expect(b"2 | FROM missing_table;", start)
    term.expect(PROMPT, start)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_ctrl_c_cancels_query(term, home):
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE endless (x BIGINT) WITH ('connector' = 'datagen', "
              b"'rows-per-second' = '20');\r")
    term.expect(PROMPT, start)
    if b"[ERROR]" in term.output[start:]:
        raise Skip("engine cannot create a datagen table yet")
    start = term.mark()
    term.send(b"SELECT * FROM endless;\r")
    deadline = time.monotonic() + TIMEOUT
    while b"| +I |" not in term.output[start:] and b"[ERROR]" not in term.output[start:]:
        if not term.read_some(deadline):
            break
    if b"| +I |" not in term.output[start:]:
        raise Skip("engine cannot run an unbounded SELECT yet")
    term.send(b"\x03")
    term.expect(b"Query terminated, received a total of", start)
    term.expect(PROMPT, start)
    term.send(b"QUIT;\r")
    assert term.wait_exit() == 0


def test_background_job_in_the_shell(term, home):
    """A background INSERT leaves the prompt free; Ctrl-C at the prompt leaves the job
    running; SHOW JOBS lists it RUNNING; QUIT cancels it, saying so."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE endless (x BIGINT) WITH ('connector' = 'datagen', "
              b"'rows-per-second' = '20');\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"CREATE TABLE hole (x BIGINT) WITH ('connector' = 'blackhole');\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SET 'table.dml-sync' = 'false';\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"INSERT INTO hole SELECT x FROM endless;\r")
    term.expect(b"[INFO] Submitting SQL update statement to the cluster...", start)
    term.expect(b"Job ID: ", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"\x03")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SHOW JOBS;\r")
    term.expect(b"insert-into_default_catalog.default_database.hole | RUNNING |", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"QUIT;\r")
    term.expect(b"[INFO] Cancelling 1 running job.", start)
    assert term.wait_exit() == 0


def test_statement_set_in_the_shell(term, home):
    """BEGIN STATEMENT SET collects INSERTs with Flink's messages, refuses anything else and
    END runs them as one job; EXECUTE STATEMENT SET BEGIN keeps prompting for continuation
    lines past the ';' of its INSERTs until END;."""
    term.expect(PROMPT)
    for table in (b"a", b"b"):
        start = term.mark()
        term.send(b"CREATE TABLE " + table + b" (x INT) WITH ('connector' = 'print', "
                  b"'print-identifier' = '" + table + b"');\r")
        term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"BEGIN STATEMENT SET;\r")
    term.expect(b"[INFO] Begin a statement set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"INSERT INTO a SELECT * FROM (VALUES (1), (2)) AS t(x);\r")
    term.expect(b"[INFO] Add SQL update statement to the statement set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SHOW TABLES;\r")
    term.expect(b"Only INSERT statement is allowed in Statement Set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"INSERT INTO b SELECT x * 10 FROM (VALUES (1), (2)) AS t(x);\r")
    term.expect(b"[INFO] Add SQL update statement to the statement set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"END;\r")
    term.expect(b"b> +I[20]", start)
    term.expect(b"[INFO] Job finished: 2 rows written to a, 2 rows written to b.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"EXECUTE STATEMENT SET BEGIN\r")
    term.expect(CONTINUATION, start)
    start = term.mark()
    term.send(b"INSERT INTO a SELECT 7;\r")
    term.expect(CONTINUATION, start)
    start = term.mark()
    term.send(b"INSERT INTO b SELECT 8;\r")
    term.expect(CONTINUATION, start)
    start = term.mark()
    term.send(b"END;\r")
    term.expect(b"[INFO] Job finished: 1 rows written to a, 1 rows written to b.", start)
    term.expect(PROMPT, start)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_shell_slips_get_a_hint(term, home):
    """Other shells' habits typed alone get a one-line hint and a fresh prompt."""
    term.expect(PROMPT)
    for typed, hint in [(b"\\q", b"leave with QUIT; or Ctrl-D."),
                        (b"\\d", b"SHOW TABLES;"),
                        (b".mode csv", b"'sql-client.execution.result-mode' = 'csv';"),
                        (b"help", b"type HELP; for the statements.")]:
        start = term.mark()
        term.send(typed + b"\r")
        end = term.expect(hint, start)
        term.expect(PROMPT, end)  # a new statement's prompt, not the continuation one
        assert CONTINUATION not in term.output[start:], term.shown()
    # the same words inside a statement are left alone: the statement goes on
    start = term.mark()
    term.send(b"SELECT\r")
    end = term.expect(CONTINUATION, start)
    term.send(b"help\r")
    term.expect(CONTINUATION, end)  # the second continuation prompt, after help
    term.send(b"\x03")
    term.expect(PROMPT, start)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_print_time_cost(term, home):
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"SET 'sql-client.display.print-time-cost' = 'true';\r")
    term.expect(b"[INFO] Session property has been set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SHOW CATALOGS;\r")
    end = term.expect(b"1 row in set (", start)
    term.expect(PROMPT, end)
    # the figure itself is wall-clock time: only its shape is checked
    assert re.search(rb"1 row in set \(\d+\.\d\d seconds\)", term.output[start:]), term.shown()
    start = term.mark()
    term.send(b"RESET 'sql-client.display.print-time-cost';\rSHOW CATALOGS;\r")
    end = term.expect(b"1 row in set", start)
    term.expect(PROMPT, end)
    assert b" seconds)" not in term.output[start:], term.shown()
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_ctrl_c_stops_kafka_wait(term, home):
    """An unreachable Kafka cluster: a progress line after a second, Ctrl-C stops at once
    (long before the 60 s look-up; TIMEOUT bounds every wait here)."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE unreachable (id BIGINT) WITH ('connector' = 'kafka', "
              b"'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', "
              b"'format' = 'json', 'scan.startup.mode' = 'earliest-offset');\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SELECT * FROM unreachable;\r")
    term.expect(b"Waiting for the Kafka cluster at '127.0.0.1:1'", start)
    term.send(b"\x03")
    end = term.expect(b"Job cancelled while it was starting.", start)
    term.expect(PROMPT, end)
    assert b"[ERROR]" not in term.output[start:], term.shown()
    term.send(b"\x04")
    assert term.wait_exit() == 0


class Screen:
    """A small VT100 screen: enough of the sequences the views draw with (cursor
    position, erase line / screen, alternate screen, attributes ignored) to read
    what a user would see."""

    def __init__(self, lines=24, columns=80):
        self.lines, self.columns = lines, columns
        self.cells = [[" "] * columns for _ in range(lines)]
        self.row = self.column = 0

    def feed(self, data):
        text = data.decode("utf-8", "replace")
        i = 0
        while i < len(text):
            c = text[i]
            if c == "\x1b" and i + 1 < len(text) and text[i + 1] == "[":
                j = i + 2
                while j < len(text) and not ("@" <= text[j] <= "~"):
                    j += 1
                if j >= len(text):
                    break
                params, final = text[i + 2:j], text[j]
                if final == "H":
                    parts = [p for p in params.split(";")] if params else []
                    self.row = (int(parts[0]) - 1) if parts and parts[0] else 0
                    self.column = (int(parts[1]) - 1) if len(parts) > 1 and parts[1] else 0
                elif final == "K":
                    for k in range(self.column, self.columns):
                        self.cells[self.row][k] = " "
                elif final == "J" and params == "2":
                    self.cells = [[" "] * self.columns for _ in range(self.lines)]
                i = j + 1
                continue
            if c == "\r":
                self.column = 0
            elif c == "\n":
                self.row = min(self.row + 1, self.lines - 1)
            elif c >= " ":
                if self.column < self.columns and 0 <= self.row < self.lines:
                    self.cells[self.row][self.column] = c
                self.column += 1
            i += 1

    def text(self):
        return ["".join(line).rstrip() for line in self.cells]


def view_frames(output, start):
    """The last complete frame the view drew: the screen after feeding everything from
    the view's start (alternate screen on) up to its end (alternate screen off)."""
    begin = output.find(b"\x1b[?1049h", start)
    assert begin >= 0, "the view never opened"
    end = output.find(b"\x1b[?1049l", begin)
    screen = Screen()
    screen.feed(output[begin:end if end >= 0 else len(output)])
    return screen.text()


GROUPED = (b"SELECT k, COUNT(*) AS c FROM (VALUES ('a'), ('b'), ('a'), ('c')) AS t(k) "
           b"GROUP BY k;\r")


def test_table_mode_view(term, home):
    """result-mode 'table' in a terminal: the materialised result, updated in place
    (a's count goes from 1 to 2 where a's row is), a status line, Q leaves."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"SET 'sql-client.execution.result-mode' = 'table';\r")
    term.expect(b"[INFO] Session property has been set.", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(GROUPED)
    term.expect(b"finished, Q leaves", start)
    screen = view_frames(term.output, start)
    # header, then the three rows in first-seen order: a updated in place to 2
    data = [line.split() for line in screen[2:21] if line.strip()]
    assert data == [["a", "2"], ["b", "1"], ["c", "1"]], "\n".join(screen)
    assert screen[1].split() == ["k", "c"], "\n".join(screen)
    assert "rows received: 5" in screen[22] and "in result: 3 (1-3)" in screen[22], screen[22]
    assert "joinery table view" in screen[0], screen[0]
    term.send(b"q")
    end = term.expect(b"Received a total of 5 rows; the result has 3 rows", start)
    term.expect(PROMPT, end)
    # the shell goes on
    start = term.mark()
    term.send(b"SHOW CURRENT CATALOG;\r")
    term.expect(b"default_catalog", start)
    term.expect(PROMPT, start)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def last_frame(output, start):
    """The screen as the last frame left it, from the view's start to now."""
    begin = output.find(b"\x1b[?1049h", start)
    assert begin >= 0, "the view never opened"
    screen = Screen()
    screen.feed(output[begin:])
    return screen.text()


def test_ctrl_c_in_a_view(term, home):
    """Ctrl-C while a view shows a running query stops it and leaves the view at once."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE endless (x BIGINT) WITH ('connector' = 'datagen', "
              b"'rows-per-second' = '20');\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SET 'sql-client.execution.result-mode' = 'changelog';\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SELECT * FROM endless;\r")
    term.expect(b"rows received: 1", start)  # rows arrive in the view
    term.send(b"\x03")
    end = term.expect(b"Query terminated, received a total of", start)
    term.expect(PROMPT, end)
    assert term.output.rfind(b"\x1b[?1049l") > start, term.shown()  # the normal screen is back
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_view_scrolls_and_pages(term, home):
    """25 rows on a 20-row page: space pages down (to the last page), g goes to the top,
    j scrolls one row; the status line says which rows are shown."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"SET 'sql-client.execution.result-mode' = 'table';\r")
    term.expect(PROMPT, start)
    start = term.mark()
    values = b", ".join(b"(%d)" % i for i in range(1, 26))
    term.send(b"SELECT x FROM (VALUES " + values + b") AS t(x);\r")
    term.expect(b"finished, Q leaves", start)
    screen = last_frame(term.output, start)
    assert [line.split() for line in screen[2:4]] == [["1"], ["2"]], "\n".join(screen)
    assert "in result: 25 (1-20)" in screen[22], screen[22]
    for key, first, shown in [(b" ", "6", "(6-25)"), (b"g", "1", "(1-20)"), (b"j", "2", "(2-21)"),
                              (b"G", "6", "(6-25)"), (b"\x1b[5~", "1", "(1-20)")]:
        mark = term.mark()
        term.send(key)
        term.expect(shown.encode(), mark)
        screen = last_frame(term.output, start)
        assert screen[2].split() == [first], (key, "\n".join(screen))
    term.send(b"q")
    term.expect(b"Received a total of 25 rows; the result has 25 rows", start)
    term.expect(PROMPT, start)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_changelog_mode_view(term, home):
    """result-mode 'changelog': every change with its op column, in the same view."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"SET 'sql-client.execution.result-mode' = 'changelog';\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(GROUPED)
    term.expect(b"finished, Q leaves", start)
    screen = view_frames(term.output, start)
    assert screen[1].split() == ["op", "k", "c"], "\n".join(screen)
    data = [line.split() for line in screen[2:21] if line.strip()]
    assert data == [["+I", "a", "1"], ["+I", "b", "1"], ["-U", "a", "1"], ["+U", "a", "2"],
                    ["+I", "c", "1"]], "\n".join(screen)
    term.send(b"q")
    end = term.expect(b"Received a total of 5 rows", start)
    term.expect(PROMPT, end)
    term.send(b"\x04")
    assert term.wait_exit() == 0


def test_table_view_of_a_running_join(term, home):
    """A live materialised join: the status line shows the job's status (state) while it
    runs; Q stops the query and leaves the view; the shell goes on."""
    term.expect(PROMPT)
    start = term.mark()
    term.send(b"CREATE TABLE clicks (user_id BIGINT, url STRING) WITH ('connector' = 'datagen', "
              b"'rows-per-second' = '50', 'fields.user_id.min' = '1', 'fields.user_id.max' = '5', "
              b"'fields.url.length' = '4');\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"CREATE TABLE people (user_id BIGINT, name STRING) WITH ('connector' = 'datagen', "
              b"'fields.user_id.kind' = 'sequence', 'fields.user_id.start' = '1', "
              b"'fields.user_id.end' = '5', 'fields.name.length' = '3');\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SET 'sql-client.execution.result-mode' = 'table';\r")
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SELECT p.user_id, COUNT(c.url) AS clicks FROM people AS p "
              b"LEFT JOIN clicks AS c ON p.user_id = c.user_id GROUP BY p.user_id;\r")
    term.expect(b"running: ", start)  # the job's status line inside the view
    term.expect(b"state ", start)
    # M: the live job view, the job's per-operator table as it runs (parallelism 1)
    mark = term.mark()
    term.send(b"m")
    term.expect(b"joinery job view", mark)
    term.expect(b"rows in", mark)
    term.expect(b"GroupAggregate", mark)
    mark = term.mark()
    term.send(b"llllll")  # the table is wider than 80 columns: scroll it sideways
    term.expect(b"backpressure", mark)
    mark = term.mark()
    term.send(b"m")
    term.expect(b"joinery table view", mark)
    term.send(b"q")
    end = term.expect(b"Query terminated, received a total of", start)
    term.expect(PROMPT, end)
    assert b"[ERROR]" not in term.output[start:], term.shown()
    term.send(b"\x04")
    assert term.wait_exit() == 0


class Skip(Exception):
    pass


TESTS = [
    test_prompt_and_quit,
    test_ctrl_d_exits,
    test_multi_line_continuation,
    test_two_statements_on_one_line,
    test_ctrl_c_clears_line,
    test_history_file,
    test_history_recall,
    test_tab_completes_keyword,
    test_tab_completes_table_name,
    test_completion_knows_the_context,
    test_error_with_caret,
    test_ctrl_c_cancels_query,
    test_background_job_in_the_shell,
    test_statement_set_in_the_shell,
    test_shell_slips_get_a_hint,
    test_print_time_cost,
    test_ctrl_c_stops_kafka_wait,
    test_table_mode_view,
    test_changelog_mode_view,
    test_table_view_of_a_running_join,
    test_view_scrolls_and_pages,
    test_ctrl_c_in_a_view,
]


def main():
    joinery, work = sys.argv[1], sys.argv[2]
    passed = failed = skipped = 0
    for test in TESTS:
        home = os.path.join(work, test.__name__)
        os.makedirs(home, exist_ok=True)
        term = Terminal(joinery, home)
        name = test.__name__[len("test_"):].replace("_", " ")
        try:
            test(term, home)
            print("ok   pty: " + name)
            passed += 1
        except Skip as reason:
            print("skip pty: %s (%s)" % (name, reason))
            skipped += 1
        except (AssertionError, OSError) as error:
            print("FAIL pty: %s\n  %s" % (name, str(error).replace("\n", "\n  | ")))
            failed += 1
        finally:
            term.close()
    print("pty: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
