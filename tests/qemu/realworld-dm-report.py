#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The device-mapper section of bench/results/realworld.md, from the
"RW " data lines of tests/qemu/realworld-dm-vm.sh's guest logs.

    realworld-dm-report.py RESULTS_DIR REPORT.md GUEST...

Replaces the text between this part's markers in REPORT.md (appends it
when absent); every other part's section is left as it is.
"""
import datetime
import glob
import re
import sys

BEGIN = "<!-- BEGIN realworld-dm (tests/qemu/realworld-dm-vm.sh) -->"
END = "<!-- END realworld-dm -->"


def parse(path):
    kernel, rows, tap, verdict = "?", [], [], "no verdict: the run was cut short"
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return kernel, rows, tap, verdict
    for line in text.splitlines():
        if line.startswith("# kernel "):
            kernel = line[len("# kernel "):]
        elif line.startswith("RW "):
            rows.append(dict(kv.split("=", 1) for kv in line[3:].split()
                             if "=" in kv))
        elif re.match(r"(not )?ok \d+ ", line):
            tap.append(line)
    m = re.findall(r"^(not )?ok 1 guest finished, kernel log clean|"
                   r"^not ok 1 (.*)$", text, re.M)
    if "ok 1 guest finished, kernel log clean" in text:
        verdict = "kernel log clean"
    elif m:
        verdict = "FAILED: " + " ".join(x[1] for x in m if x[1])
    return kernel, rows, tap, verdict


def pm(e, w):
    e, w = int(e), int(w)
    return "%.1f%%" % (100.0 * e / w) if w else "-"


def table(cols, align):
    """A markdown table's header: column names, then their alignment."""
    return ["| " + " | ".join(cols) + " |", "|" + "|".join(align) + "|"]


def section(resdir, guests):
    now = datetime.datetime.now(datetime.timezone.utc)
    out = [BEGIN, "## Device-mapper target (memfilter-dedup)", "",
           "`tests/qemu/realworld-dm-vm.sh` (guest script "
           "`tests/qemu/realworld-dm.sh`), %s. Each client's own checker "
           "decides: e2fsck -fn / xfs_repair -n exit status, sha256sum -c "
           "of every file, fio's verify (exit status, error field, bytes "
           "read back). Counters are the target's (`dmsetup status`); "
           "\"to device\" is what the loop device under it wrote "
           "(/sys/block/*/stat)." % now.strftime("%Y-%m-%d %H:%M UTC"), ""]
    data = {g: parse("%s/vm-realworld-dm-%s.log" % (resdir, g))
            for g in guests}
    for g in guests:
        kernel, rows, tap, verdict = data[g]
        bad = [t for t in tap if t.startswith("not ok")]
        out.append("- **%s guest**, kernel `%s`: %d checks, %d failed; %s"
                   % (g, kernel, len(tap), len(bad), verdict))
        for t in bad:
            out.append("  - `%s`" % t)
    out += ["", "### File systems", ""] + table(
        ["guest", "fs", "step", "writes", "elided", "busy", "untrusted",
         "KiB submitted", "KiB to device"], ["---"] * 3 + ["--:"] * 6)
    for g in guests:
        for r in data[g][1]:
            if "fs" not in r:
                continue
            if "skipped" in r:
                out.append("| %s | %s | (not in this kernel) ||||||" %
                           (g, r["fs"]))
                continue
            out.append("| %s | %s | %s | %s | %s (%s) | %s | %s | %s | %s |"
                       % (g, r["fs"], r["step"], r["writes"], r["elided"],
                          pm(r["elided"], r["writes"]), r["busy"],
                          r["untrusted"], r["sub_kib"], r["dev_kib"]))
    out += ["", "### fio with verification", "",
            "Each job twice with the same seed on a fresh target; "
            "\"bw ratio\" is the job's write bandwidth on the target over "
            "the same pass on the plain loop device in the same boot "
            "(stock guest only; TCG, one vCPU: a ratio, not a speed).",
            ""] + table(
        ["guest", "job", "pass", "fio KiB written", "KiB to device",
         "fio KiB verified", "verify reads", "elided", "busy", "fio err",
         "bw ratio"], ["---"] * 2 + ["--:"] * 9)
    for g in guests:
        rows = data[g][1]
        loop = {(r["job"], r["pass"]): r for r in rows
                if r.get("dev") == "loop"}
        for r in rows:
            if r.get("dev") != "dedup":
                continue
            lr = loop.get((r["job"], r["pass"]))
            ratio = "-"
            try:
                ratio = "%.2f" % (int(r["bw_kib"]) / int(lr["bw_kib"]))
            except (TypeError, ValueError, ZeroDivisionError):
                pass
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s (%s) | %s "
                       "| %s | %s |"
                       % (g, r["job"], r["pass"], r["fio_write_kib"],
                          r["dev_kib"], r["fio_verify_kib"],
                          r["verify_reads"], r["elided"],
                          pm(r["elided"], r["writes"]), r["busy"],
                          r["fio_err"], ratio))
    out += ["", "### Crash consistency (dm flakey / error under the target)",
            "",
            "The fault is switched in mid-job (once the target counted "
            "half the job's writes). fio: pattern A, then B, then A again "
            "under the fault; after it is lifted `fio --verify_only` with "
            "the verify state fio saved reads back every write it was told "
            "completed. drop_writes (the device acks writes it drops) is "
            "the control: the same check must fail there. ext4 (on the "
            "target, and on flakey without it for reference): a first "
            "half syncfs'ed before the fault, then the tree copied file by "
            "file with an fsync of each file and its directory "
            "(tests/sync_probe.c), the fault switched in mid-copy; after "
            "the journal replay every file whose fsync returned 0 (all of "
            "them if the syncfs at the end, through a descriptor opened "
            "before the copy, returned 0) must read back intact, and "
            "e2fsck -fn must be clean. For ext4 the columns are: what "
            "that syncfs and an fsync after the fault returned, the files "
            "the file system said were durable, sha256sum -c of them, "
            "remount / e2fsck rc.", ""] + table(
        ["guest", "client", "mode", "fault mid-job", "client rc",
         "told completed KiB", "verified KiB", "verify rc / fsck rc",
         "result"], ["---"] * 3 + ["--:"] * 5 + ["---"])
    for g in guests:
        for r in data[g][1]:
            if "client" not in r:
                continue
            if r["client"] == "fio":
                ok = (r["verify_rc"] == "0" and r["verify_msgs"] == "0")
                want = r["mode"] != "drop_writes"
                res = ("clean" if ok else "verify errors") + \
                    (" (as it must)" if ok == want else " (WRONG)")
                out.append("| %s | fio | %s | %s | %s | %s | %s | %s | %s |"
                           % (g, r["mode"], r["faulted"], r["fio_rc"],
                              r["told_kib"], r["verified_kib"],
                              r["verify_rc"], res))
            elif "durable_files_rc" in r:
                ok = all(r[k] == "0" for k in
                         ("remount_rc", "fsck_rc", "durable_files_rc"))
                want = r["mode"] != "drop_writes"
                res = ("clean" if ok else "NOT CLEAN") + \
                    (" (as it must)" if ok == want else " (WRONG)")
                client = "ext4" if r.get("stack") != "direct" else \
                    "ext4, no target"
                if r.get("writer") == "cp":
                    client += " (cp -a, sync -f)"
                out.append("| %s | %s | %s | %s | syncfs %s, fsync after "
                           "%s | %s of %s files | rc %s | %s / %s | %s |"
                           % (g, client, r["mode"], r["faulted"],
                              r["held_syncfs"], r["fsync_after"],
                              r["durable"], r["files"],
                              r["durable_files_rc"], r["remount_rc"],
                              r["fsck_rc"], res))
    muts = sorted(glob.glob("%s/vm-realworld-dm-mutant-*.log" % resdir))
    if muts:
        out += ["", "### Mutants (MUTANT=... tests/qemu/realworld-dm-vm.sh)", "",
                "The crash part against a mutated copy of module/consumers/dm.c in "
                "the debug guest (or the stock one, GUESTS=stock): killed when a fault mode other than the "
                "drop_writes control fails its check.", ""]
    for m in muts:
        name = m.rsplit("mutant-", 1)[1][:-len(".log")]
        tap = parse(m)[2]
        bad = [t for t in tap
               if re.match(r"not ok \d+ (fio|ext4[a-z-]*), error", t)]
        out.append("- `%s`: %s%s" % (name, "killed" if bad else
                                     "survived (or cut short)",
                                     "".join("; `%s`" % t for t in bad)))
    out.append(END)
    return "\n".join(out) + "\n"


MUTANTS = "### Mutants (MUTANT=... tests/qemu/realworld-dm-vm.sh)"


def kept_mutants(text, sec):
    """A run without mutant logs keeps the report's Mutants subsection.

    Mutant runs are separate (MUTANT=...), their logs live in one build
    directory: a later full run on another machine must not drop their
    results from the report.
    """
    if MUTANTS in sec or MUTANTS not in text or END not in text:
        return sec
    old = text.split(MUTANTS, 1)[1].split(END, 1)[0].strip("\n")
    return sec.replace(END, "%s\n\n%s\n%s" % (MUTANTS, old, END), 1)


def main():
    resdir, report, guests = sys.argv[1], sys.argv[2], sys.argv[3:]
    sec = section(resdir, guests)
    try:
        text = open(report).read()
    except OSError:
        text = "# Real-world clients (make realworld)\n\n"
    sec = kept_mutants(text, sec)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + sec + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + sec
    with open(report, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
