# SPDX-License-Identifier: GPL-2.0
#
# memfilter top-level Makefile.
#
#   make             build memfilter.ko against the running kernel (KDIR=...)
#   make check       every test: static checks, native tests, build matrix,
#                    KUnit + selftests in QEMU guests (installs what it needs)
#   make demo        boot a guest with the module and show it working
#   make vm-shell    boot the debug test kernel with the module, get a shell
#   make native-test the shared code's native tests (ASan + UBSan)
#   make guest       the static userspace binaries that run in guests

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= build
CC ?= gcc

# The kernel's kselftest harness, from Debian's linux-source (cached).
KSELFTEST = $(shell scripts/kselftest-headers.sh)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
CPPFLAGS_MF := -D_GNU_SOURCE -Icore -Iuapi -Ilib
# Test sources use the kselftest harness, which is not -Wextra clean.
TEST_WARN := -Wall -Werror -Wno-sign-compare

CORE_SRCS := $(wildcard core/*.c)
# SIMD paths are built only for their architecture (core/*_avx2.c: x86-64).
ifneq ($(shell $(CC) -dumpmachine | cut -d- -f1),x86_64)
CORE_SRCS := $(filter-out core/%_avx2.c,$(CORE_SRCS))
endif
CORE_HDRS := $(wildcard core/*.h)
LIB_SRCS := lib/libmemfilter.c lib/offline.c
LIB_HDRS := $(wildcard lib/*.h uapi/linux/*.h) $(CORE_HDRS)
# libmemfilter's objects in directory $(1): its own files and core/'s
# (offline filters and images run the module's code).
lib_objs = $(patsubst lib/%.c,$(1)/%.o,$(LIB_SRCS)) \
	$(patsubst core/%.c,$(1)/core-%.o,$(CORE_SRCS))
GUEST_LIB_OBJS := $(call lib_objs,$(BUILD)/guest/obj)

NATIVE_TESTS := $(patsubst tests/native/%.c,$(BUILD)/native/%,\
		$(wildcard tests/native/*_test.c))
GUEST_TESTS := $(patsubst tests/%.c,$(BUILD)/guest/bin/%,\
		$(wildcard tests/*_test.c))
GUEST_BINS := $(GUEST_TESTS) $(BUILD)/guest/bin/memfilterctl

.PHONY: all modules clean check demo vm-shell native-test guest deps
.SECONDARY:

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -rf $(BUILD)

deps:
	scripts/deps.sh

# --- userspace builds of the shared code ------------------------------------
$(BUILD)/native/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -O1 -g $(WARN) $(SAN) -c -o $@ $<

$(BUILD)/native/%_test: tests/native/%_test.c \
		$(patsubst core/%.c,$(BUILD)/native/core-%.o,$(CORE_SRCS))
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -O1 -g $(TEST_WARN) $(SAN) \
		-o $@ $^ -lxxhash

# image_test also tests libmemfilter's offline filters and images.
$(BUILD)/native/lib-%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -O1 -g $(WARN) $(SAN) -c -o $@ $<

$(BUILD)/native/image_test: $(BUILD)/native/lib-offline.o \
	$(BUILD)/native/lib-libmemfilter.o

native-test: $(NATIVE_TESTS)
	@rc=0; for t in $^; do $$t || rc=1; done; exit $$rc

# --- static binaries for the guests -----------------------------------------
$(BUILD)/guest/obj/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -O2 $(WARN) -c -o $@ $<

$(BUILD)/guest/obj/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -O2 $(WARN) -c -o $@ $<

$(BUILD)/guest/obj/core-%_avx2.o: core/%_avx2.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -O2 -mavx2 $(WARN) -c -o $@ $<

$(BUILD)/guest/bin/%_test: tests/%_test.c $(GUEST_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -static -O2 $(TEST_WARN) \
		-o $@ $< $(GUEST_LIB_OBJS) -lpthread

# memfilterctl: every tools/*.c is one part of it.
CTL_SRCS := $(wildcard tools/*.c)
CTL_HDRS := $(wildcard tools/*.h)
$(BUILD)/guest/bin/memfilterctl: $(CTL_SRCS) $(CTL_HDRS) $(GUEST_LIB_OBJS) \
		$(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -static -O2 $(WARN) -o $@ $(CTL_SRCS) \
		$(GUEST_LIB_OBJS)

# memfilterctl with ASan + UBSan: tests/native/cli_test runs the offline
# commands of tests/cli_test.sh with it on the host.
$(BUILD)/native/memfilterctl: $(CTL_SRCS) $(CTL_HDRS) \
		$(patsubst lib/%.c,$(BUILD)/native/lib-%.o,$(LIB_SRCS)) \
		$(patsubst core/%.c,$(BUILD)/native/core-%.o,$(CORE_SRCS))
	$(CC) $(CPPFLAGS_MF) -O1 -g $(WARN) $(SAN) -o $@ $(CTL_SRCS) \
		$(filter %.o,$^)

$(BUILD)/native/cli_test: | $(BUILD)/native/memfilterctl

guest: $(GUEST_BINS)

# --- the two commands --------------------------------------------------------
check:
	scripts/check.sh

demo:
	scripts/demo.sh

vm-shell:
	scripts/vm-shell.sh

# --- the Bloom filter's AVX2 paths and benchmark -----------------------------
$(BUILD)/native/core-%_avx2.o: core/%_avx2.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -O1 -g -mavx2 $(WARN) $(SAN) -c -o $@ $<

core/bloom_model.h: scripts/gen-bloom-model.py
	scripts/gen-bloom-model.py > $@.tmp && mv $@.tmp $@

BENCH_CFLAGS := $(CPPFLAGS_MF) -O3 -march=native -g
BENCH_CORE := core/hash.c core/bloom.c core/bloom_avx2.c core/cuckoo.c
# The callgrind build for instructions per key: valgrind 3.19 does not
# decode AVX-512, which -march=native may emit on this host; x86-64-v3 is
# AVX2 (what the module's SIMD sections use).
BENCH_V3 := -O3 -march=x86-64-v3 -g

$(BUILD)/bench/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $(WARN) -c -o $@ $<

$(BUILD)/bench/bloom_bench_mf.o: bench/bloom_bench_mf.c bench/bloom_bench.h \
		$(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -c -o $@ $<

$(BUILD)/bench-v3/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) $(BENCH_V3) $(WARN) -c -o $@ $<

$(BUILD)/bench-v3/bloom_bench_mf.o: bench/bloom_bench_mf.c \
		bench/bloom_bench.h $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) $(BENCH_V3) -Wall -Werror -c -o $@ $<

# fastfilter_cpp (header-only) as a peer, from a checkout the user names:
#   make bench FASTFILTER_DIR=~/src/fastfilter_cpp
# never vendored; without it the benchmark prints that its rows are skipped.
FASTFILTER_DIR ?=
BENCH_FF := $(if $(FASTFILTER_DIR),-DFASTFILTER -fno-strict-aliasing \
	-I$(FASTFILTER_DIR)/src -I$(FASTFILTER_DIR)/src/bloom \
	-I$(FASTFILTER_DIR)/src/cuckoo)

# C++ for RocksDB and fastfilter_cpp; core/ stays C (bloom_bench_mf.c).
# Rebuilt every time: FASTFILTER_DIR may change between calls.
.PHONY: bench/bloom_bench bench/bloom_bench_v3
bench/bloom_bench: bench/bloom_bench.cc bench/bloom_bench.h \
		$(BUILD)/bench/bloom_bench_mf.o \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(BENCH_CORE))
	$(CXX) -O3 -march=native -g -std=c++17 -Wall -Werror $(BENCH_FF) \
		-o $@ $(filter-out %.h,$^) -lrocksdb -lpthread

bench/bloom_bench_v3: bench/bloom_bench.cc bench/bloom_bench.h \
		$(BUILD)/bench-v3/bloom_bench_mf.o \
		$(patsubst core/%.c,$(BUILD)/bench-v3/core-%.o,$(BENCH_CORE))
	$(CXX) $(BENCH_V3) -std=c++17 -Wall -Werror $(BENCH_FF) \
		-o $@ $(filter-out %.h,$^) -lrocksdb -lpthread

# Timed runs (RUNS, default 3, medians) and a callgrind run for the
# instructions per key; BENCH_ARGS=--big adds 100M keys.
.PHONY: bench
bench: bench/bloom_bench bench/bloom_bench_v3
	@mkdir -p bench/results
	scripts/bloom-bench.sh bench/bloom_bench bench/results/bloom.md $(BENCH_ARGS)

# --- the cuckoo filter's benchmark -------------------------------------------
CUCKOO_BENCH_CORE := core/hash.c core/cuckoo.c core/bloom.c core/bloom_avx2.c

bench/cuckoo_bench: bench/cuckoo_bench.c \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(CUCKOO_BENCH_CORE))
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -o $@ $^

.PHONY: bench-cuckoo
bench-cuckoo: bench/cuckoo_bench
	@mkdir -p bench/results
	@mkdir -p $(BUILD)
	bench/cuckoo_bench > $(BUILD)/cuckoo.md.tmp
	cp $(BUILD)/cuckoo.md.tmp bench/results/cuckoo.md
	cat bench/results/cuckoo.md

bench: bench-cuckoo

# --- libmemfilter: shared (mf_* exported only), static, pkg-config ----------
LIB_VERSION := 1.0.0
LIB_SONAME := libmemfilter.so.1
PREFIX ?= /usr/local
LIB_CFLAGS := $(CPPFLAGS_MF) -std=gnu11 -O2 -g $(WARN) -fvisibility=hidden
LIB_OUT := $(addprefix $(BUILD)/lib/,$(LIB_SONAME) libmemfilter.so \
	libmemfilter.a libmemfilter.pc)

$(BUILD)/lib/pic/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/lib/static/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(BUILD)/lib/pic/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/lib/static/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(BUILD)/lib/pic/core-%_avx2.o: core/%_avx2.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -mavx2 -fPIC -c -o $@ $<

$(BUILD)/lib/static/core-%_avx2.o: core/%_avx2.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -mavx2 -c -o $@ $<

$(BUILD)/lib/$(LIB_SONAME): $(call lib_objs,$(BUILD)/lib/pic) \
		lib/libmemfilter.map
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=lib/libmemfilter.map -Wl,-z,defs \
		-o $@ $(filter %.o,$^)

$(BUILD)/lib/libmemfilter.so: $(BUILD)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $@

$(BUILD)/lib/libmemfilter.a: $(call lib_objs,$(BUILD)/lib/static)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/lib/libmemfilter.pc: lib/libmemfilter.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
		$< > $@

.PHONY: lib
lib: $(LIB_OUT)

# The CLI test is a POSIX sh script; installed without .sh so that guest
# scripts run it with the other */bin/*_test selftests.
$(BUILD)/guest/bin/cli_test: tests/cli_test.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

guest: $(BUILD)/guest/bin/cli_test

# --- the image loader's fuzzer (libFuzzer, clang) ----------------------------
FUZZ_CC ?= clang
FUZZ_FLAGS := $(CPPFLAGS_MF) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN)
FUZZ_OBJS := $(call lib_objs,$(BUILD)/fuzz) $(BUILD)/fuzz/image_fuzz.o

$(BUILD)/fuzz/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/core-%_avx2.o: core/%_avx2.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -mavx2 -c -o $@ $<

$(BUILD)/fuzz/image_fuzz.o: fuzz/image_fuzz.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/image_fuzz: $(FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^

# The seed corpus is committed; this regenerates it with memfilterctl build.
.PHONY: fuzz fuzz-smoke fuzz-corpus
fuzz-corpus: $(BUILD)/guest/bin/memfilterctl
	fuzz/gen-corpus.sh $< fuzz/corpus/image

# make fuzz: about 5 minutes; make fuzz-smoke: about 25 s (for make check).
# Both print TAP and exit non-zero when the fuzzer finds a crash.
fuzz: $(BUILD)/fuzz/image_fuzz
	scripts/fuzz.sh $< 300 fuzz/corpus/image $(BUILD)/fuzz/image

fuzz-smoke: $(BUILD)/fuzz/image_fuzz
	scripts/fuzz.sh $< 25 fuzz/corpus/image $(BUILD)/fuzz/image
