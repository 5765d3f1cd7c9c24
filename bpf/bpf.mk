# SPDX-License-Identifier: GPL-2.0
#
# BPF programs (clang -target bpf), their libbpf skeletons, the static
# loaders of bpf/ and the static tests/bpf_test (included by the Makefile).
#
# vmlinux.h comes from the BTF of Debian's 6.12 headers (BPF_VMLINUX): the
# programs use CO-RE, so one vmlinux.h serves every kernel they load on.

BPF_VMLINUX ?= $(firstword $(wildcard /usr/src/linux-headers-6.12*-amd64/vmlinux))
# clang 14 (Debian 12's default) emits no BTF type tags, which map kptrs need.
BPF_CLANG ?= clang-16
BPFTOOL ?= bpftool
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall \
	$(if $(filter 1,$(WERROR)),-Werror) \
	-I$(BUILD)/bpf -Ibpf -Itests/bpf
# libbpf and what it needs, linked statically for the busybox guests.
BPF_LIBS := -lbpf -lelf -lz -lzstd -lm

$(BUILD)/bpf/vmlinux.h:
	@mkdir -p $(@D)
	@test -n "$(BPF_VMLINUX)" || { echo "no BTF: set BPF_VMLINUX" >&2; exit 1; }
	$(BPFTOOL) btf dump file $(BPF_VMLINUX) format c > $@.tmp
	mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/%.h bpf/memfilter.bpf.h bpf/dedup.bpf.h \
		bpf/xdp_saddr.bpf.h $(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/bpf/%.bpf.o: tests/bpf/%.bpf.c tests/bpf/%.h bpf/memfilter.bpf.h \
		bpf/xdp_saddr.bpf.h $(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp
	mv $@.tmp $@

BPF_SKELS := $(BUILD)/bpf/xdp_blocklist.skel.h $(BUILD)/bpf/kfunc_ops.skel.h \
	$(BUILD)/bpf/tc_dedup.skel.h $(BUILD)/bpf/nf_dedup.skel.h

$(BUILD)/guest/bin/bpf_test: tests/bpf_test.c tests/bpf_utils.h tests/memfilter_utils.h \
		tests/bpf/kfunc_ops.h tests/prefix_list.h $(BPF_SKELS) $(GUEST_LIB_OBJS) \
		$(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -I$(BUILD)/bpf -Ibpf -Itests/bpf -static \
		-O2 $(TEST_WARN) -o $@ $< $(GUEST_LIB_OBJS) $(BPF_LIBS) -lpthread

# The veth traffic test: TC and netfilter through skeletons, XDP through ip
# from the object file, which goes into the guest beside it.
$(BUILD)/guest/bin/veth_test: tests/veth_test.c tests/memfilter_utils.h tests/prefix_list.h \
		bpf/tc_dedup.h bpf/xdp_blocklist.h bpf/nf_dedup.h bpf/loader.h \
		$(BUILD)/bpf/tc_dedup.skel.h $(BUILD)/bpf/nf_dedup.skel.h \
		$(GUEST_LIB_OBJS) $(LIB_HDRS) | $(BUILD)/guest/bin/xdp_blocklist.bpf.o
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -I$(BUILD)/bpf -Ibpf -static \
		-O2 $(TEST_WARN) -o $@ $< $(GUEST_LIB_OBJS) $(BPF_LIBS) -lpthread

$(BUILD)/guest/bin/%.bpf.o: $(BUILD)/bpf/%.bpf.o
	@mkdir -p $(@D)
	cp $< $@

# The example loaders, static: bpf/NAME.c with its skeleton.
BPF_LOADERS := $(BUILD)/guest/bin/xdp_blocklist $(BUILD)/guest/bin/tc_dedup \
	$(BUILD)/guest/bin/nf_dedup

$(BPF_LOADERS): $(BUILD)/guest/bin/%: bpf/%.c bpf/%.h bpf/loader.h \
		$(BUILD)/bpf/%.skel.h $(GUEST_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(BUILD)/bpf -Ibpf -static -O2 $(WARN) -o $@ $< \
		$(GUEST_LIB_OBJS) $(BPF_LIBS)

.PHONY: bpf
bpf: $(BUILD)/guest/bin/bpf_test $(BPF_LOADERS) $(BUILD)/guest/bin/veth_test

guest: $(BPF_LOADERS)

# --- make bench-bpf: the race against BPF_MAP_TYPE_BLOOM_FILTER --------------
$(BUILD)/bpf/%.bpf.o: bench/bpf/%.bpf.c bench/bpf/%.h bpf/memfilter.bpf.h \
		$(BUILD)/bpf/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -Ibench/bpf -c -o $@ $<

$(BUILD)/bench/bpf/bpf_bench: bench/bpf_bench.c bench/bpf_pps.c \
		bench/bpf/bpf_bench.h $(BUILD)/bpf/bpf_bench.skel.h \
		$(GUEST_LIB_OBJS) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(BUILD)/bpf -Ibpf -Ibench/bpf -static -O2 \
		$(WARN) -o $@ bench/bpf_bench.c bench/bpf_pps.c \
		$(GUEST_LIB_OBJS) $(BPF_LIBS)

# The same per-key hashing and probing natively: the Bloom map's code with
# the kernel's own jhash.h (Debian's 6.12 headers; KERNEL_JHASH_H
# overrides), memfilter's from core/.
KERNEL_JHASH_H ?= $(firstword $(wildcard \
	/usr/src/linux-headers-6.12*-common/include/linux/jhash.h))
BPF_KEY_BENCH_CORE := core/hash.c core/bloom.c core/bloom_batch.c core/bloom_avx2.c

bench/bpf_key_bench: bench/bpf_key_bench.c bench/bench_util.h \
		bench/bpf/kshim/linux/bitops.h \
		bench/bpf/kshim/linux/unaligned/packed_struct.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(BPF_KEY_BENCH_CORE))
	@test -n "$(KERNEL_JHASH_H)" || \
		{ echo "no linux/jhash.h: set KERNEL_JHASH_H" >&2; exit 1; }
	$(CC) $(BENCH_CFLAGS) -Ibench/bpf/kshim \
		-DKERNEL_JHASH_H='"$(KERNEL_JHASH_H)"' -Wall -Werror -o $@ \
		$(filter %.c %.o,$^)

.PHONY: bench-bpf
bench-bpf: $(BUILD)/bench/bpf/bpf_bench bench/bpf_key_bench
	bench/bpf-bench.sh $(BUILD)/bench/bpf bench/results/bpf.md \
		bench/bpf_key_bench

# --- make bench-nf: the netfilter hook against nftables -----------------------
$(BUILD)/bench/nf/nf_pps: bench/nf_pps.c bench/bpf_pps.c bench/bpf/bpf_bench.h \
		bench/nf_bench.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -Ibench/bpf -static -O2 $(WARN) -o $@ \
		bench/nf_pps.c bench/bpf_pps.c $(BPF_LIBS)

# make bench-nf-prefix: prefix blocklists against ipset and nftables.
$(BUILD)/bench/nf/nf_prefix_pps: bench/nf_prefix_pps.c bench/bpf_pps.c \
		bench/bpf/bpf_bench.h bench/nf_bench.h bench/prefix_lists.h \
		tests/prefix_list.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -Ibench/bpf -static -O2 $(WARN) -o $@ \
		bench/nf_prefix_pps.c bench/bpf_pps.c $(BPF_LIBS)

# Through the type table, as the kernel's in-kernel API: every type's core,
# and the prefix rule.
NF_KEY_BENCH_CORE := $(WINDOW_BENCH_CORE) core/prefix.c

bench/nf_key_bench: bench/nf_key_bench.c bench/bench_util.h bench/prefix_lists.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(NF_KEY_BENCH_CORE)) | $(VERSION_H)
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -o $@ $(filter-out %.h,$^)

# The same with its indirect calls through retpolines, as the stock
# kernels' on CPUs without eIBRS (and without jump tables, as there).
bench/nf_key_bench_retpoline: bench/nf_key_bench.c bench/bench_util.h bench/prefix_lists.h \
		$(patsubst core/%.c,$(BUILD)/bench/core-%.o,$(NF_KEY_BENCH_CORE)) | $(VERSION_H)
	$(CC) $(BENCH_CFLAGS) -Wall -Werror -DNF_KEY_BENCH_RETPOLINE=1 \
		-mindirect-branch=thunk -fno-jump-tables -o $@ \
		$(filter-out %.h,$^)

.PHONY: bench-nf bench-nf-prefix
bench-nf: $(BUILD)/bench/nf/nf_pps $(BUILD)/guest/bin/memfilterctl \
		$(BUILD)/guest/bin/nf_dedup bench/nf_key_bench
	bench/nf-bench.sh $(BUILD) bench/results/nf.md

bench-nf-prefix: $(BUILD)/bench/nf/nf_prefix_pps $(BUILD)/guest/bin/memfilterctl \
		bench/nf_key_bench
	bench/nf-bench.sh --prefixes $(BUILD) bench/results/nf-prefix.md
