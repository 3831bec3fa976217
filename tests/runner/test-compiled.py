"""The compiled languages and Ruby (issue 27), with Debian's toolchains, in
the sandbox mode SANDPAD_TEST_SANDBOX names (meson runs both).

Usage: test-compiled.py PATH-TO-SANDPAD-RUNNER LANGUAGE [TEST...]
Per language: a hello, a compile error (Ruby: a syntax error) on the right
line, a runtime error on its line, the time limit, a cached second run (and
a changed snippet that is not served from the cache), the compile step's
own time limit. A toolchain missing here skips (77) with its name. `missing`
(run alone): a toolchain hidden from the runner is named unavailable.
"""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
LANG = sys.argv[2]
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")

# hello, a compile error and its line, a runtime error and its line, a loop.
CASES = {
    "c": dict(
        hello='#include <stdio.h>\nint main(void) { puts("hello from C"); return 0; }\n',
        compile_error='#include <stdio.h>\nint main(void) {\n  int x = 1;\n  return y;\n}\n',
        compile_line=4,
        runtime_error='#include <assert.h>\n#include <stdlib.h>\nint main(void) {\n'
                      '  abort();\n}\n',
        runtime_line=None,  # a signal, no traceback: the run says SIGABRT
        loop='int main(void) { for (;;) ; }\n',
    ),
    "cpp": dict(
        hello='#include <iostream>\nint main() { std::cout << "hello from C++" << std::endl; }\n',
        compile_error='#include <vector>\nint main() {\n  std::vector<int> v;\n'
                      '  v.push_bakc(1);\n}\n',
        compile_line=4,
        runtime_error='#include <stdexcept>\nint main() {\n'
                      '  throw std::runtime_error("boom");\n}\n',
        runtime_line=None,
        loop='int main() { volatile int x = 0; for (;;) x++; }\n',
    ),
    "rust": dict(
        hello='fn main() { println!("hello from Rust"); }\n',
        compile_error='fn main() {\n    let x = 1;\n    println!("{}", y);\n}\n',
        compile_line=3,
        runtime_error='fn main() {\n    let v: Vec<i32> = Vec::new();\n'
                      '    println!("{}", v[3]);\n}\n',
        runtime_line=3,
        loop='fn main() { loop { std::thread::yield_now(); } }\n',
    ),
    "go": dict(
        hello='package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from Go") }\n',
        compile_error='package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(y)\n}\n',
        compile_line=6,
        runtime_error='package main\n\nfunc main() {\n\tvar a []int\n\t_ = a[5]\n}\n',
        runtime_line=5,
        loop='package main\n\nfunc main() {\n\tfor {\n\t}\n}\n',
    ),
    "typescript": dict(
        hello='const who: string = "TypeScript";\nconsole.log(`hello from ${who}`);\n',
        compile_error='const a: number = 1;\nconst b = a +;\n',
        compile_line=2,
        runtime_error='function f(): void {\n  throw new Error("boom");\n}\nf();\n',
        runtime_line=2,
        loop='while (true) {}\n',
    ),
    "ruby": dict(
        hello='puts "hello from Ruby"\n',
        compile_error='puts 1\ndef x(\n',
        compile_line=2,
        runtime_error='def f\n  raise ArgumentError, "bad"\nend\nf\n',
        runtime_line=2,
        loop='loop { }\n',
    ),
}
CASE = CASES[LANG]
COMPILED = LANG != "ruby"


def runner(cache, *args):
    return Runner(RUNNER, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict",
                  "--compile-cache", cache, *args)


def with_runner(fn, *args):
    cache = tempfile.mkdtemp(prefix="sandpad-compile-cache-")
    r = runner(cache, *args)
    try:
        ready = r.hello()
        names = [lang["name"] for lang in ready["languages"]]
        if LANG not in names:
            print(f"# {LANG}'s toolchain is not installed here: "
                  f"unavailable={ready.get('unavailable')}")
            sys.exit(77)
        return fn(r, cache)
    finally:
        r.close()
        shutil.rmtree(cache, ignore_errors=True)


def hello(t):
    def check(r, cache):
        res = r.run("h", CASE["hello"], language=LANG)
        t.eq(res.exited.get("exit_code"), 0, "hello exits 0", res)
        t.ok(res.stdout.startswith("hello from "), "hello prints", res)
        t.eq("compile" in res.exited, COMPILED, "compile step reported for compiled languages",
             res)
        if COMPILED:
            t.eq(res.exited["compile"]["cached"], False, "first run compiles", res)
    with_runner(check)


def compile_error(t):
    def check(r, cache):
        res = r.run("ce", CASE["compile_error"], language=LANG)
        err = res.exited.get("program_error")
        t.ok(res.exited["end"] == "exited" and res.exited["exit_code"] != 0,
             "a compile error fails the run", res)
        t.ok(err is not None, "it is a program_error", res)
        if err is not None:
            t.eq(err["line"], CASE["compile_line"], "on the snippet's line", res)
            t.ok(err["syntax"], "found before the program ran", res)
        if COMPILED:
            t.eq(res.exited["compile"]["failed"], True, "compile.failed", res)
            t.eq(res.stdout, "", "no program ran", res)
    with_runner(check)


def runtime_error(t):
    def check(r, cache):
        res = r.run("re", CASE["runtime_error"], language=LANG)
        t.ok(res.exited["end"] in ("exited", "signaled")
             and res.exited.get("exit_code", 1) != 0, "the program fails", res)
        if COMPILED:
            t.eq(res.exited["compile"]["failed"], False, "after a compile that worked", res)
        if CASE["runtime_line"] is not None:
            err = res.exited.get("program_error")
            t.ok(err is not None and err["line"] == CASE["runtime_line"],
                 f"program_error on line {CASE['runtime_line']}", res)
            t.ok(err is not None and not err.get("syntax", False), "not a compile error", res)
            if LANG == "go":
                # The trace names the snippet as ./main.go, never the
                # build folder (the compiler's -trimpath, runner-langs.c).
                text = res.stderr
                t.ok("./main.go:5" in text and "/main.go" not in text.replace("./main.go", ""),
                     "the trace names ./main.go, not the build folder", text[-400:])
        else:
            t.eq(res.exited["end"], "signaled", "ended by its signal", res)
    with_runner(check)


def timeout(t):
    def check(r, cache):
        # A short limit: the compile step keeps its own, CPU included (Go
        # compiles its runtime for seconds, once killed at the program's).
        res = r.run("to", CASE["loop"], language=LANG, timeout_ms=300)
        t.eq(res.exited.get("limit"), "time", "the program's time limit", res)
        if COMPILED:
            t.eq(res.exited["compile"]["failed"], False, "the compile was not what stopped", res)
    with_runner(check)


def cached(t):
    if not COMPILED:
        t.skip("ruby is interpreted: nothing to cache")
        return

    def check(r, cache):
        first = r.run("c1", CASE["hello"], language=LANG)
        second = r.run("c2", CASE["hello"], language=LANG)
        t.eq(first.exited["compile"]["cached"], False, "first run compiles", first)
        t.eq(second.exited["compile"]["cached"], True, "the same snippet comes from the cache",
             second)
        t.eq(second.stdout, first.stdout, "and prints the same", second)
        t.ok(len(os.listdir(cache)) >= 1, "the cache is the runner's directory")
        changed = r.run("c3", CASE["hello"].replace("hello from", "hi from"), language=LANG)
        t.eq(changed.exited["compile"]["cached"], False, "a changed snippet compiles again",
             changed)
        t.ok(changed.stdout.startswith("hi from"), "and runs as changed", changed)
        # A second runner over the same cache (sandpad-run's one-shots).
        other = runner(cache)
        try:
            other.hello()
            again = other.run("c4", CASE["hello"], language=LANG)
            t.eq(again.exited["compile"]["cached"], True, "another runner finds it", again)
        finally:
            other.close()
    with_runner(check)


def compile_timeout(t):
    if not COMPILED:
        t.skip("ruby is interpreted: no compile step")
        return

    def check(r, cache):
        res = r.run("ct", CASE["hello"], language=LANG, timeout_ms=60000)
        t.eq(res.exited.get("limit"), "compile_time", "the compile step's own limit", res)
        t.eq(res.exited["compile"]["failed"], True, "the run ended at the compile", res)
        t.eq(res.stdout, "", "no program ran", res)
    with_runner(check, "--compile-timeout-ms", "1")


def build_swap(t):
    """The build directory is held by the runner from when it makes it: a
    directory put in its place by name while the compile step runs is
    neither cached nor run as the snippet's program. The swap is made from
    outside (the harness, as an attacker with the runner's uid would), as
    soon as the compiler's output appears, in up to 40 tries."""
    if not COMPILED:
        t.skip("ruby is interpreted: no build directory")
        return
    import glob
    import threading
    parent = tempfile.mkdtemp(prefix="sandpad-build-swap-")
    os.chmod(parent, 0o755)
    stop = threading.Event()
    swapped = set()

    def swapper():
        while not stop.is_set():
            for out in glob.glob(os.path.join(parent, "sandpad-runner-*", "run-*", "build",
                                              "main")):
                build = os.path.dirname(out)
                if build in swapped:
                    continue
                try:
                    os.rename(build, build + ".real")
                    os.mkdir(build, 0o755)
                    planted = os.path.join(build, "main")
                    with open(planted, "w") as f:
                        f.write("#!/bin/sh\necho swapped\n")
                    os.chmod(planted, 0o755)
                    os.chmod(build, 0o755)
                except OSError:
                    pass
                swapped.add(build)
            time.sleep(0.0005)

    def check(r, cache):
        thread = threading.Thread(target=swapper, daemon=True)
        thread.start()
        results = []
        try:
            for i in range(40):
                code = CASE["hello"] + f"// try {i}\n"
                results.append((code, r.run(f"s{i}", code, language=LANG, timeout_ms=60000)))
                if sum("hello from" not in res.stdout for _, res in results) >= 5:
                    break
        finally:
            stop.set()
            thread.join()
        landed = [(code, res) for code, res in results if "hello from" not in res.stdout]
        t.ok(not any("swapped" in res.stdout for _, res in results),
             f"{MODE}: no run ran the program planted in its build directory's place "
             f"({len(landed)} of {len(results)} swaps landed before the program step)",
             [res.exited for _, res in landed][:3])
        if landed:
            res = landed[0][1]
            print(f"# a landed swap: stdout={res.stdout!r} exited={res.exited!r}"[:600])
        if not landed:
            t.skip("no swap landed between the compile and the program step here")
            return
        # What the cache now gives for those snippets is their own program.
        again = [r.run(f"a{i}", code, language=LANG) for i, (code, _) in enumerate(landed)]
        t.ok(all(res.stdout.startswith("hello from ") for res in again),
             f"{MODE}: the cache holds the snippets' own programs, not the planted one",
             [res.stdout for res in again])

    try:
        with_runner(check, "--work-parent", parent)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def missing(t):
    """A toolchain that is missing is named, not hidden: the runner started
    where LANG's compiler (or interpreter) cannot be found lists LANG in
    ready's unavailable, a run of it is refused with unsupported_language
    naming the Debian package, and sandpad-run says the same and exits 125.
    The toolchain is hidden by bwrap (/dev/null, not executable, over each
    path the runner looks at); the control is the same bwrap without it.
    --interpreter LANG=/nonexistent is refused at start, saying why."""
    import json
    import subprocess
    paths = {"c": ["/usr/bin/gcc", "/usr/local/bin/gcc"],
             "cpp": ["/usr/bin/g++", "/usr/local/bin/g++"],
             "rust": ["/usr/bin/rustc"], "go": ["/usr/bin/go", "/usr/lib/go/bin/go"],
             "typescript": ["/usr/bin/esbuild"],
             "ruby": ["/usr/bin/ruby", "/usr/local/bin/ruby"]}[LANG]
    package = {"c": "gcc", "cpp": "g++", "rust": "rustc", "go": "golang-go",
               "typescript": "esbuild", "ruby": "ruby"}[LANG]
    bwrap = shutil.which("bwrap")
    if bwrap is None or not any(os.access(p, os.X_OK) for p in paths):
        t.skip(f"needs bwrap and {LANG}'s toolchain (for the control): not both here")
        return
    # Fallback mode inside an unnested user namespace, as the Flatpak case
    # runs; namespace mode as root in a bwrap mount namespace.
    wrap = [bwrap, "--dev-bind", "/", "/"]
    if MODE == "fallback" or os.geteuid() != 0:
        wrap[1:1] = ["--unshare-user", "--disable-userns"]
    # Over what each path resolves to: newer bwrap (Debian 13's) cannot
    # mount on a symlink, and /usr/bin/gcc is one (to gcc-14).
    targets = sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})
    hide = [arg for p in targets for arg in ("--ro-bind", "/dev/null", p)]
    mode = "auto" if "--unshare-user" in wrap else MODE

    def start(hidden):
        cache = tempfile.mkdtemp(prefix="sandpad-compile-cache-")
        cmd = wrap + (hide if hidden else []) + ["--", RUNNER, "--sandbox", mode,
                                                 "--compile-cache", cache]
        r = Runner(cmd[0], *cmd[1:])
        return r, r.hello(), cache

    r, ready, cache = start(False)
    try:
        names = [lang["name"] for lang in ready["languages"]]
        t.ok(LANG in names and LANG not in ready.get("unavailable", []),
             f"control: the same wrapper without hiding it lists {LANG}", ready)
    finally:
        r.close()
        shutil.rmtree(cache, ignore_errors=True)

    r, ready, cache = start(True)
    try:
        names = [lang["name"] for lang in ready["languages"]]
        t.ok(LANG not in names, f"{LANG} is not offered without its toolchain", names)
        t.ok(LANG in ready.get("unavailable", []), f"ready names {LANG} as unavailable",
             ready.get("unavailable"))
        t.ok("python" in names, "the other languages stay", names)
        r.send(type="run", id="m", language=LANG, code=CASE["hello"])
        ev = r.recv_type("error")
        t.ok(ev is not None and ev.get("id") == "m" and ev.get("code") == "unsupported_language"
             and f'language "{LANG}" is unavailable' in ev.get("message", "")
             and f"(Debian package {package})" in ev.get("message", ""),
             "a run of it is refused with unsupported_language, naming the package", ev)
    finally:
        r.close()
        shutil.rmtree(cache, ignore_errors=True)

    # sandpad-run (the same engine in process) beside the runner, hidden alike.
    sandpad_run = os.path.join(os.path.dirname(RUNNER), "sandpad-run")
    src = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    try:
        src.write(CASE["hello"])
        src.close()
        os.chmod(src.name, 0o644)
        proc = subprocess.run(wrap + hide + ["--", sandpad_run, "--sandbox", mode, "--json",
                                             "--lang", LANG, src.name],
                              capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, SANDPAD_NO_DAEMON="1"))
        said = proc.stderr + proc.stdout
        t.ok(proc.returncode == 125 and f'language "{LANG}" is unavailable' in said
             and package in said,
             f"sandpad-run --lang {LANG} says it is unavailable and exits 125",
             f"status {proc.returncode}: {said[-600:]}")
        events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        t.ok(not any(e.get("type") == "output" for e in events), "and nothing ran", events)
    finally:
        os.unlink(src.name)

    # A wrong --interpreter is refused at start, saying what was wrong.
    proc = subprocess.run([RUNNER, "--interpreter", f"{LANG}=/nonexistent"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60)
    t.ok(proc.returncode != 0 and f"--interpreter {LANG}=/nonexistent" in proc.stderr
         and "not an executable absolute path" in proc.stderr,
         "--interpreter LANG=/nonexistent is refused at start, saying why",
         f"status {proc.returncode}: {proc.stderr[-400:]}")


if __name__ == "__main__":
    tests = {f.__name__: f for f in (hello, compile_error, runtime_error, timeout, cached,
                                      compile_timeout, build_swap, missing)}
    main([tests[n] for n in sys.argv[3:]] if len(sys.argv) > 3
         else [hello, compile_error, runtime_error, timeout, cached, compile_timeout])
