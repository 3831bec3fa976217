"""The compiled languages and Ruby (issue 27), with Debian's toolchains, in
the sandbox mode SANDPAD_TEST_SANDBOX names (meson runs both).

Usage: test-compiled.py PATH-TO-SANDPAD-RUNNER LANGUAGE [TEST...]
Per language: a hello, a compile error (Ruby: a syntax error) on the right
line, a runtime error on its line, the time limit, a cached second run (and
a changed snippet that is not served from the cache), the compile step's
own time limit. A toolchain missing here skips (77) with its name. `missing`
(run alone): a toolchain hidden from the runner is named unavailable.
`poisoned` and `tampered` (run alone, issue 37): a snippet compiled with a
planted header or flags is never what a later run of it gets, and an entry
changed on disk is not run.
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
    # Issue 42: R through the runner's driver (a parse error is found
    # before anything runs), Java through the JDK's source launcher.
    "r": dict(
        hello='cat("hello from R\\n")\n',
        compile_error='x <- 1\nx y\n',
        compile_line=2,
        runtime_error='f <- function() {\n  stop("boom")\n}\nf()\n',
        runtime_line=2,
        loop='repeat {}\n',
    ),
    "java": dict(
        hello='public class Main {\n  public static void main(String[] a) {\n'
              '    System.out.println("hello from Java");\n  }\n}\n',
        compile_error='public class Main {\n  public static void main(String[] a) {\n'
                      '    int x = "s";\n  }\n}\n',
        compile_line=3,
        runtime_error='public class Main {\n  static void f() {\n'
                      '    throw new IllegalStateException("boom");\n  }\n'
                      '  public static void main(String[] a) {\n    f();\n  }\n}\n',
        runtime_line=3,
        loop='public class Main { public static void main(String[] a) { while (true) {} } }\n',
    ),
}
CASE = CASES[LANG]
COMPILED = LANG not in ("ruby", "r", "java")


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


def phases(res):
    """The run's phase events as (phase, timeout_ms), and the event types
    in order (issue 38)."""
    return ([(e["phase"], e["timeout_ms"]) for e in res.events if e["type"] == "phase"],
            [e["type"] if e["type"] != "phase" else "phase:" + e["phase"] for e in res.events
             if e["type"] in ("phase", "started", "exited")])


def hello(t):
    def check(r, cache):
        res = r.run("h", CASE["hello"], language=LANG, timeout_ms=20000)
        t.eq(res.exited.get("exit_code"), 0, "hello exits 0", res)
        t.ok(res.stdout.startswith("hello from "), "hello prints", res)
        t.eq("compile" in res.exited, COMPILED, "compile step reported for compiled languages",
             res)
        # Each step said as it starts, with its own limit: the compile
        # step's (the runner's, 60 s by default) just before started, the
        # program's (the request's) after the compile.
        said, order = phases(res)
        if COMPILED:
            t.eq(res.exited["compile"]["cached"], False, "first run compiles", res)
            t.eq(said, [("compile", 60000), ("run", 20000)], "phase: compile, then run", res)
            t.eq(order, ["phase:compile", "started", "phase:run", "exited"],
                 "phase: compile comes just before started", res)
        else:
            t.eq(said, [], "phase: none for an interpreted language", res)
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
            t.eq(phases(res)[0], [("compile", 60000)], "phase: compile, and no run", res)
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
        t.skip(f"{LANG} is interpreted: nothing to cache")
        return

    def check(r, cache):
        first = r.run("c1", CASE["hello"], language=LANG)
        second = r.run("c2", CASE["hello"], language=LANG)
        t.eq(first.exited["compile"]["cached"], False, "first run compiles", first)
        t.eq(second.exited["compile"]["cached"], True, "the same snippet comes from the cache",
             second)
        t.eq(phases(second)[0], [], "phase: none for a program from the cache", second)
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
        t.skip(f"{LANG} is interpreted: no compile step")
        return

    def check(r, cache):
        res = r.run("ct", CASE["hello"], language=LANG, timeout_ms=60000)
        t.eq(res.exited.get("limit"), "compile_time", "the compile step's own limit", res)
        t.eq(phases(res)[0], [("compile", 1)], "phase: the compile step's own limit", res)
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
        t.skip(f"{LANG} is interpreted: no build directory")
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


# The compile cache's attack (issue 37): one client compiles snippet V
# with a planted header or flags (a request's env, files in its cwd); a
# later clean run of the same V, by anyone sharing the cache, must get V's
# own program. "files" land in the attacker's cwd; "env" goes with both
# attack runs (with that cwd, and without one, as an MCP client's env
# alone would); "host" compiles V outside the runner with the attack, the
# control that the payload does change the program when a compiler sees it.
POISON = {
    "c": dict(
        code='#include <stdio.h>\nint main(void) { puts("clean"); return 0; }\n',
        env={"CPATH": "inc"},
        files={"inc/stdio.h": '#include_next <stdio.h>\n#define puts(s) puts("planted")\n'},
        host=["/usr/bin/gcc", "-x", "c", "-o", "{out}", "{src}"],
    ),
    "cpp": dict(
        code='#include <cstdio>\nint main() { std::puts("clean"); }\n',
        env={"CPLUS_INCLUDE_PATH": "inc"},
        files={"inc/cstdio": '#include_next <cstdio>\n#define puts(s) puts("planted")\n'},
        host=["/usr/bin/g++", "-x", "c++", "-o", "{out}", "{src}"],
    ),
    # rustc reads no RUSTFLAGS itself (cargo does), but a snippet reads
    # the compiler's environment with option_env!.
    "rust": dict(
        code='fn main() {\n    if cfg!(evil) || option_env!("RUSTFLAGS").map_or(false, '
             '|f| f.contains("evil")) {\n        println!("planted");\n    } else {\n'
             '        println!("clean");\n    }\n}\n',
        env={"RUSTFLAGS": "--cfg evil"},
        files={},
        host=["/usr/bin/rustc", "-o", "{out}", "{src}"],
    ),
    "go": dict(
        code='package main\n\nimport "fmt"\n\nvar v = "clean"\n\nfunc main() { fmt.Println(v) }\n',
        env={"GOFLAGS": "-ldflags=-X=main.v=planted"},
        files={},
        host=["/usr/bin/go", "build", "-o", "{out}", "{src}"],
        host_env={"GO111MODULE": "off", "CGO_ENABLED": "0", "GOCACHE": "{tmp}/go-cache"},
    ),
    # esbuild reads a tsconfig.json beside the source (and above it): with
    # useDefineForClassFields the field below is defined over the
    # inherited accessor instead of assigned through it.
    "typescript": dict(
        code='class Base {\n  get who(): string { return "clean"; }\n  set who(_v: string) {}\n}\n'
             'class A extends Base {\n  who = "planted";\n}\nconsole.log(new A().who);\n',
        env={"NODE_PATH": "."},
        files={"tsconfig.json": '{"compilerOptions": {"useDefineForClassFields": true}}\n'},
        host=["/usr/bin/esbuild", "{src}", "--outfile={out}", "--format=cjs", "--platform=node"],
        runtime="/usr/bin/node",
    ),
}
EXT = {"c": "c", "cpp": "cpp", "rust": "rs", "go": "go", "typescript": "ts"}


def give_to_runs(path):
    """A root runner's programs are nobody: a cwd must be theirs."""
    if os.geteuid() != 0:
        return
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
            os.chown(name, 65534, 65534)


def host_compile(p, src_dir, tmp):
    """V compiled outside any sandbox in src_dir, with the attack's env and
    files there: what it prints, or None when this host cannot say."""
    import subprocess
    src = os.path.join(src_dir, "main." + EXT[LANG])
    out = os.path.join(tmp, "host-out" + (".js" if LANG == "typescript" else ""))
    argv = [a.replace("{src}", src).replace("{out}", out) for a in p["host"]]
    env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8"}
    env.update({k: v.replace("{tmp}", tmp) for k, v in p.get("host_env", {}).items()})
    env.update(p["env"])
    if not os.access(argv[0], os.X_OK):
        return None
    done = subprocess.run(argv, cwd=src_dir, env=env, capture_output=True, text=True,
                          timeout=240)
    if done.returncode != 0:
        return f"compile failed: {done.stderr[-400:]}"
    run = [p["runtime"], out] if "runtime" in p else [out]
    return subprocess.run(run, capture_output=True, text=True, timeout=60).stdout


def typescript_poison(p):
    """The TypeScript case against this host's esbuild: its default for
    useDefineForClassFields changed (0.17, Debian 12: assign, so V prints
    "clean"; 0.25, Debian 13: define, and V as written printed "planted"
    with no tsconfig at all, so the control failed). The attack's tsconfig
    sets the other value, and V's two strings follow the default, so V's
    own program prints "clean" and the attack's "planted" on either."""
    import subprocess
    tmp = tempfile.mkdtemp(prefix="sandpad-poison-default-")
    try:
        with open(os.path.join(tmp, "main.ts"), "w") as f:
            f.write(p["code"])
        said = host_compile(dict(p, env={}), tmp, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if said is None or said.strip() != "planted":
        return p
    swapped = p["code"].replace('"clean"', '"@"').replace('"planted"', '"clean"').replace(
        '"@"', '"planted"')
    return dict(p, code=swapped,
                files={"tsconfig.json": '{"compilerOptions": {"useDefineForClassFields": false}}\n'})


def poisoned(t):
    """V compiled with a planted header or flags never reaches a later run
    of V: the same runner's, another runner's over the same cache (started
    with the attack's variables in its own environment) and sandpad-run's
    with another project as its cwd. Controls: an empty cache gives V's
    clean program; V compiled outside the runner with the attack gives
    the planted one."""
    if not COMPILED:
        t.skip(f"{LANG} is interpreted: nothing to cache")
        return
    import subprocess
    p = POISON[LANG]
    if LANG == "typescript":
        p = typescript_poison(p)
    base = tempfile.mkdtemp(prefix="sandpad-poison-")
    os.chmod(base, 0o755)
    try:
        cache_home = os.path.join(base, "cache")
        cache = os.path.join(cache_home, "sandpad", "compiled")
        attack = os.path.join(base, "attack")
        project = os.path.join(base, "projB")
        os.mkdir(project)
        for name, text in p["files"].items():
            path = os.path.join(attack, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        os.makedirs(attack, exist_ok=True)
        src = os.path.join(project, "main." + EXT[LANG])
        with open(src, "w") as f:
            f.write(p["code"])
        give_to_runs(attack)
        give_to_runs(project)

        # Control: the payload is real. V beside the planted files, built
        # by the same compiler outside the runner with the attack's env.
        host_tmp = tempfile.mkdtemp(prefix="sandpad-poison-host-")
        try:
            shutil.copy(src, os.path.join(attack, os.path.basename(src)))
            said = host_compile(p, attack, host_tmp)
            os.unlink(os.path.join(attack, os.path.basename(src)))
        finally:
            shutil.rmtree(host_tmp, ignore_errors=True)
        if said is None:
            t.skip(f"control: {p['host'][0]} is not here to compile V outside the runner")
        else:
            t.eq(said.strip(), "planted", "control: outside the runner, the attack changes V's "
                 "program", said)

        def check(r, empty):
            clean = r.run("clean", p["code"], language=LANG, timeout_ms=60000)
            t.eq(clean.stdout.strip(), "clean", f"{MODE}: control: an empty cache gives V's own "
                 "program", clean)
        with_runner(check)

        r = runner(cache, "--allow-cwd", base)
        try:
            r.hello()
            with_cwd = r.run("atk1", p["code"], language=LANG, cwd=attack, env=p["env"],
                             timeout_ms=60000)
            print(f"# the attack with its cwd printed {with_cwd.stdout!r}, compile "
                  f"{with_cwd.exited.get('compile')}")
            # What a compile with a named cwd saw is not all in the key:
            # it neither reads nor fills the cache.
            t.eq(with_cwd.exited["compile"]["cached"], False, "a run with a named cwd compiles",
                 with_cwd)
            t.eq([n for n in os.listdir(cache) if len(n) == 64], [],
                 "and leaves nothing in the cache")
            env_only = r.run("atk2", p["code"], language=LANG, env=p["env"], timeout_ms=60000)
            print(f"# the attack's env alone printed {env_only.stdout!r}, compile "
                  f"{env_only.exited.get('compile')}")
            later = r.run("later", p["code"], language=LANG, timeout_ms=60000)
            t.eq(later.stdout.strip(), "clean", f"{MODE}: a later clean run of V by the same "
                 "runner gets V's own program", later)
        finally:
            r.close()

        # Another runner over the cache, the attack's variables (absolute)
        # in its own environment: the compile step never takes them.
        own = {k: (os.path.join(attack, v) if k != "GOFLAGS" and k != "RUSTFLAGS" else v)
               for k, v in p["env"].items()}
        r = Runner(RUNNER, "--sandbox", MODE, "--strict", "--compile-cache", cache,
                   env=dict(os.environ, **own))
        try:
            r.hello()
            other = r.run("other", p["code"], language=LANG, timeout_ms=60000)
            t.eq(other.stdout.strip(), "clean", f"{MODE}: another runner over the same cache, "
                 "with the attack's variables in its own environment, gets V's own program",
                 other)
            t.eq(other.exited["compile"]["cached"], True, f"{MODE}: from the cache (a clean "
                 "run's entry)", other)
        finally:
            r.close()

        # sandpad-run --cwd projB main.EXT, its cache the same directory.
        sandpad_run = os.path.join(os.path.dirname(RUNNER), "sandpad-run")
        done = subprocess.run([sandpad_run, "--sandbox", MODE, "--strict", "--cwd", project,
                               "--timeout", "60", src],
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, SANDPAD_NO_DAEMON="1",
                                       XDG_CACHE_HOME=cache_home))
        t.eq(done.stdout.strip(), "clean", f"{MODE}: sandpad-run --cwd projB on V gets V's own "
             "program", f"status {done.returncode}: {done.stderr[-600:]}")
        done = subprocess.run([sandpad_run, "--sandbox", MODE, "--strict", "--timeout", "60",
                               src],
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, SANDPAD_NO_DAEMON="1",
                                       XDG_CACHE_HOME=cache_home))
        t.eq(done.stdout.strip(), "clean", f"{MODE}: sandpad-run on V in a private directory "
             "(served by the cache) gets V's own program",
             f"status {done.returncode}: {done.stderr[-600:]}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def tampered(t):
    """An entry changed on disk (as the cache's owner would find it: the
    program's text edited in place, or cut short) is not run: the run
    compiles again, and its entry replaces the bad one."""
    if not COMPILED:
        t.skip(f"{LANG} is interpreted: nothing to cache")
        return

    def entries(cache):
        return [os.path.join(cache, n) for n in os.listdir(cache) if len(n) == 64]

    def check(r, cache):
        first = r.run("t1", CASE["hello"], language=LANG, timeout_ms=60000)
        t.eq(first.exited["compile"]["cached"], False, "first run compiles", first)
        found = entries(cache)
        t.eq(len(found), 1, "one entry in the cache", os.listdir(cache))
        if len(found) != 1:
            return
        with open(found[0], "rb") as f:
            data = f.read()
        t.ok(b"hello from" in data, "the entry holds the program's text")
        with open(found[0], "r+b") as f:
            f.write(data.replace(b"hello from", b"HACKD from"))
        edited = r.run("t2", CASE["hello"], language=LANG, timeout_ms=60000)
        t.ok("HACKD" not in edited.stdout and edited.stdout.startswith("hello from"),
             f"{MODE}: an entry edited in place is not run", edited)
        t.eq(edited.exited["compile"]["cached"], False, "it is a miss: the snippet compiles",
             edited)
        with open(found[0], "rb") as f:
            t.ok(b"HACKD" not in f.read(), "and the new program replaced the entry")
        again = r.run("t3", CASE["hello"], language=LANG, timeout_ms=60000)
        t.ok(again.exited["compile"]["cached"] and again.stdout.startswith("hello from"),
             "the replaced entry is served", again)

        os.truncate(found[0], os.path.getsize(found[0]) // 2)
        cut = r.run("t4", CASE["hello"], language=LANG, timeout_ms=60000)
        t.ok(cut.stdout.startswith("hello from") and not cut.exited["compile"]["cached"],
             f"{MODE}: an entry cut short is not run: the snippet compiles", cut)
        again = r.run("t5", CASE["hello"], language=LANG, timeout_ms=60000)
        t.ok(again.exited["compile"]["cached"] and again.stdout.startswith("hello from"),
             "and its entry is served next", again)
    with_runner(check)


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
             "ruby": ["/usr/bin/ruby", "/usr/local/bin/ruby"],
             "r": ["/usr/bin/Rscript", "/usr/local/bin/Rscript"],
             "java": ["/usr/lib/jvm/default-java/bin/java", "/usr/bin/java"]}[LANG]
    package = {"c": "gcc", "cpp": "g++", "rust": "rustc", "go": "golang-go",
               "typescript": "esbuild", "ruby": "ruby", "r": "r-base-core",
               "java": "default-jdk-headless"}[LANG]
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


def r_values(t):
    """R as Rscript runs a file (issue 42): a visible top-level value is
    printed, an invisible one is not, a warning is said as it comes and
    the run goes on, commandArgs(TRUE) is the run's arguments alone; a
    plot is a PNG file, as a matplotlib figure; readline() reads the
    run's input; an error inside a function names that function and the
    line within it."""
    if LANG != "r":
        t.skip("R's own surface")
        return

    def check(r, cache):
        res = r.run("v", 'x <- c(1, 2)\nx * 2\ninvisible(7)\nwarning("careful")\n'
                    'print(commandArgs(TRUE))\ncat("end\\n")\n', language="r",
                    args=["one", "two"], timeout_ms=30000)
        t.eq(res.exited.get("exit_code"), 0, "the run ends well", res)
        t.eq(res.stdout, '[1] 2 4\n[1] "one" "two"\nend\n',
             "the visible value printed, the invisible not, the arguments alone", res)
        t.ok("Warning: careful" in res.stderr, "the warning said", res.stderr)
        res = r.run("p", 'plot(1:10, main = "ten")\nhist(c(1, 2, 2, 3))\n', language="r",
                    timeout_ms=30000)
        files = sorted((f["path"], f["mime"]) for f in res.exited.get("files", []))
        t.eq(files, [("plot-1.png", "image/png"), ("plot-2.png", "image/png")],
             "each page a plot draws is a plot-N.png the run created, not Rplots.pdf", res)
        # readline() waits for the run's input (Rscript's answers "" at
        # once), and the input is never read as code (R reads commands
        # from stdin when -e is too long for it).
        res = r.run("i", 'name <- readline("name? ")\nage <- readline("age? ")\n'
                    'cat("hi", name, age, "\\n")\nmore <- readline()\ncat("[", more, "]\\n")\n',
                    language="r", stdin="Ada\n36\n", timeout_ms=30000)
        t.eq((res.stdout, res.exited.get("exit_code")),
             ("name? age? hi Ada 36 \n[  ]\n", 0),
             "readline() reads the run's stdin line by line, then \"\" at its end", res)
        res = r.run("e", 'g <- function(n) {\n  if (n > 1) {\n    stop("too big: ", n)\n  }\n}\n'
                    'h <- function() g(2)\nh()\n', language="r", timeout_ms=30000)
        # R knows where each statement of a block starts (its srcref),
        # not where in a statement: stop() has a line of its own here.
        err = res.exited.get("program_error")
        t.ok(err is not None and err["line"] == 3 and err["message"] == "too big: 2",
             "the error's line is inside g, its message R's", res)
        frames = [(f["line"], f.get("function")) for f in (err or {}).get("frames", [])]
        t.eq(frames, [(7, None), (6, "h"), (3, "g")], "its frames from the top level in", res)
    with_runner(check)


def java_exceptions(t):
    """Java (issue 42): an exception with a cause is located at the cause's
    line, not the launcher's own Main.java; the class need not be called
    Main; standard input reaches the program."""
    if LANG != "java":
        t.skip("Java's own surface")
        return

    def check(r, cache):
        res = r.run("c", 'public class Demo {\n  static void inner() {\n'
                    '    throw new IllegalArgumentException("deep");\n  }\n'
                    '  public static void main(String[] a) {\n'
                    '    try { inner(); } catch (Exception e) {\n'
                    '      throw new RuntimeException("wrapped", e);\n    }\n  }\n}\n',
                    language="java", timeout_ms=30000)
        err = res.exited.get("program_error")
        t.ok(err is not None and err["line"] == 3
             and err["type"] == "java.lang.IllegalArgumentException"
             and err["message"] == "deep", "the cause, on its line", res)
        t.ok(err is not None and not any("launcher" in (f.get("function") or "")
                                         for f in err["frames"]),
             "none of the launcher's frames", err)
        res = r.run("i", 'import java.util.Scanner;\npublic class Echo {\n'
                    '  public static void main(String[] a) {\n'
                    '    System.out.println("got " + new Scanner(System.in).nextLine());\n'
                    '  }\n}\n', language="java", stdin="typed\n", timeout_ms=30000)
        t.eq(res.stdout, "got typed\n", "standard input reaches it", res)
    with_runner(check)


if __name__ == "__main__":
    tests = {f.__name__: f for f in (hello, compile_error, runtime_error, timeout, cached,
                                      compile_timeout, build_swap, missing, poisoned,
                                      tampered, r_values, java_exceptions)}
    default = [hello, compile_error, runtime_error, timeout, cached, compile_timeout]
    default += [r_values] if LANG == "r" else [java_exceptions] if LANG == "java" else []
    main([tests[n] for n in sys.argv[3:]] if len(sys.argv) > 3 else default)
