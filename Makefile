# umpire: one non-recursive Makefile.
#
#   make run     install what is missing, build, serve on 127.0.0.1:8080
#   make test    install what is missing, build, run every test, lint the spec
#   make tour    the README's five-minute tour, word for word (tests/tour.sh)
#   make durability  kill -9 under load loses nothing acknowledged
#   make test-pg the PostgreSQL store's tests (tests/pg/run.sh)
#   make asan    the test suite under AddressSanitizer + UBSan
#   make bench   load test against a release build (see bench/README.md)
#   make bench-cost, bench-scale, bench-cores   instructions per combat,
#                reads at two campaign sizes, throughput by threads
#   make bench-read-cost  instructions of a history page and a feed page
#   make bench-profile  where the CPU time goes on this CPU (perf, under wrk)
#   make bench-pg  combats/s on PostgreSQL by instances, beside SQLite
#   make bench-odds  time and peak memory of typical odds requests
#   make valgrind, format, clean
#
# Quiet unless V=1.  Warnings are errors in CI (CI=true) or with WERROR=1.

BUILD   ?= build
CC      ?= cc
HOSTCC  ?= cc
PKGS    := libmicrohttpd jansson sqlite3 libpq libsodium libcrypto libcurl libzstd
ARGS    ?=

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wpointer-arith -Wvla
ifneq ($(filter true 1,$(CI) $(WERROR)),)
WARN += -Werror
endif

OPT ?= -O2 -g
ifeq ($(SAN),1)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
       -fno-sanitize-recover=undefined
SANLD := -fsanitize=address,undefined
endif

# The server's allocator: mimalloc (Debian's libmimalloc-dev), which takes
# the place of malloc and free for every library the server uses.  A
# request allocates and frees a few hundred small blocks (jansson's values
# above all); mimalloc's per-thread free lists serve them in far fewer
# instructions than glibc's bins (bench/README.md, "mimalloc").  Never
# under the sanitizers, which bring their own (whatever the command line
# says); ALLOC_LIBS= builds without.  The start-up log names the allocator
# that serves malloc (server/main.c: mimalloc where the -D below says it
# is linked).
ifeq ($(SAN),1)
override ALLOC_LIBS :=
else
# Kept in the link although nothing calls it by name (--no-as-needed):
# its malloc and free take the place of the C library's.
ALLOC_LIBS ?= -Wl,--push-state,--no-as-needed -lmimalloc -Wl,--pop-state
endif
ALLOC_CFLAGS = $(if $(findstring mimalloc,$(ALLOC_LIBS)),-DUMPIRE_MIMALLOC)
# The allocator the build folder's programs were made with: main.o, the
# server and bench-bare are made again when it changes (make ALLOC_LIBS=
# after a default build), rather than left as they were or linked
# without what main.o calls.
ALLOC_STAMP := $(BUILD)/.alloc
.PHONY: FORCE
$(ALLOC_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(ALLOC_LIBS)' | cmp -s - $@ || echo '$(ALLOC_LIBS)' >$@

# Expanded when a recipe runs, i.e. after the deps step installed pkg-config.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -lpthread -lm
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS   = $(shell pkg-config --libs check)

# server/ is grouped in folders (README, "A tour of the source"); every
# folder is on the include path, so a header is named by its file alone.
SERVER_DIRS := $(sort $(dir $(shell find server -name '*.[ch]')))
TEST_DIRS   := $(sort $(dir $(shell find tests -name '*.[ch]')))
CPPFLAGS := -D_DEFAULT_SOURCE -Icore -Idb $(patsubst %/,-I%,$(SERVER_DIRS))
CFLAGS_ALL = -std=c11 $(WARN) $(OPT) $(CPPFLAGS) $(PKG_CFLAGS)

CORE_SRC   := $(wildcard core/*.c)
DB_SRC     := $(wildcard db/*.c)
SERVER_SRC := $(filter-out server/main.c,$(shell find server -name '*.c'))
TEST_SRC   := $(shell find tests -name '*.c')
LIB_SRC    := $(CORE_SRC) $(DB_SRC) $(SERVER_SRC)

# The browser console (console/, docs/console.md) is built into the
# server: tools/embed.c writes its files into a C table.  The folders are
# prerequisites too, so adding or removing a file regenerates it.  Markdown
# files there are notes for its authors, not served.
CONSOLE_FILES := $(filter-out %.md,\
    $(wildcard console console/* console/*/* console/*/*/*))
CONSOLE_OBJ   := $(BUILD)/gen/console_assets.o
LIB_OBJ    := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CONSOLE_OBJ)
# The standalone verifier (verifier/README.md) uses none of the server's
# code or crypto library: its own SHA-256, HMAC and ChaCha20, and jansson.
VERIFY_SRC := $(filter-out verifier/main.c,$(wildcard verifier/*.c))
VERIFY_OBJ := $(VERIFY_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ   := $(BUILD)/server/main.o
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o)
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all run test test-pg tour durability check-tests lint-spec asan valgrind bench \
        bench-discord bench-cost bench-read-cost bench-profile bench-scale bench-cores bench-pg bench-odds format \
        clean deps

all: $(BUILD)/umpire $(BUILD)/umpire-verify

deps: $(DEPS_STAMP)
$(DEPS_STAMP): deploy/install-deps.sh
	$(Q)./deploy/install-deps.sh
	$(Q)mkdir -p $(@D) && touch $@

$(BUILD)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(if $(filter tests/%,$<),$(patsubst %/,-I%,$(TEST_DIRS)) -Iverifier $(CHECK_CFLAGS)) -MMD -MP -c $< -o $@

# Runs on the build machine: no sanitizers, no libraries.
$(BUILD)/tools/embed: tools/embed.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  HOSTCC  $<")
	$(Q)$(HOSTCC) -std=c11 $(WARN) -O2 -D_DEFAULT_SOURCE -o $@ $<

$(BUILD)/gen/console_assets.c: $(BUILD)/tools/embed $(CONSOLE_FILES)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  EMBED   console/")
	$(Q)$(BUILD)/tools/embed $@ console $(filter-out $<,$^)

$(CONSOLE_OBJ): $(BUILD)/gen/console_assets.c | $(DEPS_STAMP)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(MAIN_OBJ): CPPFLAGS += $(ALLOC_CFLAGS)
$(MAIN_OBJ): $(ALLOC_STAMP)

$(BUILD)/umpire: $(LIB_OBJ) $(MAIN_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SANLD) -o $@ $^ $(ALLOC_LIBS) $(PKG_LIBS)

$(BUILD)/umpire-verify: $(VERIFY_OBJ) $(BUILD)/verifier/main.o
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SANLD) -o $@ $^ $(shell pkg-config --libs jansson)

$(BUILD)/umpire-tests: $(LIB_OBJ) $(VERIFY_OBJ) $(TEST_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SANLD) -o $@ $^ $(PKG_LIBS) $(CHECK_LIBS)


run: all
	$(Q)mkdir -p data
	./$(BUILD)/umpire $(ARGS)

# CK_FORK=no keeps one process per suite so ASan sees everything; the
# runner sets its own defaults (see tests/run_tests.c).
test: $(BUILD)/umpire-tests $(BUILD)/umpire $(BUILD)/umpire-verify
	$(Q)UMPIRE_TEST_VECTORS=tests/vectors \
	    UMPIRE_VERIFY_BIN=$(BUILD)/umpire-verify ./$(BUILD)/umpire-tests
	$(Q)./tests/browser/run.sh $(BUILD)
	$(Q)./tests/discord/run.sh $(BUILD)
	$(Q)$(MAKE) --no-print-directory tour durability test-pg lint-spec

# The PostgreSQL store (tests/pg/run.sh): a throw-away cluster, the API
# suites on it, two instances racing on one campaign, an SQLite database
# copied in, and a pg_auto_failover formation's primary killed under load
# (UMPIRE_TEST_FAILOVER=0 leaves that out).
test-pg: $(BUILD)/umpire-tests $(BUILD)/umpire $(BUILD)/umpire-verify
	$(Q)./deploy/install-deps.sh --pg || \
	    echo "PostgreSQL's packages could not be installed" >&2
	$(Q)./tests/pg/run.sh $(BUILD)

# The README's tour, run word for word against a fresh server in a scratch
# directory (it listens on 127.0.0.1:8080, as the tour says).
tour: $(BUILD)/umpire $(BUILD)/umpire-verify
	$(Q)./deploy/install-deps.sh --tour
	$(Q)./tests/tour.sh $(BUILD)

# kill -9 under load loses no combat the server acknowledged: three kills
# of a fresh server under concurrent combat POSTs, each restart checking
# every 201 so far (tests/durability.sh; curl and jq, as the tour).
durability: $(BUILD)/umpire
	$(Q)./deploy/install-deps.sh --tour
	$(Q)./tests/durability.sh $(BUILD)

lint-spec:
	$(Q)./tests/lint_spec.sh

asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan SAN=1 \
	    build/asan/umpire-tests build/asan/umpire build/asan/umpire-verify
	$(Q)ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    UMPIRE_TEST_VECTORS=tests/vectors \
	    UMPIRE_VERIFY_BIN=build/asan/umpire-verify ./build/asan/umpire-tests

valgrind: $(BUILD)/umpire-tests
	$(Q)command -v valgrind >/dev/null || ./deploy/install-deps.sh --valgrind
	$(Q)CK_FORK=no UMPIRE_TEST_VECTORS=tests/vectors valgrind \
	    --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
	    ./$(BUILD)/umpire-tests

bench: $(BUILD)/umpire $(BUILD)/bench-bare
	$(Q)./deploy/install-deps.sh --bench
	$(Q)./bench/run.sh $(BUILD)

# Instructions per combat under callgrind against issue 17's targets;
# read routes against campaign size; throughput against worker threads
# (bench/README.md).
bench-cost: $(BUILD)/umpire
	$(Q)./deploy/install-deps.sh --bench
	$(Q)command -v valgrind >/dev/null || ./deploy/install-deps.sh --valgrind
	$(Q)./bench/callgrind.sh $(BUILD)

bench-scale: $(BUILD)/umpire
	$(Q)./deploy/install-deps.sh --bench
	$(Q)./bench/scale.sh $(BUILD)

bench-read-cost: $(BUILD)/umpire
	$(Q)./deploy/install-deps.sh --bench
	$(Q)command -v valgrind >/dev/null || ./deploy/install-deps.sh --valgrind
	$(Q)./bench/read-cost.sh $(BUILD)

bench-cores: $(BUILD)/umpire $(BUILD)/bench-bare
	$(Q)./deploy/install-deps.sh --bench
	$(Q)./bench/cores.sh $(BUILD)

# The same load under perf: each thread's CPU time by library and by system
# call, on the CPU itself (BENCH_PROFILE=oneoff, campaign or bare).
bench-profile: $(BUILD)/umpire $(BUILD)/bench-bare
	$(Q)./deploy/install-deps.sh --bench
	$(Q)./bench/profile.sh $(BUILD)

# Combats/s on PostgreSQL with 1, 2 and 4 instances, beside SQLite, in one
# run (bench/pg.sh: a throw-away cluster of its own).
bench-pg: $(BUILD)/umpire
	$(Q)./deploy/install-deps.sh --bench
	$(Q)./deploy/install-deps.sh --pg
	$(Q)./bench/pg.sh $(BUILD)

$(BUILD)/bench-bare: bench/bare.c server/http/http_listen.c server/http/http.h \
		server/http/http_listen.h $(ALLOC_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ bench/bare.c server/http/http_listen.c \
	    $(ALLOC_LIBS) $(PKG_LIBS)

# The reply time of each Discord command (bench/README.md, "Discord").
bench-discord: $(BUILD)/bench-discord
	$(Q)./$(BUILD)/bench-discord $(N)

$(BUILD)/bench-discord: bench/discord.c $(LIB_OBJ) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_OBJ) $(PKG_LIBS)

# The time and peak memory of typical odds requests (bench/README.md,
# "Odds"): N runs each, 5 unless said.
bench-odds: $(BUILD)/bench-odds
	$(Q)./$(BUILD)/bench-odds $(N)

$(BUILD)/bench-odds: bench/odds.c $(LIB_OBJ) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LIB_OBJ) $(PKG_LIBS)

# make fuzz: libFuzzer over the request parsers, the tables, the report
# renderers and the router, FUZZ_SECONDS per target (fuzz/README.md); not
# part of `make test`.  Its own build in build/fuzz, every object compiled
# by clang with the fuzzer's coverage, ASan and UBSan; crashes are kept in
# build/fuzz/artifacts.  router.o is left out of the link: fuzz_router.c
# compiles router.c itself, to reach its static matching.
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_TARGETS := requests documents
FUZZ_OPT     := -O1 -g -fno-omit-frame-pointer \
                -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined
.PHONY: fuzz
fuzz:
	$(Q)./deploy/install-deps.sh --fuzz
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang \
	    OPT='$(FUZZ_OPT)' $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) ./fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

$(BUILD)/fuzz-%: $(BUILD)/fuzz/fuzz_%.o $(BUILD)/fuzz/fuzz.o \
                 $(BUILD)/fuzz/fuzz_router.o $(LIB_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -fsanitize=fuzzer,address,undefined -o $@ \
	    $(filter-out $(BUILD)/server/http/router.o,$^) $(PKG_LIBS)

.PRECIOUS: $(BUILD)/fuzz/%.o
-include $(wildcard $(BUILD)/fuzz/*.d)

format:
	clang-format -i core/*.[ch] db/*.[ch] $(shell find server tests -name '*.[ch]') \
	    bench/*.c verifier/*.[ch] tools/*.c

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(VERIFY_OBJ:.o=.d)
