# joinery build. `make demo` and `make test` are the two commands a new user
# needs: both install missing Debian packages first (scripts/install-deps.sh).
#
# Layout: every .c under engine/ and catalog/ goes into build/libjoinery.a;
# cli/*.c links with it into build/joinery; each tests/unit/check_*.c is its own
# Check suite binary; tests/diff and bench programs link the library too.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Werror
CPPFLAGS += -D_GNU_SOURCE -I.
CFLAGS  += $(OPT) $(WARN) $(EXTRA_CFLAGS)
LDLIBS  += -lxxhash -llmdb -lrdkafka -lpthread -lm

ifeq ($(EDITLINE),1)
  LINE_EDITING = edit
else
  LINE_EDITING = $(shell pkg-config --exists readline 2>/dev/null && echo readline || \
                   (test -f /usr/include/readline/readline.h && echo readline) || echo edit)
endif
ifeq ($(LINE_EDITING),readline)
  CLI_CPPFLAGS = -DJOINERY_USE_READLINE
  CLI_LIBS     = -lreadline
else
  CLI_CPPFLAGS = -DJOINERY_USE_EDITLINE
  CLI_LIBS     = -ledit
endif

CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm)

LIB_SRC  = $(sort $(shell find engine catalog -name '*.c'))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC  = $(sort $(wildcard cli/*.c))
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC = $(sort $(wildcard tests/unit/check_*.c))
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC = $(sort $(wildcard tests/diff/*.c bench/*.c))
TOOL_BIN = $(patsubst %.c,$(BUILD)/tools/%,$(notdir $(TOOL_SRC)))
DEPS     = $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

.PHONY: all deps demo test unit sqltest clitest difftest asan bench nexmark format clean tools

all: $(BUILD)/joinery tools $(BUILD)/kafka-mock

tools: $(TOOL_BIN) $(UNIT_BIN)

deps:
	@scripts/install-deps.sh

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/cli/%.o: cli/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CLI_CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libjoinery.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/joinery: $(CLI_OBJ) $(BUILD)/libjoinery.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libjoinery.a $(CLI_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libjoinery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libjoinery.a $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tools/%: tests/diff/%.c $(BUILD)/libjoinery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libjoinery.a -lsqlite3 $(LDLIBS)

$(BUILD)/tools/%: bench/%.c $(BUILD)/libjoinery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libjoinery.a -lsqlite3 $(LDLIBS)

# kafka-mock: librdkafka's mock cluster for trying and testing the kafka connectors
$(BUILD)/kafka-mock: tools/kafka_mock.c $(BUILD)/libjoinery.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS)

demo: deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/joinery -f sample-data/demo.sql

test: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-tests.sh $(BUILD)

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" all
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 scripts/run-tests.sh build-asan

bench: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-bench.sh $(BUILD)

# Nexmark q0-q23 (bench/nexmark/): NEXMARK_EVENTS events a query, parallelism 1 and 2
nexmark: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-nexmark.sh $(BUILD)

format:
	clang-format -i $$(find cli engine catalog tests bench -name '*.[ch]')

clean:
	rm -rf build build-asan

-include $(DEPS)
