# SPDX-License-Identifier: GPL-2.0
#
# memfilter top-level Makefile.
#
#   make             memfilter.ko (when a kernel build tree exists at KDIR),
#                    libmemfilter (.so, .a, .pc) and memfilterctl
#   make install     library, headers, .pc, memfilterctl, man pages, udev
#                    rule, systemd units, bash completion (DESTDIR, PREFIX,
#                    LIBDIR, ...: see "Installing" below)
#   make modules_install  memfilter.ko into /lib/modules (KDIR=...)
#   make check       every test: static checks, native tests, build matrix,
#                    KUnit + selftests in QEMU guests (installs what it needs)
#   make demo        boot a guest with the module and show it working
#   make vm-shell    boot the debug test kernel with the module, get a shell
#   make vm-test T="cli_test ..."  only those guest selftests (KERNEL=...)
#   make native-test the shared code's native tests (ASan + UBSan)
#   make guest       the static userspace binaries that run in guests
#   make htmldocs    Documentation/ as HTML in build/htmldocs (sphinx -W)
#
# The user's CFLAGS, CPPFLAGS and LDFLAGS apply to what is installed.
# Warnings are errors only with WERROR=1 (make check sets it), so a newer
# compiler's new warning never breaks a user's build.

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= build
CC ?= gcc
CFLAGS ?= -O2 -g
WERROR ?= 0

# One version for the module, the library and memfilterctl.
VERSION := $(shell cat VERSION)
VERSION_H := $(BUILD)/include/memfilter_version.h

# The kernel's kselftest harness, from Debian's linux-source (cached).
KSELFTEST = $(shell tests/qemu/kselftest-headers.sh)

WARN := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
CPPFLAGS_MF := -D_GNU_SOURCE -Icore -Iuapi -Ilib -I$(BUILD)/include
# Test sources use the kselftest harness, which is not -Wextra clean.
TEST_WARN := -Wall $(if $(filter 1,$(WERROR)),-Werror) -Wno-sign-compare

CORE_SRCS := $(wildcard core/*.c)
# SIMD paths are built only for their architecture (core/*_avx2.c: x86-64).
ifneq ($(shell $(CC) -dumpmachine | cut -d- -f1),x86_64)
CORE_SRCS := $(filter-out core/%_avx2.c,$(CORE_SRCS))
endif
# core/ includes the uapi header too.
CORE_HDRS := $(wildcard core/*.h) uapi/linux/memfilter.h
LIB_SRCS := $(filter-out lib/%_test.c,$(wildcard lib/*.c))
LIB_HDRS := $(wildcard lib/*.h uapi/linux/*.h) $(CORE_HDRS) $(VERSION_H)
# The library's public header, and <memfilter.h>, its 1.0.0 name, which
# only includes it (installed through 1.x for source compatibility).
LIB_PUBLIC_H := lib/libmemfilter.h
LIB_COMPAT_H := lib/compat/memfilter.h
# memfilterctl: every tools/*.c is one part of it.
CTL_SRCS := $(wildcard tools/*.c)
CTL_HDRS := $(wildcard tools/*.h)
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

HAVE_KDIR := $(wildcard $(KDIR)/Makefile)

.PHONY: all modules modules_install clean check demo vm-shell vm-test native-test \
	guest deps memfilterctl install uninstall htmldocs
.SECONDARY:

all: $(if $(HAVE_KDIR),modules) lib memfilterctl
ifeq ($(HAVE_KDIR),)
	@echo "note: no kernel build tree at $(KDIR): memfilter.ko not built" \
		"(install linux-headers-$$(uname -r) or pass KDIR=)"
endif

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Distribution headers carry neither the kernel's signing key (kbuild's
# attempt to sign would only print SSL errors: the module stays unsigned
# unless KDIR has certs/signing_key.x509) nor System.map, so kbuild skips
# depmod: run it here (not for a DESTDIR: a package's postinst does).
modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) \
		$(if $(wildcard $(KDIR)/certs/signing_key.x509),,CONFIG_MODULE_SIG_ALL=) \
		modules_install
	$(if $(DESTDIR),,depmod -a $$(cat $(KDIR)/include/config/kernel.release))
	$(INSTALL) -d $(DESTDIR)$(MODULESLOADDIR)
	$(INSTALL) -m 644 systemd/memfilter.conf $(DESTDIR)$(MODULESLOADDIR)/

# kbuild's outputs in the directories Kbuild builds in (module/'s
# subdirectories among them), removed here too: kbuild's own clean needs
# a kernel tree at KDIR.
KBUILD_DIRS := . module $(patsubst %/,%,$(wildcard module/*/)) core kunit \
	bench/kunit
KBUILD_OUTPUTS := $(foreach d,$(KBUILD_DIRS),$(addprefix $(d)/,*.o \
	*.ko *.ko.* *.mod *.mod.c .*.cmd .*.d .*.tmp *.symtypes *.su *.dwo)) \
	modules.order Module.symvers .module-common.o .tmp_versions

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -rf $(BUILD) $(wildcard $(KBUILD_OUTPUTS))

deps:
	scripts/deps.sh

$(VERSION_H): VERSION
	@mkdir -p $(@D)
	scripts/gen-version-h.sh $< > $@.tmp && mv $@.tmp $@

# --- one set of rules per build of the shared code ---------------------------
# core/ (and lib/) are compiled six ways: native tests (ASan + UBSan), static
# guest binaries, libmemfilter's shared and static objects, the fuzzer and
# the benchmarks. core_rules DIR,CC,FLAGS,AVX2_FLAGS builds core/X.c into
# DIR/core-X.o (core/*_avx2.c adds AVX2_FLAGS); lib_rules DIR,PREFIX,CC,FLAGS
# builds lib/X.c into DIR/PREFIXX.o.
define core_rules
$(1)/core-%.o: core/%.c $$(CORE_HDRS)
	@mkdir -p $$(@D)
	$(2) $(3) -c -o $$@ $$<

$(1)/core-%_avx2.o: core/%_avx2.c $$(CORE_HDRS)
	@mkdir -p $$(@D)
	$(2) $(3) $(4) -c -o $$@ $$<
endef

define lib_rules
$(1)/$(2)%.o: lib/%.c $$(LIB_HDRS)
	@mkdir -p $$(@D)
	$(3) $(4) -c -o $$@ $$<
endef

NATIVE_FLAGS := $(CPPFLAGS_MF) -O1 -g $(WARN) $(SAN)
GUEST_FLAGS := $(CPPFLAGS_MF) -O2 $(WARN)
# libmemfilter is installed: the user's flags apply.
LIB_CFLAGS := $(CPPFLAGS_MF) $(CPPFLAGS) -std=gnu11 -fvisibility=hidden $(WARN) $(CFLAGS)
FUZZ_CC ?= clang
FUZZ_FLAGS := $(CPPFLAGS_MF) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN)
BENCH_CFLAGS := $(CPPFLAGS_MF) -O3 -march=native -g

$(eval $(call core_rules,$(BUILD)/native,$(CC),$(NATIVE_FLAGS),-mavx2))
$(eval $(call lib_rules,$(BUILD)/native,lib-,$(CC),$(NATIVE_FLAGS)))
$(eval $(call core_rules,$(BUILD)/guest/obj,$(CC),$(GUEST_FLAGS),-mavx2))
$(eval $(call lib_rules,$(BUILD)/guest/obj,,$(CC),$(GUEST_FLAGS)))
$(eval $(call core_rules,$(BUILD)/lib/pic,$(CC),$(LIB_CFLAGS) -fPIC,-mavx2))
$(eval $(call lib_rules,$(BUILD)/lib/pic,,$(CC),$(LIB_CFLAGS) -fPIC))
$(eval $(call core_rules,$(BUILD)/lib/static,$(CC),$(LIB_CFLAGS),-mavx2))
$(eval $(call lib_rules,$(BUILD)/lib/static,,$(CC),$(LIB_CFLAGS)))
$(eval $(call core_rules,$(BUILD)/fuzz,$(FUZZ_CC),$(FUZZ_FLAGS),-mavx2))
$(eval $(call lib_rules,$(BUILD)/fuzz,,$(FUZZ_CC),$(FUZZ_FLAGS)))
# -march=native already enables AVX2 where the benchmarks run.
$(eval $(call core_rules,$(BUILD)/bench,$(CC),$(BENCH_CFLAGS) $(WARN),))

# --- native tests -------------------------------------------------------------
define native_test_link
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) $(TEST_DEFS) -I$(KSELFTEST) -O1 -g $(TEST_WARN) \
		$(SAN) -o $@ $(filter-out %.h %.map,$^) -lxxhash $(TEST_LIBS)
endef

# Every header a test may include (core_test reads lib/types.h too).
$(BUILD)/native/%_test: tests/native/%_test.c tests/native/native_utils.h \
		$(patsubst core/%.c,$(BUILD)/native/core-%.o,$(CORE_SRCS)) \
		$(LIB_HDRS) | $(VERSION_H)
	$(native_test_link)

# image_test, count_test, grow_test, offline_window_test and prefix_test
# also test libmemfilter's offline filters; lib_compat_test its requests to
# old modules; create_opts_test every options field; lib_keys_test its
# single-key calls and offline test-and-add; offline_file_test images saved
# to and loaded from paths; lib_args_test every exported function's
# argument checks and strerror_test its messages, against the version
# script they read at run time.
$(BUILD)/native/image_test $(BUILD)/native/count_test $(BUILD)/native/grow_test \
	$(BUILD)/native/offline_window_test $(BUILD)/native/lib_compat_test \
	$(BUILD)/native/lib_args_test $(BUILD)/native/strerror_test \
	$(BUILD)/native/create_opts_test $(BUILD)/native/lib_keys_test \
	$(BUILD)/native/offline_file_test $(BUILD)/native/prefix_test: \
	$(patsubst lib/%.c,$(BUILD)/native/lib-%.o,$(LIB_SRCS))
# The published-shape prefix list (tests/prefix_list.h) is shared.
$(BUILD)/native/prefix_test: tests/prefix_list.h
$(BUILD)/native/lib_args_test $(BUILD)/native/strerror_test: \
	lib/libmemfilter.map
$(BUILD)/native/lib_args_test $(BUILD)/native/strerror_test \
	$(BUILD)/native/image_test: TEST_DEFS = -DMF_SRCDIR='"$(CURDIR)"'

# cuckoo_test again with every table's batch lookups on the ring of 64-bit
# bucket indexes, which only tables of over 2^32 buckets (16 GiB) take (the
# ring is core/cuckoo_batch.c's).
NATIVE_TESTS += $(BUILD)/native/cuckoo_ring64_test
$(BUILD)/native/ring64/core-cuckoo_batch.o: core/cuckoo_batch.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(NATIVE_FLAGS) -DMEMFILTER_CUCKOO_RING32_BUCKETS=0 -c -o $@ $<

$(BUILD)/native/cuckoo_ring64_test: tests/native/cuckoo_test.c \
		$(patsubst core/%.c,$(BUILD)/native/core-%.o,$(filter-out core/cuckoo_batch.c,$(CORE_SRCS))) \
		$(BUILD)/native/ring64/core-cuckoo_batch.o | $(VERSION_H)
	$(native_test_link)

native-test: $(NATIVE_TESTS)
	@rc=0; for t in $^; do $$t || rc=1; done; exit $$rc

# The native tests' names, one list for native-test and make check.
native-test-list:
	@echo $(notdir $(NATIVE_TESTS))

# --- static binaries for the guests -----------------------------------------
# Every selftest includes tests/memfilter_utils.h, its helpers (and the
# prefix list they probe).
$(BUILD)/guest/bin/%_test: tests/%_test.c tests/memfilter_utils.h \
		tests/prefix_list.h $(GUEST_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -static -O2 $(TEST_WARN) \
		-o $@ $< $(GUEST_LIB_OBJS) -lpthread

# Helpers of one area on top of memfilter_utils.h (as iommufd_utils.h
# serves iommufd's selftests): nf_test's packets, namespace and counter
# checks; the published-shape prefix list.
$(BUILD)/guest/bin/nf_test: tests/nf_utils.h tests/prefix_list.h

# The ioctl fuzzer: its main program and its parts in tests/ioctl_fuzz/.
IOCTL_FUZZ_SRCS := tests/ioctl_fuzz_test.c $(wildcard tests/ioctl_fuzz/*.c)

$(BUILD)/guest/bin/ioctl_fuzz_test: $(IOCTL_FUZZ_SRCS) tests/ioctl_fuzz/fuzz.h \
		tests/memfilter_utils.h tests/prefix_list.h $(GUEST_LIB_OBJS) \
		$(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -static -O2 $(TEST_WARN) \
		-o $@ $(IOCTL_FUZZ_SRCS) $(GUEST_LIB_OBJS) -lpthread

$(BUILD)/guest/bin/memfilterctl: $(CTL_SRCS) $(CTL_HDRS) $(GUEST_LIB_OBJS) \
		$(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_FLAGS) -static -o $@ $(CTL_SRCS) $(GUEST_LIB_OBJS) -lm

# memfilterctl with ASan + UBSan: tests/native/cli_test runs the offline
# commands of tests/cli_test.sh with it on the host.
$(BUILD)/native/memfilterctl: $(CTL_SRCS) $(CTL_HDRS) \
		$(patsubst lib/%.c,$(BUILD)/native/lib-%.o,$(LIB_SRCS)) \
		$(patsubst core/%.c,$(BUILD)/native/core-%.o,$(CORE_SRCS))
	$(CC) $(NATIVE_FLAGS) -o $@ $(CTL_SRCS) $(filter %.o,$^) -lm

$(BUILD)/native/cli_test: | $(BUILD)/native/memfilterctl

# cli_options_test reads memfilterctl's own option tables: the tools
# linked in, main() renamed.
$(BUILD)/native/cli-main.o: tools/main.c $(CTL_HDRS) $(LIB_HDRS) | $(VERSION_H)
	$(CC) $(NATIVE_FLAGS) -Dmain=memfilterctl_main -Wno-missing-prototypes \
		-c -o $@ $<

$(BUILD)/native/cli_options_test: $(filter-out tools/main.c,$(CTL_SRCS)) \
		$(CTL_HDRS) $(BUILD)/native/cli-main.o \
		$(patsubst lib/%.c,$(BUILD)/native/lib-%.o,$(LIB_SRCS))
$(BUILD)/native/cli_options_test: TEST_DEFS = -Itools
# The inline single-key query as userspace built for AVX2 compiles it.
$(BUILD)/native/probe_test: TEST_DEFS = -mavx2
$(BUILD)/native/cli_options_test: TEST_LIBS = -lm

guest: $(GUEST_BINS)

# --- the two commands --------------------------------------------------------
check:
	scripts/check.sh

demo:
	scripts/demo.sh

vm-shell:
	tests/qemu/vm-shell.sh

# make vm-test T="cli_test nf_test" [KERNEL=debug|kcsan|6.12|6.1]: only
# those guest selftests ("kunit": the KUnit suites) in one guest.
vm-test:
	tests/qemu/vm-test.sh

# --- the Bloom filter's benchmark ------------------------------------------
core/bloom_model.h: scripts/gen-bloom-model.py
	scripts/gen-bloom-model.py > $@.tmp && mv $@.tmp $@

BENCH_CORE := core/hash.c core/bloom.c core/bloom_batch.c core/bloom_avx2.c core/cuckoo.c \
	core/cuckoo_batch.c
# The callgrind build for instructions per key: valgrind 3.19 does not
# decode AVX-512, which -march=native may emit on this host; x86-64-v3 is
# AVX2 (what the module's SIMD sections use).
BENCH_V3 := -O3 -march=x86-64-v3 -g

$(BUILD)/bench/bloom_bench_mf.o: bench/bloom_bench_mf.c bench/bloom_bench.h \
		bench/line_probe.h $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -c -o $@ $<

# The module's single-key path as the kernel builds it (bloom_bench_kpath.c).
BENCH_KPATH := $(CPPFLAGS_MF) -O2 -march=x86-64 -mtune=generic -mno-sse -mno-mmx \
	-mno-sse2 -mno-avx -mno-red-zone -fno-tree-vectorize -fno-strict-aliasing \
	-DMEMFILTER_SIMD_CHEAP=0 -g -Wall -Werror
$(BUILD)/bench/bloom_bench_kpath.o $(BUILD)/bench-v3/bloom_bench_kpath.o: \
		bench/bloom_bench_kpath.c bench/bloom_bench.h $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(BENCH_KPATH) -c -o $@ $<

$(BUILD)/bench-v3/core-%.o: core/%.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) $(BENCH_V3) $(WARN) -c -o $@ $<

$(BUILD)/bench-v3/bloom_bench_mf.o: bench/bloom_bench_mf.c \
		bench/bloom_bench.h bench/line_probe.h $(CORE_HDRS)
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
bench/bloom_bench: bench/bloom_bench.cc bench/bloom_bench.h bench/bench_util.h \
		bench/ff_mfhash.h $(BUILD)/bench/bloom_bench_mf.o $(BUILD)/bench/bloom_bench_kpath.o \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(BENCH_CORE))
	$(CXX) -O3 -march=native -g -std=c++17 -Wall -Werror $(CPPFLAGS_MF) $(BENCH_FF) \
		-o $@ $(filter-out %.h,$^) -lrocksdb -lpthread

bench/bloom_bench_v3: bench/bloom_bench.cc bench/bloom_bench.h bench/bench_util.h \
		bench/ff_mfhash.h $(BUILD)/bench-v3/bloom_bench_mf.o $(BUILD)/bench-v3/bloom_bench_kpath.o \
		$(patsubst core/%.c,$(BUILD)/bench-v3/core-%.o,$(BENCH_CORE))
	$(CXX) $(BENCH_V3) -std=c++17 -Wall -Werror $(CPPFLAGS_MF) $(BENCH_FF) \
		-o $@ $(filter-out %.h,$^) -lrocksdb -lpthread

# Timed runs (RUNS, default 3, medians) and a callgrind run for the
# instructions per key; BENCH_ARGS=--big adds 100M keys. The reports go to
# $(BUILD)/bench-results/: bench/results/ holds the project's own runs with
# their analysis, which a run on another machine must not overwrite.
BENCH_OUT := $(BUILD)/bench-results
.PHONY: bench
bench: bench/bloom_bench bench/bloom_bench_v3
	@mkdir -p $(BENCH_OUT)
	bench/bloom-bench.sh bench/bloom_bench $(BENCH_OUT)/bloom.md $(BENCH_ARGS)
	@echo "report: $(BENCH_OUT)/bloom.md"

# README's results table, every figure in it, from one command
# (bench/bench-table.sh): RUNS (default 5) runs in turn of the Bloom
# layouts and cuckoo benches at 1M and 10M keys, the window, growing and
# BPF-map ones, pinned, medians (27 minutes on a loaded 2-vCPU host).
# The runs stay in $(BENCH_OUT)/table/; RAW=1 writes the table from them
# again; scripts/bench-table-test.sh (make check) runs it at QUICK=1.
BENCH_TABLE_PROGS := bench/bloom_bench bench/cuckoo_bench bench/window_bench \
	bench/grow_bench bench/bpf_key_bench
ifneq ($(filter bench-table,$(MAKECMDGOALS)),)
ifeq ($(FASTFILTER_DIR),)
$(error bench-table: set FASTFILTER_DIR to a fastfilter_cpp checkout: its filters are the peers)
endif
endif
.PHONY: bench-table
bench-table: $(BENCH_TABLE_PROGS)
	FASTFILTER_DIR=$(FASTFILTER_DIR) bench/bench-table.sh bench README.md $(BENCH_OUT)/table

# --- the cuckoo filter's benchmark -------------------------------------------
CUCKOO_BENCH_CORE := core/hash.c core/cuckoo.c core/cuckoo_batch.c core/bloom.c \
	core/bloom_batch.c core/bloom_avx2.c

# With FASTFILTER_DIR, fastfilter_cpp's Cuckoo12 as a peer and, fed memfilter's
# hash, as a reference row (cuckoo_bench_ff.cc, bench/ff_mfhash.h).
# Rebuilt every time: FASTFILTER_DIR may change between calls.
.PHONY: bench/cuckoo_bench
bench/cuckoo_bench: bench/cuckoo_bench.c bench/cuckoo_bench_ff.h bench/bench_util.h \
		bench/cuckoo_bench_ff.cc bench/ff_mfhash.h bench/line_probe.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(CUCKOO_BENCH_CORE))
	$(CC) $(BENCH_CFLAGS) -Wall -Werror $(if $(FASTFILTER_DIR),-DFASTFILTER) \
		-c -o $(BUILD)/bench/cuckoo_bench.o $<
	$(if $(FASTFILTER_DIR),$(CXX) -O3 -march=native -g -std=c++17 -Wall \
		-Werror $(CPPFLAGS_MF) $(BENCH_FF) -Ibench -c -o $(BUILD)/bench/cuckoo_bench_ff.o \
		bench/cuckoo_bench_ff.cc)
	$(if $(FASTFILTER_DIR),$(CXX),$(CC)) -o $@ $(BUILD)/bench/cuckoo_bench.o \
		$(if $(FASTFILTER_DIR),$(BUILD)/bench/cuckoo_bench_ff.o) \
		$(filter %.o,$^)

# The same at -march=x86-64-v3 for callgrind (instructions per key):
#   valgrind --tool=callgrind bench/cuckoo_bench_v3 --instr --sizes=1M
.PHONY: bench/cuckoo_bench_v3
bench/cuckoo_bench_v3: bench/cuckoo_bench.c bench/cuckoo_bench_ff.h bench/bench_util.h \
		bench/cuckoo_bench_ff.cc bench/ff_mfhash.h bench/line_probe.h \
		$(patsubst core/%.c,$(BUILD)/bench-v3/core-%.o,$(CUCKOO_BENCH_CORE))
	$(CC) $(CPPFLAGS_MF) $(BENCH_V3) -Wall -Werror $(if $(FASTFILTER_DIR),-DFASTFILTER) \
		-c -o $(BUILD)/bench-v3/cuckoo_bench.o $<
	$(if $(FASTFILTER_DIR),$(CXX) $(BENCH_V3) -std=c++17 -Wall \
		-Werror $(CPPFLAGS_MF) $(BENCH_FF) -Ibench -c -o $(BUILD)/bench-v3/cuckoo_bench_ff.o \
		bench/cuckoo_bench_ff.cc)
	$(if $(FASTFILTER_DIR),$(CXX),$(CC)) -o $@ $(BUILD)/bench-v3/cuckoo_bench.o \
		$(if $(FASTFILTER_DIR),$(BUILD)/bench-v3/cuckoo_bench_ff.o) \
		$(filter %.o,$^)

.PHONY: bench-cuckoo
bench-cuckoo: bench/cuckoo_bench
	@mkdir -p $(BENCH_OUT)
	bench/cuckoo_bench > $(BENCH_OUT)/cuckoo.md.tmp
	mv $(BENCH_OUT)/cuckoo.md.tmp $(BENCH_OUT)/cuckoo.md
	cat $(BENCH_OUT)/cuckoo.md
	@echo "report: $(BENCH_OUT)/cuckoo.md"

bench: bench-cuckoo

# --- the window filter's benchmark -------------------------------------------
# Every type: the single-key rows make filters through the type table.
WINDOW_BENCH_CORE := core/hash.c core/bloom.c core/bloom_batch.c core/bloom_avx2.c \
	core/filter_type.c core/cuckoo.c core/cuckoo_batch.c core/window.c \
	core/window_avx2.c core/grow.c

bench/window_bench: bench/window_bench.c bench/bench_util.h bench/bench_single.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(WINDOW_BENCH_CORE))
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -o $@ $(filter-out %.h,$^)

.PHONY: bench-window
bench-window: bench/window_bench
	bench/window_bench

# --- the growing filter's benchmark ------------------------------------------
GROW_BENCH_CORE := $(WINDOW_BENCH_CORE)

bench/grow_bench: bench/grow_bench.c bench/bench_util.h bench/bench_single.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(GROW_BENCH_CORE))
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -o $@ $(filter-out %.h,$^)

.PHONY: bench-grow
bench-grow: bench/grow_bench
	bench/grow_bench

# --- the key hash: XXH64 against XXH3 (bench/hash_bench.c) -------------------
HASH_BENCH_CORE := core/hash.c core/bloom.c core/bloom_batch.c core/bloom_avx2.c \
	core/filter_type.c core/cuckoo.c core/cuckoo_batch.c core/window.c \
	core/window_avx2.c core/grow.c

bench/hash_bench: bench/hash_bench.c bench/bench_util.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(HASH_BENCH_CORE))
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -o $@ $(filter-out %.h,$^)

# For callgrind (valgrind lacks AVX-512): as bloom_bench_v3.
bench/hash_bench_v3: bench/hash_bench.c bench/bench_util.h \
		$(patsubst core/%.c,$(BUILD)/bench-v3/core-%.o,$(HASH_BENCH_CORE))
	$(CC) $(CPPFLAGS_MF) $(BENCH_V3) -Wall -Werror -o $@ $(filter-out %.h,$^)

.PHONY: bench-hash
bench-hash: bench/hash_bench
	bench/hash_bench

# --- time per replace of a published name (in a stock 6.12 guest) ------------
$(BUILD)/bench/replace/replace_bench: bench/replace_bench.c uapi/linux/memfilter.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -static -O2 $(WARN) -o $@ $<

.PHONY: bench-replace
bench-replace: $(BUILD)/bench/replace/replace_bench
	@mkdir -p bench/results
	bench/replace-bench.sh $(BUILD)/bench/replace bench/results/replace.md

# --- offline filters (libmemfilter) before and after ---------------------------
# make bench-offline REVS="rev1 rev2 ...": bench/offline_bench.c against each
# revision's static library, alternating runs (N, RUNS, CPU: see the script).
REVS ?= HEAD
.PHONY: bench-offline
bench-offline:
	@mkdir -p bench/results
	bench/offline-bench.sh bench/results/offline.md $(REVS)

# --- the dedup target's CPU cost per block -----------------------------------
# Through the type table, as the target's calls.
DM_BENCH_CORE := $(WINDOW_BENCH_CORE)

bench/dm_bench: bench/dm_bench.c bench/bench_util.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(DM_BENCH_CORE))
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -o $@ $(filter-out %.h,$^)

.PHONY: bench-dm
bench-dm: bench/dm_bench
	bench/dm_bench

# --- libmemfilter: shared (lib/libmemfilter.map), static, pkg-config --------
LIB_SONAME := libmemfilter.so.1
LIB_REALNAME := libmemfilter.so.$(VERSION)
LIB_OUT := $(addprefix $(BUILD)/lib/,$(LIB_REALNAME) $(LIB_SONAME) \
	libmemfilter.so libmemfilter.a libmemfilter.pc)

# --- installation directories -----------------------------------------------
# PREFIX=/usr is a distribution's layout: the library goes to Debian's
# multiarch directory and the udev rule, systemd unit and modules-load.d
# file to /usr/lib. Any other prefix (default /usr/local) puts those three
# under /etc, where udev, systemd and modules-load read them.
PREFIX ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR ?= $(EXEC_PREFIX)/bin
LIBEXECDIR ?= $(EXEC_PREFIX)/libexec
INCLUDEDIR ?= $(PREFIX)/include
# The library's headers, <linux/memfilter.h> among them, in a directory of
# their own (no clash with linux-libc-dev); the .pc file's -I names it.
MFINCLUDEDIR = $(INCLUDEDIR)/memfilter
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ifeq ($(PREFIX),/usr)
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR ?= $(EXEC_PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
SYSTEM_DIR ?= /usr/lib
else
LIBDIR ?= $(EXEC_PREFIX)/lib
SYSTEM_DIR ?= /etc
endif
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
UDEVRULESDIR ?= $(SYSTEM_DIR)/udev/rules.d
SYSTEMDUNITDIR ?= $(SYSTEM_DIR)/systemd/system
MODULESLOADDIR ?= $(SYSTEM_DIR)/modules-load.d
SYSUSERSDIR ?= $(SYSTEM_DIR)/sysusers.d
DKMSDIR ?= /usr/src/memfilter-$(VERSION)
INSTALL ?= install

$(BUILD)/lib/$(LIB_REALNAME): $(call lib_objs,$(BUILD)/lib/pic) \
		lib/libmemfilter.map
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=lib/libmemfilter.map -Wl,-z,defs \
		$(LDFLAGS) -o $@ $(filter %.o,$^)

$(BUILD)/lib/$(LIB_SONAME): $(BUILD)/lib/$(LIB_REALNAME)
	ln -sf $(LIB_REALNAME) $@

$(BUILD)/lib/libmemfilter.so: $(BUILD)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $@

$(BUILD)/lib/libmemfilter.a: $(call lib_objs,$(BUILD)/lib/static)
	rm -f $@
	$(AR) rcs $@ $^

# Rewritten only when a directory or the version changes.
$(BUILD)/lib/libmemfilter.pc: lib/libmemfilter.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$< > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

.PHONY: lib FORCE
lib: $(LIB_OUT)

# memfilterctl, linked against the shared library twice: the in-tree copy
# (bin/) finds it in $(BUILD)/lib (RUNPATH $ORIGIN/../lib) and runs from
# the build tree; the installed copy (install/) has no RUNPATH.
CTL_OBJS := $(patsubst tools/%.c,$(BUILD)/ctl/%.o,$(CTL_SRCS))
$(BUILD)/ctl/%.o: tools/%.c $(CTL_HDRS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(BUILD)/bin/memfilterctl: $(CTL_OBJS) $(BUILD)/lib/libmemfilter.so
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN/../lib' -o $@ \
		$(CTL_OBJS) -L$(BUILD)/lib -lmemfilter -lm

$(BUILD)/install/memfilterctl: $(CTL_OBJS) $(BUILD)/lib/libmemfilter.so
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(LDFLAGS) -o $@ $(CTL_OBJS) -L$(BUILD)/lib \
		-lmemfilter -lm

memfilterctl: $(BUILD)/bin/memfilterctl $(BUILD)/install/memfilterctl

# memfilter-images.service and memfilter-refresh@.service run their
# helpers from LIBEXECDIR.
$(BUILD)/systemd/memfilter-images.service \
$(BUILD)/systemd/memfilter-refresh@.service: $(BUILD)/systemd/%: systemd/%.in \
		FORCE
	@mkdir -p $(@D)
	@sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|' -e 's|@BINDIR@|$(BINDIR)|' \
		$< > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# --- make install ------------------------------------------------------------
D := $(DESTDIR)
install: $(LIB_OUT) $(BUILD)/install/memfilterctl \
		$(BUILD)/systemd/memfilter-images.service \
		$(BUILD)/systemd/memfilter-refresh@.service
	$(INSTALL) -d $(D)$(BINDIR) $(D)$(LIBDIR) $(D)$(PKGCONFIGDIR) \
		$(D)$(MFINCLUDEDIR)/linux $(D)$(MANDIR)/man3 $(D)$(MANDIR)/man8 \
		$(D)$(UDEVRULESDIR) $(D)$(BASHCOMPDIR) \
		$(D)$(SYSTEMDUNITDIR) $(D)$(LIBEXECDIR) $(D)$(SYSUSERSDIR)
	$(INSTALL) -m 755 $(BUILD)/install/memfilterctl $(D)$(BINDIR)/
	$(INSTALL) -m 755 $(BUILD)/lib/$(LIB_REALNAME) $(D)$(LIBDIR)/
	ln -sf $(LIB_REALNAME) $(D)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(D)$(LIBDIR)/libmemfilter.so
	$(INSTALL) -m 644 $(BUILD)/lib/libmemfilter.a $(D)$(LIBDIR)/
	$(INSTALL) -m 644 $(BUILD)/lib/libmemfilter.pc $(D)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 $(LIB_PUBLIC_H) $(LIB_COMPAT_H) $(VERSION_H) \
		$(D)$(MFINCLUDEDIR)/
	$(INSTALL) -m 644 uapi/linux/memfilter.h $(D)$(MFINCLUDEDIR)/linux/
	$(INSTALL) -m 644 man/libmemfilter.3 $(D)$(MANDIR)/man3/
	$(INSTALL) -m 644 man/memfilterctl.8 $(D)$(MANDIR)/man8/
	$(INSTALL) -m 644 udev/70-memfilter.rules $(D)$(UDEVRULESDIR)/
	$(INSTALL) -m 644 systemd/memfilter.sysusers \
		$(D)$(SYSUSERSDIR)/memfilter.conf
	$(INSTALL) -m 644 $(BUILD)/systemd/memfilter-images.service \
		$(D)$(SYSTEMDUNITDIR)/
	$(INSTALL) -m 755 systemd/memfilter-images $(D)$(LIBEXECDIR)/
	$(INSTALL) -m 644 $(BUILD)/systemd/memfilter-refresh@.service \
		systemd/memfilter-refresh@.timer $(D)$(SYSTEMDUNITDIR)/
	$(INSTALL) -m 755 systemd/memfilter-refresh $(D)$(LIBEXECDIR)/
	$(INSTALL) -m 644 completion/memfilterctl.bash \
		$(D)$(BASHCOMPDIR)/memfilterctl
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

uninstall:
	rm -f $(D)$(BINDIR)/memfilterctl \
		$(addprefix $(D)$(LIBDIR)/,$(LIB_REALNAME) $(LIB_SONAME) \
			libmemfilter.so libmemfilter.a) \
		$(D)$(PKGCONFIGDIR)/libmemfilter.pc \
		$(D)$(MFINCLUDEDIR)/$(notdir $(LIB_PUBLIC_H)) \
		$(D)$(MFINCLUDEDIR)/$(notdir $(LIB_COMPAT_H)) \
		$(D)$(MFINCLUDEDIR)/$(notdir $(VERSION_H)) \
		$(D)$(MFINCLUDEDIR)/linux/memfilter.h \
		$(D)$(MANDIR)/man3/libmemfilter.3 \
		$(D)$(MANDIR)/man8/memfilterctl.8 \
		$(D)$(UDEVRULESDIR)/70-memfilter.rules \
		$(D)$(MODULESLOADDIR)/memfilter.conf \
		$(D)$(SYSUSERSDIR)/memfilter.conf \
		$(D)$(SYSTEMDUNITDIR)/memfilter-images.service \
		$(D)$(LIBEXECDIR)/memfilter-images \
		$(D)$(SYSTEMDUNITDIR)/memfilter-refresh@.service \
		$(D)$(SYSTEMDUNITDIR)/memfilter-refresh@.timer \
		$(D)$(LIBEXECDIR)/memfilter-refresh \
		$(D)$(BASHCOMPDIR)/memfilterctl
	@rmdir $(D)$(MFINCLUDEDIR)/linux $(D)$(MFINCLUDEDIR) 2>/dev/null || true

# --- DKMS: the module's sources in /usr/src/memfilter-VERSION ---------------
# What Kbuild builds: every object it names, as its .c file, with the
# headers of those directories and include/. A missing file fails.
DKMS_OBJS = $(shell sed 's/\#.*//' Kbuild | \
	grep -Eo '\b[a-z]+(/[a-z]+)?/[a-z0-9_]+\.o\b' | sort -u)
DKMS_SRCS = Kbuild Kconfig VERSION dkms.conf $(DKMS_OBJS:.o=.c) \
	$(wildcard $(addsuffix *.h,$(sort $(dir $(DKMS_OBJS)))) \
		include/linux/*.h uapi/linux/*.h COPYING LICENSES/*/*)

.PHONY: dkms-src
dkms-src:
	@grep -qx 'PACKAGE_VERSION="$(VERSION)"' dkms.conf || \
		{ echo "dkms.conf: PACKAGE_VERSION is not $(VERSION)"; exit 1; }
	@for f in $(DKMS_SRCS); do [ -f "$$f" ] || \
		{ echo "dkms-src: $$f (Kbuild builds it) is missing" >&2; exit 1; }; done
	rm -rf $(D)$(DKMSDIR)
	$(INSTALL) -d $(D)$(DKMSDIR)
	cp --parents $(DKMS_SRCS) $(D)$(DKMSDIR)/

# --- Documentation/ (Sphinx, warnings are errors) ---------------------------
# kernel-doc and its Sphinx extension are vendored (scripts/kernel-doc,
# scripts/sphinx/): only Sphinx itself is needed.
htmldocs:
	@command -v sphinx-build >/dev/null || { echo >&2 \
		"make htmldocs: no sphinx-build (apt-get install python3-sphinx)"; \
		exit 1; }
	sphinx-build -W -q -b html Documentation $(BUILD)/htmldocs

# The shell selftests' TAP library, installed beside them: they source it
# from there (from tests/ in the tree).
GUEST_TAP := $(BUILD)/guest/bin/tap.sh

$(GUEST_TAP): tests/tap.sh
	@mkdir -p $(@D)
	install -m 644 $< $@

# The CLI test is a POSIX sh script; installed without .sh so that guest
# scripts run it with the other */bin/*_test selftests, and its tests
# (tests/cli/*.sh, which it sources) beside it in cli/.
CLI_TEST_PARTS := $(wildcard tests/cli/*.sh)

$(BUILD)/guest/bin/cli_test: tests/cli_test.sh $(CLI_TEST_PARTS) $(GUEST_TAP)
	@mkdir -p $(@D)/cli
	install -m 644 $(CLI_TEST_PARTS) $(@D)/cli/
	install -m 755 $< $@

guest: $(BUILD)/guest/bin/cli_test

# The refresh helper of memfilter-refresh@.service, for the CLI test.
$(BUILD)/guest/bin/memfilter-refresh: systemd/memfilter-refresh
	@mkdir -p $(@D)
	install -m 755 $< $@

guest: $(BUILD)/guest/bin/memfilter-refresh

# The dedup target's guest tests (sh scripts, installed as dm_test,
# dm_discard_test and dm_fs_test) and the O_DIRECT writer and predictor
# dm_test drives the device with.
$(BUILD)/guest/bin/dm_test $(BUILD)/guest/bin/dm_discard_test \
	$(BUILD)/guest/bin/dm_fs_test: $(BUILD)/guest/bin/%: tests/%.sh $(GUEST_TAP)
	@mkdir -p $(@D)
	install -m 755 $< $@

$(BUILD)/guest/bin/dedup_io: tests/dedup_io.c $(GUEST_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_FLAGS) -static -o $@ $< $(GUEST_LIB_OBJS) -lm

guest: $(BUILD)/guest/bin/dm_test $(BUILD)/guest/bin/dm_discard_test \
	$(BUILD)/guest/bin/dm_fs_test $(BUILD)/guest/bin/dedup_io

# What fsync and syncfs returned, for make realworld's crash checks.
$(BUILD)/guest/bin/sync_probe: tests/sync_probe.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_FLAGS) -static -o $@ $<

# --- the documentation's examples (scripts/doc-examples.py) -----------------
# Every example block of Documentation/, the man pages and README.md has a
# marker saying what it is; doc-examples-check fails on a block without
# one and checks the ones that are not run (declarations against the
# header, listings against the sources), compiling the C examples against
# the in-tree library as a user's program would; doc-examples-run runs
# those that need no module natively (tests/docs_test.sh); the rest run in
# the guests as the selftest docs_test, with the bundle beside it in docs/.
DOC_SRCS := $(wildcard Documentation/*.rst man/*.[0-9]) README.md
DOC_CC = $(CC) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -Ilib -Iuapi \
	-I$(BUILD)/include
DOC_LIBS = -L$(BUILD)/lib -lmemfilter -Wl,-rpath,$(abspath $(BUILD)/lib)

.PHONY: doc-examples-check doc-examples-run
doc-examples-check: lib
	@scripts/doc-examples.py check --cc "$(DOC_CC)" --libs "$(DOC_LIBS)"

$(BUILD)/docs-host/.stamp: scripts/doc-examples.py $(DOC_SRCS) lib
	@scripts/doc-examples.py bundle --where host --out $(@D) \
		--cc "$(DOC_CC)" --libs "$(DOC_LIBS)"
	@touch $@

doc-examples-run: $(BUILD)/docs-host/.stamp $(BUILD)/bin/memfilterctl
	@PATH=$(abspath $(BUILD)/bin):$$PATH MF_BUILD=$(abspath $(BUILD)) \
		tests/docs_test.sh $(BUILD)/docs-host

$(BUILD)/guest/bin/docs/.stamp: scripts/doc-examples.py $(DOC_SRCS) \
		$(GUEST_LIB_OBJS) $(LIB_HDRS) $(BUILD)/bpf/vmlinux.h \
		bpf/memfilter.bpf.h
	scripts/doc-examples.py bundle --where guest --out $(@D) \
		--cc "$(CC) $(GUEST_FLAGS) -static" --libs "$(GUEST_LIB_OBJS) -lm" \
		--bpf-cc "$(BPF_CLANG) $(BPF_CFLAGS)"
	@touch $@

$(BUILD)/guest/bin/docs_test: tests/docs_test.sh $(BUILD)/guest/bin/docs/.stamp \
		$(GUEST_TAP)
	@mkdir -p $(@D)
	install -m 755 $< $@

guest: $(BUILD)/guest/bin/docs_test

# --- the image loader's fuzzer (libFuzzer, clang) ----------------------------
FUZZ_OBJS := $(call lib_objs,$(BUILD)/fuzz) $(BUILD)/fuzz/image_fuzz.o

$(BUILD)/fuzz/image_fuzz.o: fuzz/image_fuzz.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<

$(BUILD)/fuzz/image_fuzz: $(FUZZ_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^

# The seed corpus is committed; this regenerates it with memfilterctl build
# (window images: fuzz/window_images.c).
.PHONY: fuzz fuzz-smoke fuzz-corpus
$(BUILD)/guest/bin/window_images: fuzz/window_images.c $(GUEST_LIB_OBJS) $(LIB_HDRS)
	$(CC) $(GUEST_FLAGS) -static -o $@ $< $(GUEST_LIB_OBJS)

fuzz-corpus: $(BUILD)/guest/bin/memfilterctl $(BUILD)/guest/bin/window_images
	fuzz/gen-corpus.sh $^ fuzz/corpus/image

# make fuzz: about 5 minutes; make fuzz-smoke: about 25 s (for make check).
# Both print TAP and exit non-zero when the fuzzer finds a crash.
fuzz: $(BUILD)/fuzz/image_fuzz
	scripts/fuzz.sh $< 300 fuzz/corpus/image $(BUILD)/fuzz/image

fuzz-smoke: $(BUILD)/fuzz/image_fuzz
	scripts/fuzz.sh $< 25 fuzz/corpus/image $(BUILD)/fuzz/image

# make fuzz-ioctl: the ioctl fuzzer alone in a guest (make check runs it
# for 60 s with the selftests). FUZZ_SECONDS (600), FUZZ_SEED,
# FUZZ_THREADS, FUZZ_KERNEL=debug|6.12|6.1: see fuzz/ioctl-vm.sh.
.PHONY: fuzz-ioctl
fuzz-ioctl:
	fuzz/ioctl-vm.sh

# make faults: the ioctl fuzzer, memfilterctl and the dm target under the
# kernel's fault injection in the debug guest (tests/faults.sh; several
# minutes; make check runs a short pass of it). make dm-mutants: the dm target's tests
# against builds with one condition of its elision rule removed (one
# debug guest). Documentation/testing.rst, "Fault injection" and
# "Mutants of the dm elision rule".
.PHONY: faults dm-mutants
$(BUILD)/guest/bin/faultrun: tests/faultrun.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_FLAGS) -static -o $@ $<

# make check's debug guest runs a short pass of it (tests/qemu/debug.sh):
# the script is installed as bin/faults, not as a *_test selftest.
$(BUILD)/guest/bin/faults: tests/faults.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

guest: $(BUILD)/guest/bin/faultrun $(BUILD)/guest/bin/faults

faults:
	BUILD=$(BUILD) tests/qemu/faults-vm.sh

dm-mutants:
	BUILD=$(BUILD) tests/qemu/mutants-vm.sh

# make realworld (not in make check: about an hour of guests):
# the clients users run, each judged by its own checker, results in
# bench/results/realworld.md. Each part's script runs if present:
# realworld-dm-vm.sh (ext4, xfs, fio, dm flakey/error under the dm target),
# realworld-net-vm.sh (replayed traffic, xdp-loader, iperf3 through the
# hooks). Documentation/testing.rst, "Real-world clients".
.PHONY: realworld
realworld:
	@rc=0; for s in tests/qemu/realworld-dm-vm.sh tests/qemu/realworld-net-vm.sh; do \
		if [ -x $$s ]; then BUILD=$(BUILD) $$s || rc=1; \
		else echo "realworld: $$s absent, skipped"; fi; \
	done; exit $$rc

# --- BPF programs, skeletons, loaders (bpf/bpf.mk) ----------------------------
include bpf/bpf.mk
include tests/replay.mk
