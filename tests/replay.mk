# SPDX-License-Identifier: GPL-2.0
#
# Replayed traffic (included by the Makefile): the capture, made from a
# fixed seed by tests/data/gen_replay_pcap.py (python3-scapy), the offline
# predictor, the make check test (tests/replay_test.sh) and what it loads
# into the guest: the BPF examples' objects and libxdp's dispatcher, which
# Debian's xdp-loader (xdp-tools) looks for in LIBXDP_OBJECT_PATH.

PYTHON_SCAPY ?= /usr/bin/python3
XDP_DISPATCHER ?= /usr/lib/x86_64-linux-gnu/bpf/xdp-dispatcher.o

$(BUILD)/guest/bin/replay.pcap: tests/data/gen_replay_pcap.py
	@mkdir -p $(@D)
	$(PYTHON_SCAPY) $< $@.tmp
	mv $@.tmp $@

$(BUILD)/guest/bin/replay_predict: tests/replay_predict.c $(GUEST_LIB_OBJS) \
		$(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(GUEST_FLAGS) -static -o $@ $< $(GUEST_LIB_OBJS) -lm

$(BUILD)/guest/bin/replay_test: tests/replay_test.sh $(GUEST_TAP)
	@mkdir -p $(@D)
	install -m 755 $< $@

$(BUILD)/guest/bin/xdp-dispatcher.o: $(XDP_DISPATCHER)
	@mkdir -p $(@D)
	cp $< $@

REPLAY_BINS := $(BUILD)/guest/bin/replay.pcap $(BUILD)/guest/bin/replay_predict \
	$(BUILD)/guest/bin/replay_test $(BUILD)/guest/bin/xdp-dispatcher.o \
	$(BUILD)/guest/bin/xdp_blocklist.bpf.o $(BUILD)/guest/bin/tc_dedup.bpf.o

guest: $(REPLAY_BINS)
