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
CORE_HDRS := $(wildcard core/*.h) tests/vectors.h
LIB_SRCS := lib/libmemfilter.c

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

native-test: $(NATIVE_TESTS)
	@rc=0; for t in $^; do $$t || rc=1; done; exit $$rc

# --- static binaries for the guests -----------------------------------------
$(BUILD)/guest/bin/%_test: tests/%_test.c $(wildcard uapi/linux/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -I$(KSELFTEST) -static -O2 $(TEST_WARN) \
		-o $@ $< -lpthread

$(BUILD)/guest/bin/memfilterctl: tools/memfilterctl.c $(LIB_SRCS) \
		$(wildcard lib/*.h uapi/linux/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS_MF) -static -O2 $(WARN) -o $@ $< $(LIB_SRCS)

guest: $(GUEST_BINS)

# --- the two commands --------------------------------------------------------
check:
	scripts/check.sh

demo:
	scripts/demo.sh

vm-shell:
	scripts/vm-shell.sh
