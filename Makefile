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
CPPFLAGS += -D_GNU_SOURCE -I. -I$(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql) \
            -I/usr/include/mariadb
CFLAGS  += $(OPT) $(WARN) $(EXTRA_CFLAGS)
LDLIBS  += -lxxhash -llmdb -lrdkafka -lpq -lmariadb -lhiredis -lpthread -lm

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

# The wrapper targets (demo, test, asan, bench, nexmark, fuzz) build with every core unless
# the caller gave -j: a fresh `make test` builds joinery, its tools and the fuzz harnesses.
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_JOBS  = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(JOBS))

# Fuzzing (tests/fuzz/README.md): one libFuzzer target a name; the same
# harnesses linked with tests/fuzz/replay_main.c replay tests/fuzz/regressions
# in every build, with any compiler.
FUZZ_NAMES      = statement split format_json format_csv format_raw format_debezium_json \
                  format_canal_json
FUZZ_BUILD     ?= build-fuzz
FUZZ_SECONDS   ?= 600
FUZZ_GENERATOR_SECONDS ?= 180
FUZZ_COMMON     = tests/fuzz/fuzz_prelude.c
FUZZ_REPLAY_BIN = $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)
FUZZ_BIN        = $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
# the harness source and its defines for a name
fuzz_source  = $(if $(filter format_%,$(1)),tests/fuzz/fuzz_format.c,tests/fuzz/fuzz_$(1).c)
fuzz_defines = $(if $(filter format_%,$(1)),-DFUZZ_FORMAT=FORMAT_KIND_$(shell echo $(1:format_%=%) | tr a-z A-Z))

.PHONY: all deps demo test unit sqltest clitest difftest asan bench nexmark format clean tools udf \
        fuzz fuzz-build fuzz-targets

all: $(BUILD)/joinery tools $(BUILD)/kafka-mock udf

# user-defined C functions (engine/udf/joinery_udf.h): the sample (seed 004's table function)
# and the tests' functions, always into build/udf/ (the scripts name that path; a library
# needs no sanitizer to be loaded by the asan build)
UDF_DIR  = build/udf
UDF_LIBS = $(UDF_DIR)/libjoinery_cdn_log_udf.so $(UDF_DIR)/libjoinery_test_udf.so
udf: $(UDF_LIBS)

$(UDF_DIR)/libjoinery_cdn_log_udf.so: sample-data/udf/query_ck_awscdn_cf_log_tudf.c \
	  engine/udf/joinery_udf.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(OPT) $(WARN) -shared -fPIC -o $@ $< -lpq

$(UDF_DIR)/libjoinery_test_udf.so: tests/udf/test_udfs.c engine/udf/joinery_udf.h
	@mkdir -p $(dir $@)
	$(CC) -I. $(OPT) $(WARN) -shared -fPIC -o $@ $<

tools: $(TOOL_BIN) $(UNIT_BIN) $(FUZZ_REPLAY_BIN) $(BUILD)/tools/statement_generator

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

$(BUILD)/fuzz/replay_%: tests/fuzz/*.c tests/fuzz/*.h $(BUILD)/libjoinery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call fuzz_defines,$*) -o $@ $(call fuzz_source,$*) \
	  tests/fuzz/replay_main.c $(FUZZ_COMMON) $(BUILD)/libjoinery.a $(LDLIBS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/*.c tests/fuzz/*.h $(BUILD)/libjoinery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer $(call fuzz_defines,$*) -o $@ \
	  $(call fuzz_source,$*) $(FUZZ_COMMON) $(BUILD)/libjoinery.a $(LDLIBS)

$(BUILD)/tools/statement_generator: tests/fuzz/statement_generator.c $(FUZZ_COMMON) \
	  tests/fuzz/fuzz_prelude.h $(BUILD)/libjoinery.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tests/fuzz/statement_generator.c $(FUZZ_COMMON) \
	  $(BUILD)/libjoinery.a $(LDLIBS)

# the SQL dictionary: every keyword of the lexer, then tests/fuzz/sql_tokens.dict
$(BUILD)/fuzz/sql.dict: engine/sql/lexer.h tests/fuzz/sql_tokens.dict
	@mkdir -p $(dir $@)
	sed -n 's/^ *X(\([A-Z_]*\), .*/"\1"/p' engine/sql/lexer.h >$@
	grep -v '^#' tests/fuzz/sql_tokens.dict >>$@

fuzz-targets: $(FUZZ_BIN) $(BUILD)/tools/statement_generator $(BUILD)/fuzz/sql.dict

# clang with libFuzzer, ASan and UBSan, in $(FUZZ_BUILD)/
fuzz-build:
	@$(MAKE) --no-print-directory $(BUILD_JOBS) BUILD=$(FUZZ_BUILD) CC=clang \
	  OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" fuzz-targets

# FUZZ_SECONDS CPU seconds a target (default 600: ten CPU-minutes), then the statement
# generator for FUZZ_GENERATOR_SECONDS; findings go to $(FUZZ_BUILD)/findings/
fuzz: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_GENERATOR_SECONDS=$(FUZZ_GENERATOR_SECONDS) \
	  scripts/run-fuzz.sh $(FUZZ_BUILD)

# kafka-mock: librdkafka's mock cluster for trying and testing the kafka connectors
$(BUILD)/kafka-mock: tools/kafka_mock.c $(BUILD)/libjoinery.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDLIBS)

demo: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	$(BUILD)/joinery -f sample-data/demo.sql

test: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	@if command -v clang >/dev/null; then $(MAKE) --no-print-directory $(BUILD_JOBS) fuzz-build; fi
	@FUZZ_BUILD=$(FUZZ_BUILD) scripts/run-tests.sh $(BUILD)

asan: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" all
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 scripts/run-tests.sh build-asan

bench: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	@scripts/run-bench.sh $(BUILD)

# Nexmark q0-q23 (bench/nexmark/): NEXMARK_EVENTS events a query, parallelism 1 and 2
nexmark: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	@scripts/run-nexmark.sh $(BUILD)

format:
	clang-format -i $$(find cli engine catalog tests bench -name '*.[ch]')

clean:
	rm -rf build build-asan build-fuzz

-include $(DEPS)
