#!/usr/bin/python3
"""run-fuzz.py: one libFuzzer harness for a fixed time, as a TAP test.

    run-fuzz.py HARNESS CORPUS_DIR SECONDS DICT SEED_DIR...

CORPUS_DIR (in the build tree) is where libFuzzer keeps what it finds; it
grows from run to run. The seed directories (the protocol fixtures, in
the source tree) are only read: libFuzzer writes new inputs to the first
corpus directory alone. A crash, a leak, a broken property (the harness
aborts) or a timeout fails the test; the crashing input is saved in the
build tree and named in the output, so it can be replayed with
`HARNESS FILE`.
"""
import os
import re
import subprocess
import sys


def main():
    harness, corpus, seconds, dictionary, *seeds = sys.argv[1:]
    os.makedirs(corpus, exist_ok=True)
    artifacts = os.path.join(os.path.dirname(corpus), "crashes") + os.sep
    os.makedirs(artifacts, exist_ok=True)
    name = os.path.basename(harness)
    print("1..1", flush=True)
    cmd = [harness, f"-max_total_time={seconds}", "-print_final_stats=1",
           f"-dict={dictionary}", f"-artifact_prefix={artifacts}",
           "-timeout=10", "-rss_limit_mb=2048", corpus, *seeds]
    print("# " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    for line in proc.stdout.splitlines():
        print("# " + line)
    runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", proc.stdout)
    # libFuzzer exits 0 only when the time ran out without a finding; a
    # run that executed nothing proves nothing, so it fails too.
    if proc.returncode == 0 and runs and int(runs.group(1)) > 0:
        print(f"ok 1 - {name}: {runs.group(1)} executions in {seconds} s, no finding")
        return 0
    print(f"not ok 1 - {name}: exit status {proc.returncode}")
    return 1


sys.exit(main())
