# SPDX-License-Identifier: GPL-2.0
#
# memfilterctl's tests (tests/cli_test.sh, which sources this file and has
# the helpers and the driver). Where images go: -o never replaces what is
# not a regular file, offline but for dump.

# dev_nodes: make $T/od-null and $T/od-full, our own null and full devices
# (never the real /dev/null or /dev/full), if this user and file system
# can (root, no nodev mount): 0 if they work.
dev_nodes() {
	[ -c "$T/od-full" ] && return 0
	mknod "$T/od-null" c 1 3 2>/dev/null &&
		mknod "$T/od-full" c 1 7 2>/dev/null &&
		: >"$T/od-null" 2>/dev/null
}

# still KIND PATH: PATH is still what test(1)'s -KIND says.
still() {
	[ "-$1" "$2" ] || fail "$2 is no longer -$1: replaced"
}

# -o to a device node or a FIFO writes there, as '>' would: the node
# stays; a full device is an error (ENOSPC), exit 2. build, merge and
# rotate --image alike.
t_output_devices() {
	offline_images || return 1
	expect_rc 0 memfilterctl build --generations 2 --capacity 10 \
		-o "$T/od-w.img" "$T/o1" || return 1
	if dev_nodes; then
		expect_rc 0 memfilterctl build --type bloom --capacity 2000 \
			--seed 3 -o "$T/od-null" "$T/o1" && still c "$T/od-null" &&
		expect_error "od-full: No space left on device" memfilterctl \
			build --type bloom --capacity 2000 -o "$T/od-full" \
			"$T/o1" && still c "$T/od-full" &&
		expect_error "od-full: No space left on device" memfilterctl \
			merge -o "$T/od-full" "$T/o1.img" "$T/o2.img" &&
			still c "$T/od-full" &&
		expect_error "od-full: No space left on device" memfilterctl \
			rotate --image "$T/od-w.img" -o "$T/od-full" &&
			still c "$T/od-full" || return 1
	else
		echo "# no device nodes here (not root, or a nodev mount): devices not tried"
	fi
	# A FIFO, its reader started first: it gets exactly the image.
	rm -f "$T/od-fifo" && mkfifo "$T/od-fifo" || return 1
	cat "$T/od-fifo" >"$T/od-fifo.out" &
	pid=$!
	run memfilterctl build --type bloom --capacity 2000 --seed 3 \
		-o "$T/od-fifo" "$T/o1"
	if [ -p "$T/od-fifo" ]; then
		wait "$pid"
	else
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	[ "$rc" = 0 ] || fail "build -o FIFO: exit $rc" || return 1
	still p "$T/od-fifo" && same_file "$T/od-fifo.out" "$T/o1.img"
}

# A symbolic link is never replaced nor written through, except one to
# the file on stdout (what /dev/stdout is): that is stdout.
t_output_links() {
	offline_images || return 1
	rm -f "$T/ol-"*
	ln -s /proc/self/fd/1 "$T/ol-stdout" &&
	memfilterctl build --type bloom --capacity 2000 --seed 3 \
		-o "$T/ol-stdout" "$T/o1" >"$T/ol-so.img" 2>"$T/err" &&
		still L "$T/ol-stdout" && same_file "$T/ol-so.img" "$T/o1.img" ||
		fail "-o a link to stdout" || return 1
	memfilterctl merge -o "$T/ol-stdout" "$T/o1.img" "$T/o1.img" |
		cat >"$T/ol-pipe.img" && still L "$T/ol-stdout" &&
		[ -s "$T/ol-pipe.img" ] || fail "merge -o a link to a pipe" ||
		return 1
	cp "$T/o2.img" "$T/ol-target.img" &&
	ln -s ol-target.img "$T/ol-link.img" &&
	ln -s ol-none.img "$T/ol-dangling.img" || return 1
	for l in ol-link.img ol-dangling.img; do
		expect_error "$l: is a symbolic link" memfilterctl build \
			--type bloom --capacity 10 -o "$T/$l" "$T/o1" &&
			still L "$T/$l" &&
		expect_error "$l: is a symbolic link" memfilterctl merge \
			-o "$T/$l" "$T/o1.img" "$T/o2.img" && still L "$T/$l" &&
		expect_error "$l: is a symbolic link" memfilterctl rotate \
			--image "$T/od-w.img" -o "$T/$l" && still L "$T/$l" ||
			return 1
	done
	same_file "$T/ol-target.img" "$T/o2.img" &&
		[ ! -e "$T/ol-none.img" ] || fail "written through a link" ||
		return 1
	expect_error "is a directory" memfilterctl build --type bloom \
		--capacity 10 -o "$T" "$T/o1"
}

# A regular file is replaced whole, by a file of its mode and (as far as
# this user may give them) owner and group, as '>' would keep them; a new
# one gets 0666 less the umask; a keyed image at most 0600. The directory
# must be writable, and the message says it is the directory.
t_output_files() {
	offline_images || return 1
	rm -rf "$T/of-"*
	echo old >"$T/of-a.img" && chmod 444 "$T/of-a.img" &&
	(umask 022 && memfilterctl build --type bloom --capacity 2000 --seed 3 \
		-o "$T/of-a.img" "$T/o1") && same_file "$T/of-a.img" "$T/o1.img" &&
		[ "$(stat -c %a "$T/of-a.img")" = 444 ] ||
		fail "replace a regular file: mode $(stat -c %a "$T/of-a.img")" ||
		return 1
	(umask 022 && memfilterctl build --type bloom --capacity 10 \
		-o "$T/of-new.img" "$T/o1" 2>/dev/null) &&
		[ "$(stat -c %a "$T/of-new.img")" = 644 ] &&
	chmod 600 "$T/of-new.img" &&
	memfilterctl build --type bloom --capacity 10 -o "$T/of-new.img" \
		"$T/o1" 2>/dev/null && [ "$(stat -c %a "$T/of-new.img")" = 600 ] &&
	chmod 644 "$T/of-new.img" &&
	memfilterctl build --type bloom --capacity 10 --keyed \
		-o "$T/of-new.img" "$T/o1" 2>/dev/null &&
		[ "$(stat -c %a "$T/of-new.img")" = 600 ] ||
		fail "modes: $(stat -c %a "$T/of-new.img")" || return 1
	if [ "$(id -u)" = 0 ] && chown 65534:65534 "$T/of-new.img"; then
		chmod 640 "$T/of-new.img" &&
		memfilterctl build --type bloom --capacity 10 \
			-o "$T/of-new.img" "$T/o1" 2>/dev/null &&
			[ "$(stat -c %u:%g:%a "$T/of-new.img")" = 65534:65534:640 ] ||
			fail "owners: $(stat -c %u:%g:%a "$T/of-new.img")" ||
			return 1
	fi
	echo old >"$T/of-file" &&
	expect_error "of-file/: Not a directory" memfilterctl build \
		--type bloom --capacity 10 -o "$T/of-file/" "$T/o1" &&
	expect_error "of-none/: Is a directory" memfilterctl build \
		--type bloom --capacity 10 -o "$T/of-none/" "$T/o1" &&
		[ "$(cat "$T/of-file")" = old ] || return 1
	mkdir "$T/of-ro" && chmod 555 "$T/of-ro" || return 1
	if [ "$(id -u)" = 0 ]; then
		# Root writes anywhere: nobody tries, in a directory it may enter.
		chmod 711 "$T" && cp "$T/o1" "$T/of-ro.keys" &&
			chmod 644 "$T/of-ro.keys" || return 1
		run su nobody -s /bin/sh -c "$(command -v memfilterctl) build \
			--type bloom --capacity 2000 -o $T/of-ro/x.img $T/of-ro.keys"
		chmod 700 "$T"
	else
		run memfilterctl build --type bloom --capacity 2000 \
			-o "$T/of-ro/x.img" "$T/o1"
	fi
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q "x.img: cannot create a file in directory $T/of-ro: Permission denied" \
		"$T/err" || fail "-o in a read-only directory" || return 1
	[ -z "$(ls -A "$T/of-ro")" ] ||
		fail "something left in the read-only directory"
}

# add --image adds to an image offline and writes it back: the same bytes
# as the image built from all the keys; a failed add, a link, a FIFO or
# stdout leave everything as it was.
t_add_image() {
	offline_images || return 1
	cat "$T/o1" "$T/o2" >"$T/ai-12"
	to_image "$T/ai-want.img" memfilterctl build --type bloom \
		--capacity 2000 --seed 3 "$T/ai-12" || return 1
	cp "$T/o1.img" "$T/ai.img" &&
	expect_rc 0 memfilterctl add --image "$T/ai.img" "$T/o2" &&
		expect_out 1000 && [ ! -s "$T/err" ] &&
		same_file "$T/ai.img" "$T/ai-want.img" ||
		fail "add --image: not the image built from both" || return 1
	# -o: a new image, the old one unchanged; a keyed image stays 0600.
	cp "$T/o1.img" "$T/ai-src.img" &&
	expect_rc 0 memfilterctl add -i "$T/ai-src.img" -o "$T/ai-o.img" \
		"$T/o2" && same_file "$T/ai-o.img" "$T/ai-want.img" &&
		same_file "$T/ai-src.img" "$T/o1.img" ||
		fail "add --image -o" || return 1
	(umask 077 && memfilterctl build --type bloom --capacity 10 --keyed \
		-o "$T/ai-k.img" "$T/o1" 2>/dev/null)
	chmod 600 "$T/ai-k.img" &&
	expect_rc 0 memfilterctl add -i "$T/ai-k.img" -k extra &&
		[ "$(stat -c %a "$T/ai-k.img")" = 600 ] &&
		expect_rc 0 memfilterctl query -i "$T/ai-k.img" -k extra ||
		fail "add --image to a keyed image" || return 1
	# Failures leave the image as it was.
	cp "$T/o1.img" "$T/ai-f.img" && cp "$T/o1.img" "$T/ai-f.orig" &&
	keys 61 6g >"$T/ai-badhex" &&
	expect_error "invalid hex" memfilterctl add -i "$T/ai-f.img" --hex \
		"$T/ai-badhex" && same_file "$T/ai-f.img" "$T/ai-f.orig" &&
	ln -s ai-f.img "$T/ai-link.img" &&
	expect_error "ai-link.img: is not a regular file" memfilterctl add \
		-i "$T/ai-link.img" -k x && still L "$T/ai-link.img" &&
		same_file "$T/ai-f.img" "$T/ai-f.orig" &&
	expect_error "stdout is for add's output" memfilterctl add \
		-i "$T/ai-f.img" -o - -k x &&
	expect_error "is stdout, which is for add's output" memfilterctl add \
		-i "$T/ai-f.img" -o /dev/stdout -k x &&
	expect_error "is stdout, which is for seen's output" memfilterctl \
		seen -i "$T/ai-f.img" -o /dev/stdout -k x &&
		same_file "$T/ai-f.img" "$T/ai-f.orig" &&
	expect_error "give -o FILE" memfilterctl add -i - -k x \
		<"$T/ai-f.img" &&
	expect_error "only with --image" memfilterctl add cli-x -o "$T/x.img" \
		-k x || return 1
	# --unique in a cuckoo image; a key's most copies named.
	: | memfilterctl build --type cuckoo --capacity 100 --seed 1 \
		-o "$T/ai-c.img" &&
	expect_rc 0 memfilterctl add -i "$T/ai-c.img" -k a -k a -k b &&
		expect_out 3 &&
	expect_rc 0 memfilterctl add -u -i "$T/ai-c.img" -k a -k c &&
		expect_out 1 &&
	expect_rc 0 memfilterctl count -i "$T/ai-c.img" -k a -k c &&
		expect_out "$(printf '2\ta\n1\tc')" || return 1
	keys a a a a a a a a >"$T/ai-a8"
	expect_error "in the filter 9 times already" memfilterctl add \
		-i "$T/ai-c.img" "$T/ai-a8" &&
		grep -q 'add --unique' "$T/err" || fail "the key's most copies"
}

# seen --image: test-and-add offline, written back as add's; a key
# repeated in the input is seen the second time.
t_seen_image() {
	offline_images || return 1
	cp "$T/o1.img" "$T/si.img" &&
	keys o1-1 new-1 new-1 new-2 o1-2 >"$T/si-in" &&
	expect_rc 0 memfilterctl seen --image "$T/si.img" "$T/si-in" &&
		expect_out "$(keys o1-1 new-1 o1-2)" &&
	expect_rc 0 memfilterctl seen -v -i "$T/si.img" -k new-2 -k new-3 &&
		expect_out new-3 &&
	expect_rc 0 memfilterctl query -n -i "$T/si.img" -k new-1 -k new-2 \
		-k new-3 && expect_out 3 || return 1
	# The same image as add's of the keys it found new: one found
	# present is not added, nor counted, again (it was: 5 + 2 keys).
	cp "$T/o1.img" "$T/si-a.img" &&
	memfilterctl add -i "$T/si-a.img" -k new-1 -k new-2 -k new-3 \
		>/dev/null && same_file "$T/si.img" "$T/si-a.img" || return 1
	expect_error "^memfilterctl: $T/ai-c.img: seen needs a Bloom, window or growing filter (test-and-add); a cuckoo filter cannot tell a new key from a false positive$" \
		memfilterctl seen -i "$T/ai-c.img" -k a
}

# peak_kb CMD...: CMD's peak resident memory in KiB (GNU time), or
# nothing where there is none to measure it with.
peak_kb() {
	[ -x /usr/bin/time ] || return 0
	/usr/bin/time -f '%M' -o "$T/pk-time" "$@" >/dev/null 2>&1 &&
		cat "$T/pk-time"
}

# build and query --image hold about one image in memory, not two: the
# table is written from the filter itself and the image read straight
# into the filter's table, not read and copied. A 40 MiB image under a 64 MiB limit (ulimit -v); under
# ASan, which ulimit -v stops, GNU time's peak less that of --version
# stays under 1.5 images.
t_peak_memory() {
	keys a b c >"$T/pm-k" && : >"$T/out" && : >"$T/err"
	img=41943168	# 2^25 keys at 10 bits per key, and the header
	set -- build --type bloom --capacity 33554432 --bits-per-key 10 \
		--seed 1 -o "$T/pm.img" "$T/pm-k"
	if [ "${MF_CLI_ASAN:-0}" != 1 ]; then
		(ulimit -v $((64 * 1024)) && exec memfilterctl "$@") &&
			[ "$(stat -c %s "$T/pm.img")" = "$img" ] &&
		(ulimit -v $((64 * 1024)) &&
			exec memfilterctl query -n -i "$T/pm.img" -k a -k zz) \
			>"$T/out" && expect_out 1 || fail "more than 64 MiB"
		rc=$?
		rm -f "$T/pm.img"
		return $rc
	fi
	base=$(peak_kb memfilterctl --version)
	[ -n "$base" ] || { echo "# no /usr/bin/time: not measured"; return 0; }
	for cmd in build query; do
		[ "$cmd" = query ] && set -- query -n -i "$T/pm.img" -k a -k zz
		kb=$(peak_kb memfilterctl "$@")
		[ -n "$kb" ] || [ "$cmd" = query ] ||
			fail "$cmd failed" || return 1
		kb=${kb:-0}
		echo "# $cmd: peak $((kb - base)) KiB above --version's for a $((img / 1024)) KiB image"
		[ $(((kb - base) * 1024)) -lt $((img * 3 / 2)) ] ||
			fail "$cmd: peak $((kb - base)) KiB" || return 1
	done
	rm -f "$T/pm.img"
}

# merge A B holds two tables, no image copy: B's table is ORed into A's
# and A's written from where it is (it held five images: both inputs
# read, both parsed into filters, and the merged image). Two 20 MiB
# images under a 64 MiB limit (ulimit -v); under ASan, whose shadow
# memory ulimit cannot bound, a peak resident memory (GNU time) above
# --version's under 2.25 images (two, and a quarter's margin).
t_merge_peak() {
	img=20971648	# 2^24 keys at 10 bits per key, and the header
	keys a b >"$T/mp-a" && keys c >"$T/mp-b" || return 1
	for i in a b; do
		memfilterctl build --type bloom --capacity 16777216 \
			--bits-per-key 10 --seed 1 -o "$T/mp-$i.img" "$T/mp-$i" ||
			return 1
	done
	[ "$(stat -c %s "$T/mp-a.img")" = "$img" ] || fail "image size" ||
		return 1
	set -- merge -o "$T/mp.img" "$T/mp-a.img" "$T/mp-b.img"
	if [ "${MF_CLI_ASAN:-0}" != 1 ]; then
		(ulimit -v $((64 * 1024)) && exec memfilterctl "$@") ||
			fail "more than 64 MiB" || return 1
	else
		base=$(peak_kb memfilterctl --version)
		[ -n "$base" ] ||
			{ echo "# no /usr/bin/time: not measured"; return 0; }
		kb=$(peak_kb memfilterctl "$@")
		[ -n "$kb" ] || fail "merge failed" || return 1
		echo "# merge: peak $((kb - base)) KiB above --version's for two $((img / 1024)) KiB images"
		[ $(((kb - base) * 1024)) -lt $((img * 9 / 4)) ] ||
			fail "merge: peak $((kb - base)) KiB" || return 1
	fi
	memfilterctl query -n -i "$T/mp.img" -k a -k b -k c >"$T/out" &&
		expect_out 3 || return 1
	rm -f "$T/mp.img" "$T/mp-a.img" "$T/mp-b.img"
}

# A table the memory cannot hold is refused at once, with its size:
# 5 * 10^11 keys at 1% (split32, 10.75 bits/key: 671.9 GB) against
# MemAvailable; under ulimit -v (not ASan's), 10^8 keys (134.4 MB)
# against RLIMIT_AS.
t_memory_check() {
	: >"$T/mc-none"
	rm -f "$T/mc.img"
	expect_error "build: the filter's table needs 671875000064 bytes (671.9 GB), more than the .* leaves: lower --capacity or raise --fpr" \
		memfilterctl build --type bloom --capacity 500000000000 \
		-o "$T/mc.img" "$T/mc-none" &&
		[ ! -e "$T/mc.img" ] || fail "an image was written" || return 1
	[ "${MF_CLI_ASAN:-0}" = 1 ] && return 0
	expect_error "needs 134375104 bytes (134.4 MB), more than the .* RLIMIT_AS (ulimit -v) leaves" \
		limited memfilterctl build --type bloom --capacity 100000000 \
		-o "$T/mc.img" "$T/mc-none"
}

# Writing a large image shows its progress on stderr when stderr is a
# terminal (script(1) gives it one; where there is none, not tried).
t_write_progress() {
	keys a >"$T/wp-k"
	set -- build --type bloom --capacity 67108864 --bits-per-key 8 \
		--seed 1 -o "$T/wp.img" "$T/wp-k"
	if script -qec true /dev/null >/dev/null 2>&1; then
		script -qec "$(command -v memfilterctl) $*" /dev/null \
			>"$T/wp-tty" 2>&1 &&
		tr '\r' '\n' <"$T/wp-tty" |
			grep -q "wp.img: [0-9]* of 67108992 bytes written (" ||
			fail "no progress on a terminal: $(cat -v "$T/wp-tty")" ||
			return 1
	else
		echo "# no script(1): progress on a terminal not tried"
	fi
	rm -f "$T/wp.img"
}

# An empty path names no file: each command says which is empty (it was
# ": Is a directory" for -o '', ": No such file or directory" for the
# rest) and writes nothing.
t_empty_paths() {
	keys a >"$T/ep" &&
	memfilterctl build --type bloom --capacity 10 -o "$T/ep.img" "$T/ep" ||
		return 1
	expect_error "^memfilterctl build: option '--output': the path is empty (try" \
		memfilterctl build --type bloom --capacity 10 -o "" "$T/ep" &&
	expect_error "^memfilterctl build: option '--output': the path is empty (try" \
		memfilterctl build --type bloom --capacity 10 --output= "$T/ep" ||
		return 1
	expect_error "^memfilterctl build: FILE: the path is empty (try" \
		memfilterctl build --type bloom --capacity 10 -o "$T/ep2.img" "" &&
	[ ! -e "$T/ep2.img" ] || fail "build wrote an image" || return 1
	expect_error "^memfilterctl inspect: IMAGE: the path is empty" \
		memfilterctl inspect "" &&
	expect_error "^memfilterctl merge: IMAGE: the path is empty" \
		memfilterctl merge -o "$T/ep2.img" "$T/ep.img" "" &&
	expect_error "^memfilterctl merge: option '--output': the path is empty" \
		memfilterctl merge -o "" "$T/ep.img" "$T/ep.img" || return 1
	for c in query seen add count; do
		expect_error "^memfilterctl $c: IMAGE: the path is empty (try" \
			memfilterctl $c --image "" --key a || return 1
	done
	expect_error "^memfilterctl add: FILE: the path is empty" \
		memfilterctl add --image "$T/ep.img" -o "$T/ep2.img" "" &&
	expect_error "^memfilterctl add: option '--output': the path is empty (try" \
		memfilterctl add --image "$T/ep.img" -o "" --key a &&
	expect_error "^memfilterctl rotate: IMAGE: the path is empty (try" \
		memfilterctl rotate --image "" -o "$T/ep2.img" &&
	[ ! -e "$T/ep2.img" ] || fail "an image was written"
}

# seen counts the keys it found new: one found present is not added, nor
# counted, again (3 keys seen again made "keys: 6", "adds: 6"), in an
# image (seen_counts) and in the kernel (seen_counts_kernel).
t_seen_counts() {
	keys sc-a sc-b sc-c >"$T/sc-in" && keys sc-a sc-b sc-c sc-d >"$T/sc-2" &&
	memfilterctl build --type bloom --capacity 100 --seed 1 \
		-o "$T/sc.img" "$T/sc-in" &&
	expect_rc 0 memfilterctl seen -n -i "$T/sc.img" "$T/sc-2" &&
		expect_out 3 &&
	memfilterctl inspect "$T/sc.img" | grep -q '^keys: *4$' ||
		fail "seen --image counted present keys"
}

t_seen_counts_kernel() {
	keys sc-a sc-b sc-c >"$T/sc-in" && keys sc-a sc-b sc-c sc-d >"$T/sc-2" &&
	memfilterctl create cli-sc --type bloom --capacity 100 --seed 1 &&
	memfilterctl add cli-sc "$T/sc-in" >/dev/null &&
	expect_rc 0 memfilterctl seen -n cli-sc "$T/sc-2" && expect_out 3 &&
	expect_rc 0 memfilterctl seen -n cli-sc --key sc-a && expect_out 1 &&
	memfilterctl info cli-sc >"$T/sc-info" &&
		grep -q '^keys: *4$' "$T/sc-info" &&
		grep -q '^adds: *4$' "$T/sc-info" ||
		fail "seen in the kernel counted present keys: $(grep -E '^(keys|adds):' "$T/sc-info")" ||
		return 1
	memfilterctl rm cli-sc
}
