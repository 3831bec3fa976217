"""The escape probes: small Python programs that each try one way out.

Every probe prints "ESCAPED: ..." and exits 0 when its escape worked, or
"BLOCKED: ..." and exits 1 when it did not, so "the probe ran and was
stopped" is told apart from "the probe never ran". Kernel probes call a
denied system call with harmless or invalid arguments (bubblewrap's
try-syscall idea): an errno like EBADF or EFAULT means the call reached the
kernel, EPERM or ENOSYS means the filter stopped it.

Resource probes instead name the limit that must stop them (`limit`; a
probe that saw the kernel refuse the resource itself, e.g. ENOSPC from a
size-capped filesystem, prints BLOCKED instead), and lingering probes leave
a ticking process behind (`lingers`) holding a lock on ./alive, which the
harness waits to see released. Probes with
a `check` do their part and print "DONE:"; the harness then looks for the
effect itself (what a run left behind, a harmed process, a setuid bit), so
the verdict is the kernel's state, not the probe's word. Targets outside
the sandbox (a secret file, servers, a process, files and IPC objects
owned by the run's uid) come in SANDPAD_PROBE_* variables set by the
harness.
"""

PRELUDE = r'''
import ctypes, errno, os, signal, socket, sys, time
E = os.environ
libc = ctypes.CDLL(None, use_errno=True)
FILTERED = (errno.EPERM, errno.ENOSYS, errno.EACCES)

def escaped(detail=""):
    print("ESCAPED:", detail, flush=True)
    sys.exit(0)

def blocked(detail=""):
    print("BLOCKED:", detail, flush=True)
    sys.exit(1)

def attempt(what, fn):
    try:
        result = fn()
    except Exception as e:
        blocked(f"{what}: {type(e).__name__}: {e}")
    escaped(f"{what}: {str(result)[:80]}")

def done(detail=""):
    """For probes with a harness check: the act is done; the harness judges."""
    print("DONE:", detail, flush=True)
    sys.exit(0)

def refused(e, *errnos):
    """Blocked by the resource itself (a full filesystem, no memory)."""
    if isinstance(e, MemoryError) or getattr(e, "errno", None) in errnos:
        blocked(f"{type(e).__name__}: {e}")
    raise e

def rss_kib(pid="self", field="VmRSS"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0

def hold_alive_lock():
    """For lingering probes: the ticker holds flock(LOCK_EX) on ./alive for
    as long as it lives; the harness waits for the lock to be free (every
    holder dead) instead of watching for ticks for a while."""
    import fcntl
    global _alive
    _alive = open("alive", "w")
    fcntl.flock(_alive, fcntl.LOCK_EX)

def wait_for_ticks(timeout=8):
    """Until the ticker (which locks first) has ticked, so the harness's
    verdict is about a process that surely started."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not os.path.exists("ticks"):
        time.sleep(0.01)

def syscall_reaches(nr, *args):
    r = libc.syscall(nr, *args)
    err = ctypes.get_errno()
    if r == -1 and err in FILTERED:
        blocked(f"syscall {nr}: {os.strerror(err)}")
    escaped(f"syscall {nr} reached the kernel: {r} {os.strerror(err) if r == -1 else ''}")
'''


def P(name, why, code, limit=None, lingers=False, needs_root=False, nobody_control=False,
      setuid=False, extra_fd=False, check=None, memory=256, disk=64, timeout=3, own_dir=False,
      only=None, needs=None, lang="python", many_entries=False):
    """One probe. check: a harness check of the effect after the run (see
    test-escape.py). memory, disk, timeout: the run's limits. own_dir: run
    in the runner's fresh private directory instead of --cwd DIR. only: the
    sandbox kinds ("namespaces", "fallback") where the probe means
    something. needs: a host feature the control needs (see the harness).
    lang: "python" (after PRELUDE) or "c" (after C_PRELUDE: compiled by
    the runner in its sandbox, by gcc for the control). many_entries: the
    control makes hundreds of thousands of directory entries, so it runs
    in a folder in memory (see the harness's run_control)."""
    return dict(name=name, why=why, code=code, limit=limit, lingers=lingers,
                needs_root=needs_root, nobody_control=nobody_control, setuid=setuid,
                extra_fd=extra_fd, check=check, memory=memory, disk=disk, timeout=timeout,
                own_dir=own_dir, only=only, needs=needs, lang=lang, many_entries=many_entries)


PROBES = [
    # ---- filesystem ----
    P("fs-01-secret-file", "a user secret outside the workdir: mount ns / Landlock",
      "attempt('read', lambda: open(E['SANDPAD_PROBE_SECRET_FILE']).read())"),
    P("fs-02-secret-dir", "list a private directory outside: mount ns / Landlock",
      "attempt('list', lambda: os.listdir(E['SANDPAD_PROBE_SECRET_DIR']))"),
    P("fs-03-etc-shadow", "/etc/shadow: uid + mount ns / Landlock",
      "attempt('read', lambda: open('/etc/shadow').read(10))", needs_root=True),
    P("fs-04-list-root-home", "list /root: mount ns / Landlock",
      "attempt('list', lambda: os.listdir('/root'))", needs_root=True),
    P("fs-05-write-outside", "write next to the workdir: mount ns / Landlock",
      "p = E['SANDPAD_PROBE_OUTSIDE_DIR'] + '/written'\n"
      "attempt('write', lambda: (open(p, 'w').write('x'), os.unlink(p)))"),
    P("fs-06-write-usr", "write into /usr: read-only bind / Landlock",
      "p = '/usr/local/sandpad-probe'\n"
      "attempt('write', lambda: (open(p, 'w').write('x'), os.unlink(p)))", needs_root=True),
    P("fs-07-write-etc", "write into /etc: read-only root / Landlock",
      "p = '/etc/sandpad-probe'\n"
      "attempt('write', lambda: (open(p, 'w').write('x'), os.unlink(p)))", needs_root=True),
    P("fs-08-write-var-tmp", "write the shared /var/tmp: not mounted / Landlock",
      "p = '/var/tmp/sandpad-probe-%d' % os.getpid()\n"
      "attempt('write', lambda: (open(p, 'w').write('x'), os.unlink(p)))"),
    P("fs-09-symlink-secret", "a symlink in the workdir to a secret: Landlock checks the target",
      "os.symlink(E['SANDPAD_PROBE_SECRET_FILE'], 'link')\n"
      "attempt('read via symlink', lambda: open('link').read())"),
    P("fs-10-hardlink-secret", "a hard link to a secret: mount ns / Landlock (REFER, MAKE_REG)",
      "attempt('link', lambda: (os.link(E['SANDPAD_PROBE_SECRET_FILE'], 'hard'), open('hard').read()))"),
    P("fs-11-proc-target-environ", "/proc/<pid>/environ of another process: pid ns / Landlock ptrace",
      "attempt('read', lambda: open('/proc/%s/environ' % E['SANDPAD_PROBE_TARGET_PID'], 'rb').read())"),
    P("fs-12-proc-target-mem", "/proc/<pid>/mem of another process: pid ns / ptrace checks",
      "attempt('open', lambda: open('/proc/%s/mem' % E['SANDPAD_PROBE_TARGET_PID'], 'r+b'))"),
    P("fs-13-proc-target-root", "the host root through /proc/<pid>/root: pid ns / ptrace checks",
      "attempt('list', lambda: os.listdir('/proc/%s/root/' % E['SANDPAD_PROBE_TARGET_PID']))"),
    P("fs-14-proc-target-cwd", "another process's cwd through /proc: pid ns / ptrace checks",
      "attempt('list', lambda: os.listdir('/proc/%s/cwd/' % E['SANDPAD_PROBE_TARGET_PID']))"),
    P("fs-15-mknod", "create a device node: no CAP_MKNOD / Landlock MAKE_CHAR",
      "import stat\n"
      "attempt('mknod', lambda: os.mknod('null2', stat.S_IFCHR | 0o666, os.makedev(1, 3)))",
      needs_root=True),
    P("fs-16-setuid", "gain root through a setuid binary in the workdir: nosuid + no_new_privs",
      "import subprocess\n"
      "out = subprocess.run(['./suid-id', '-u'], capture_output=True, text=True)\n"
      "if out.stdout.strip() == '0': escaped('euid 0')\n"
      "blocked('euid ' + out.stdout.strip() + out.stderr.strip()[:60])",
      needs_root=True, nobody_control=True, setuid=True),
    P("fs-17-autostart", "plant an autostart entry to run later, outside: not mounted / Landlock",
      "d = E['SANDPAD_PROBE_OUTSIDE_DIR'] + '/.config/autostart'  # made by the harness\n"
      "def plant():\n"
      "    open(d + '/x.desktop', 'w').write('[Desktop Entry]\\n')\n"
      "    os.unlink(d + '/x.desktop')\n"
      "attempt('plant', plant)"),
    P("fs-18-host-tmp", "see the host's /tmp: private /tmp / Landlock",
      "attempt('find marker', lambda: open('/tmp/' + E['SANDPAD_PROBE_TMP_MARKER']).read())"),
    P("fs-19-other-run", "another run's files (a directory like a run's, open to all): Landlock / mount ns",
      "p = E['SANDPAD_PROBE_OTHER_RUN'] + '/secret.txt'\n"
      "attempt('read and write', lambda: (open(p).read(), open(p, 'a').write('x')))"),
    # ---- network ----
    P("net-01-tcp-localhost", "a TCP service on the host's 127.0.0.1: net ns / Landlock TCP / seccomp",
      "def talk():\n"
      "    s = socket.create_connection(('127.0.0.1', int(E['SANDPAD_PROBE_TCP_PORT'])), 2)\n"
      "    return s.recv(4)\n"
      "attempt('connect', talk)"),
    P("net-02-udp-localhost", "UDP to the host (DNS-style exfiltration): net ns / seccomp",
      "def talk():\n"
      "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
      "    s.settimeout(2)\n"
      "    s.sendto(b'ping', ('127.0.0.1', int(E['SANDPAD_PROBE_UDP_PORT'])))\n"
      "    return s.recv(16)\n"
      "attempt('send and receive', talk)"),
    P("net-03-unix-pathname", "a pathname UNIX socket (the session bus): mount ns / seccomp",
      "def talk():\n"
      "    s = socket.socket(socket.AF_UNIX)\n"
      "    s.connect(E['SANDPAD_PROBE_UNIX_PATH'])\n"
      "    return s.recv(4)\n"
      "attempt('connect', talk)"),
    P("net-04-unix-abstract", "an abstract UNIX socket (X11): net ns / Landlock scope / seccomp",
      "def talk():\n"
      "    s = socket.socket(socket.AF_UNIX)\n"
      "    s.connect('\\0' + E['SANDPAD_PROBE_ABSTRACT_NAME'])\n"
      "    return s.recv(4)\n"
      "attempt('connect', talk)"),
    P("net-05-netlink", "netlink route socket: seccomp family list",
      "attempt('socket', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).bind((0, 0)))"),
    P("net-06-raw", "a raw IP socket: no CAP_NET_RAW / seccomp",
      "attempt('socket', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))",
      needs_root=True),
    P("net-07-packet", "a packet socket: no CAP_NET_RAW / seccomp",
      "attempt('socket', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))",
      needs_root=True),
    P("net-08-vsock", "another family (AF_VSOCK, to a hypervisor): seccomp family list",
      "try:\n"
      "    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM, 0)\n"
      "    escaped('a vsock socket')\n"
      "except OSError as e:\n"
      "    # ENODEV: the family exists, there is just no hypervisor device\n"
      "    if e.errno == errno.EAFNOSUPPORT: blocked(str(e))\n"
      "    escaped('reached the family: %s' % e)"),
    P("net-09-interfaces", "the host's network interfaces: net ns / seccomp",
      "try:\n"
      "    names = [n for _, n in socket.if_nameindex()]\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "if any(n != 'lo' for n in names): escaped(str(names))\n"
      "blocked(str(names))"),
    P("net-10-listen", "listen on a port the host can reach: net ns / Landlock TCP bind / seccomp",
      "def listen():\n"
      "    s = socket.socket()\n"
      "    s.bind(('127.0.0.1', 0))\n"
      "    s.listen()\n"
      "    return s.getsockname()\n"
      "attempt('listen', listen)"),
    P("net-11-inherited-fd", "a socket inherited from the parent: only fds 0-2 survive",
      "fds = [fd for fd in range(3, 64) if os.path.exists('/proc/self/fd/%d' % fd)]\n"
      "fds = [fd for fd in fds if not os.readlink('/proc/self/fd/%d' % fd).startswith('/proc')]\n"
      "if fds: escaped('open fds %s' % fds)\n"
      "blocked('no fds beyond 2')", extra_fd=True),
    # ---- processes ----
    P("proc-01-signal-target", "signal a process outside: pid ns / Landlock signal scope",
      "attempt('kill 0', lambda: os.kill(int(E['SANDPAD_PROBE_TARGET_PID']), 0))"),
    # Not kill(-1): Linux answers it with success even when every signal was
    # refused, so its result proves nothing either way.
    P("proc-02-signal-parent", "signal its supervisor: pid ns / Landlock signal scope",
      "attempt('kill 0 parent', lambda: os.kill(os.getppid(), 0))"),
    P("proc-03-ptrace-target", "PTRACE_SEIZE another process: pid ns / seccomp / Landlock",
      "PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17\n"
      "pid = int(E['SANDPAD_PROBE_TARGET_PID'])\n"
      "r = libc.ptrace(PTRACE_SEIZE, pid, None, None)\n"
      "err = ctypes.get_errno()\n"
      "if r == 0:\n"
      "    libc.ptrace(PTRACE_DETACH, pid, None, None)\n"
      "    escaped('seized')\n"
      "blocked(os.strerror(err))"),
    P("proc-04-process-vm-readv", "read another process's memory: seccomp / ptrace checks",
      "pid = int(E['SANDPAD_PROBE_TARGET_PID'])\n"
      "try:\n"
      "    addr = int(open('/proc/%d/maps' % pid).readline().split('-')[0], 16)\n"
      "except OSError as e:\n"
      "    blocked('maps: %s' % e)\n"
      "class iovec(ctypes.Structure):\n"
      "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n"
      "buf = ctypes.create_string_buffer(8)\n"
      "local, remote = iovec(ctypes.addressof(buf), 8), iovec(addr, 8)\n"
      "r = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)\n"
      "if r > 0: escaped('read %d bytes' % r)\n"
      "blocked(os.strerror(ctypes.get_errno()))"),
    P("proc-05-daemon", "double fork + setsid and outlive the run: pid ns / subreaper sweep",
      "if os.fork() == 0:\n"
      "    try:\n"
      "        os.setsid()\n"
      "    except OSError:\n"
      "        pass\n"
      "    if os.fork() == 0:\n"
      "        for fd in (0, 1, 2): os.close(fd)\n"
      "        hold_alive_lock()\n"
      "        while True:\n"
      "            with open('ticks', 'a') as f: f.write('.')\n"
      "            time.sleep(0.05)\n"
      "    os._exit(0)\n"
      "wait_for_ticks()\n"
      "print('BLOCKED: unless it keeps ticking', flush=True)", lingers=True),
    P("proc-06-setsid-escape", "a new session to dodge the group kill at timeout: pid ns / seccomp",
      "pid = os.fork()\n"
      "if pid == 0:\n"
      "    try:\n"
      "        os.setsid()\n"
      "    except OSError:\n"
      "        pass\n"
      "    for fd in (0, 1, 2): os.close(fd)\n"
      "    hold_alive_lock()\n"
      "    while True:\n"
      "        with open('ticks', 'a') as f: f.write('.')\n"
      "        time.sleep(0.05)\n"
      "wait_for_ticks()\n"
      "print('BLOCKED: unless it keeps ticking', flush=True)", lingers=True),
    P("proc-07-fork-bomb", "many processes: RLIMIT_NPROC in the user namespace",
      "kids = []\n"
      "try:\n"
      "    for i in range(400):\n"
      "        pid = os.fork()\n"
      "        if pid == 0:\n"
      "            time.sleep(60)  # alive until killed: slow forks must not thin the bomb\n"
      "            os._exit(0)\n"
      "        kids.append(pid)\n"
      "except OSError as e:\n"
      "    for k in kids: os.kill(k, 9)\n"
      "    blocked('stopped after %d: %s' % (len(kids), e))\n"
      "for k in kids: os.kill(k, 9)\n"
      "escaped('%d processes' % len(kids))", timeout=10,  # 256 forks take seconds on a busy machine
      # Or the tree watch stops it first: its process cap where no pids
      # cgroup counts (fallback), or memory, where each fork of a warm
      # interpreter brings its resident pages along.
      limit=("processes", "memory")),
    P("proc-08-thread-bomb", "many threads: RLIMIT_NPROC / memory",
      "import threading\n"
      "threading.stack_size(64 * 1024)\n"
      "stop = threading.Event()\n"
      "n = 0\n"
      "try:\n"
      "    for i in range(400):\n"
      "        threading.Thread(target=stop.wait, daemon=True).start()\n"
      "        n += 1\n"
      "except RuntimeError as e:\n"
      "    stop.set()\n"
      "    blocked('stopped after %d threads: %s' % (n, e))\n"
      "stop.set()\n"
      "escaped('%d threads' % n)",
      # Threads are tasks: where no pids cgroup counts (fallback), the tree
      # watch's process cap may stop the bomb before RLIMIT_NPROC refuses a
      # thread (a loaded machine's CI run, flatpak mode).
      limit=("processes", "memory")),
    P("proc-09-cpu-spin", "spin past the time limit: the supervisor's wall clock",
      "end = time.time() + 6\n"
      "while time.time() < end: pass\n"
      "escaped('spun 6 s')", limit="time"),
    P("proc-10-cpu-children", "spin in many children (RLIMIT_CPU is per process): wall clock kills all",
      "for i in range(3):\n"
      "    if os.fork() == 0:\n"
      "        end = time.time() + 6\n"
      "        while time.time() < end: pass\n"
      "        os._exit(0)\n"
      "for i in range(3): os.wait()\n"
      "escaped('children spun 6 s')", limit="time"),
    P("proc-11-ignore-signals", "ignore SIGINT, SIGTERM, SIGXCPU to dodge the timeout: SIGKILL",
      "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGXCPU, signal.SIGHUP):\n"
      "    signal.signal(s, signal.SIG_IGN)\n"
      "end = time.time() + 6\n"
      "while time.time() < end: time.sleep(0.01)\n"
      "escaped('outlived 6 s')", limit="time"),
    P("proc-12-oom-shield", "shield itself from the OOM killer: no CAP_SYS_RESOURCE",
      "attempt('oom_score_adj -1000', lambda: open('/proc/self/oom_score_adj', 'w').write('-1000'))",
      needs_root=True),
    P("proc-13-priority", "raise its own priority: no CAP_SYS_NICE",
      "attempt('nice -5', lambda: os.setpriority(os.PRIO_PROCESS, 0, -5))", needs_root=True),
    # ---- resources ----
    # RLIMIT_DATA refuses the allocation at once: the runner sees nothing it
    # could name as the memory limit (printed words name no limit), so the
    # probe says itself that it was stopped.
    P("res-01-memory", "allocate 1 GiB: RLIMIT_DATA",
      "try:\n"
      "    b = bytearray(1024 ** 3)\n"
      "except MemoryError:\n"
      "    blocked('MemoryError')\n"
      "b[::4096] = b'x' * len(b[::4096])\n"
      "escaped('1 GiB touched')"),
    # The output limit bounds what is kept, not the run (issue 38): a
    # flood is stopped by the time limit, its whole-output file by half the
    # disk limit.
    P("res-02-output-flood", "output for 6 s, past the output limit: the time limit",
      "t0 = time.time()\n"
      "while time.time() - t0 < 6:\n"
      "    sys.stdout.write('y' * 99999 + '\\n')\n"
      "    time.sleep(0.01)\n"
      "escaped('wrote for 6 s')", limit="time"),
    P("res-03-fd-exhaustion", "5000 open files: RLIMIT_NOFILE",
      "import resource\n"
      "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
      "resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))\n"
      "fds = []\n"
      "try:\n"
      "    for i in range(5000): fds.append(os.open('/dev/null', os.O_RDONLY))\n"
      "except OSError as e:\n"
      "    blocked('after %d: %s' % (len(fds), e))\n"
      "escaped('5000 fds')"),
    P("res-04-disk-big-file", "fill the disk with one file: RLIMIT_FSIZE at the disk cap",
      "with open('big', 'wb') as f:\n"
      "    for i in range(100): f.write(b'x' * (1 << 20))\n"
      "os.unlink('big')\n"
      "escaped('100 MiB written')", limit="disk"),
    P("res-05-disk-many-files", "fill the disk with many small files: the disk poll",
      "os.mkdir('many')\n"
      "for i in range(100):\n"
      "    open('many/%d' % i, 'wb').write(b'x' * (1 << 20))\n"
      "    time.sleep(0.01)\n"
      "import shutil; shutil.rmtree('many')\n"
      "escaped('100 files of 1 MiB')", limit="disk"),
    P("res-06-tmp-fill", "fill /tmp: size-capped tmpfs / the disk poll",
      "p = os.path.join(E.get('TMPDIR', '/tmp'), 'fill-%d' % os.getpid())\n"
      "try:\n"
      "    with open(p, 'wb') as f:\n"
      "        for i in range(100):\n"
      "            f.write(b'x' * (1 << 20))\n"
      "            f.flush()\n"
      "            time.sleep(0.01)\n"
      "except OSError as e:\n"
      "    os.unlink(p)\n"
      "    blocked(str(e))\n"
      "os.unlink(p)\n"
      "escaped('100 MiB in tmp')", limit="any"),
    P("res-07-shm-fill", "fill /dev/shm (shared memory of the host): private /dev/shm / Landlock",
      "p = '/dev/shm/sandpad-probe-%d' % os.getpid()\n"
      "try:\n"
      "    with open(p, 'wb') as f:\n"
      "        for i in range(100): f.write(b'x' * (1 << 20))\n"
      "except OSError as e:\n"
      "    try: os.unlink(p)\n"
      "    except OSError: pass\n"
      "    blocked(str(e))\n"
      "os.unlink(p)\n"
      "escaped('100 MiB in /dev/shm')"),
    # ---- kernel surface (x86_64 numbers) ----
    P("kernel-01-ptrace", "ptrace: seccomp", "syscall_reaches(101, 3, 1, 0, 0)"),
    P("kernel-02-process-vm-writev", "process_vm_writev: seccomp",
      "syscall_reaches(311, 0, None, 0, None, 0, 0)"),
    P("kernel-03-bpf", "bpf: seccomp", "syscall_reaches(321, -1, None, 0)"),
    P("kernel-04-userfaultfd", "userfaultfd: seccomp", "syscall_reaches(323, -1)"),
    P("kernel-05-perf-event-open", "perf_event_open: seccomp",
      "syscall_reaches(298, None, 0, -1, -1, 0)"),
    P("kernel-06-io-uring", "io_uring_setup: seccomp (ENOSYS)", "syscall_reaches(425, 0, None)"),
    P("kernel-07-keyctl", "keyctl: seccomp", "syscall_reaches(250, -1, 0, 0, 0, 0)"),
    P("kernel-08-add-key", "add_key: seccomp", "syscall_reaches(248, None, None, None, 0, 0)"),
    P("kernel-09-request-key", "request_key: seccomp", "syscall_reaches(249, None, None, None, 0)"),
    # kexec_load, init_module, finit_module, delete_module, iopl and ioperm are
    # denied too, but this project's kernel lacks them (ENOSYS even without
    # a sandbox), so no probe of them could have a working control here.
    P("kernel-10-swapon", "swapon: seccomp", "syscall_reaches(167, None, 0)", needs_root=True),
    P("kernel-11-reboot", "reboot (with a wrong magic, harmless): seccomp",
      "syscall_reaches(169, 0, 0, 0, None)", needs_root=True),
    P("kernel-12-quotactl", "quotactl: seccomp", "syscall_reaches(179, 0, None, 0, None)",
      needs_root=True),
    P("kernel-13-mount", "mount: seccomp", "syscall_reaches(165, None, None, None, 0, None)",
      needs_root=True),
    P("kernel-14-umount", "umount2: seccomp",
      "syscall_reaches(166, b'/nonexistent-sandpad', 0)", needs_root=True),
    P("kernel-15-fsopen", "fsopen (new mount API): seccomp", "syscall_reaches(430, None, 0)",
      needs_root=True),
    P("kernel-16-open-tree", "open_tree: seccomp", "syscall_reaches(428, -1, None, 0)"),
    # move_mount and fanotify_init check CAP_SYS_ADMIN before their
    # arguments: without root the control gets EPERM from the kernel.
    P("kernel-17-move-mount", "move_mount: seccomp", "syscall_reaches(429, -1, None, -1, None, 0)",
      needs_root=True),
    P("kernel-18-pivot-root", "pivot_root: seccomp", "syscall_reaches(155, None, None)",
      needs_root=True),
    P("kernel-19-chroot", "chroot: seccomp", "syscall_reaches(161, b'/nonexistent-sandpad')",
      needs_root=True),
    P("kernel-20-unshare-user", "unshare(CLONE_NEWUSER): seccomp",
      "syscall_reaches(272, 0x10000000)"),
    P("kernel-21-unshare-net", "unshare(CLONE_NEWNET): seccomp",
      "syscall_reaches(272, 0x40000000)", needs_root=True),
    P("kernel-22-setns", "setns: seccomp", "syscall_reaches(308, -1, 0)"),
    P("kernel-23-clone-newuser", "clone with CLONE_NEWUSER: seccomp (flag check on clone)",
      "r = libc.syscall(56, 0x10000000 | 17, None, None, None, None)\n"
      "if r == 0: os._exit(0)\n"
      "err = ctypes.get_errno()\n"
      "if r > 0:\n"
      "    os.waitpid(r, 0)\n"
      "    escaped('a child in a new user namespace')\n"
      "blocked(os.strerror(err))"),
    P("kernel-24-personality", "personality(READ_IMPLIES_EXEC): seccomp",
      "r = libc.syscall(135, 0x0400000)\n"
      "err = ctypes.get_errno()\n"
      "if r != -1:\n"
      "    libc.syscall(135, 0)\n"
      "    escaped('persona set')\n"
      "blocked(os.strerror(err))"),
    P("kernel-25-i386-syscall", "an i386 system call (int 0x80) to dodge the filter: seccomp arch kill",
      "import mmap\n"
      "# A private mapping: a shared RWX one is refused by seccomp's mmap rule\n"
      "# before int 0x80 is ever reached, which would test the wrong layer.\n"
      "try:\n"
      "    buf = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,\n"
      "                    prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
      "except OSError as e:\n"
      "    blocked('by another layer: an executable mapping was refused (%s)' % e)\n"
      "buf.write(bytes([0x53, 0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0x5b, 0xc3]))  # getpid via int 0x80\n"
      "fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))\n"
      "r = fn()\n"
      "if r > 0: escaped('i386 getpid answered %d' % r)\n"
      "blocked('i386 getpid: %d' % r)", limit="sigsys", needs="int80"),
    P("kernel-26-name-to-handle", "name_to_handle_at: seccomp",
      "syscall_reaches(303, -100, None, None, None, 0)"),
    P("kernel-27-open-by-handle", "open_by_handle_at (Shocker): seccomp",
      "syscall_reaches(304, -1, None, 0)", needs_root=True),
    P("kernel-28-tiocsti", "TIOCSTI (type into a terminal): seccomp",
      "import fcntl, termios\n"
      "try:\n"
      "    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
      "    escaped('pushed a key')\n"
      "except OSError as e:\n"
      "    if e.errno in FILTERED: blocked(str(e))\n"
      "    escaped('reached the kernel: %s' % e)"),
    P("kernel-29-syslog", "syslog (read the kernel log): seccomp",
      "syscall_reaches(103, 10, None, 0)", needs_root=True),
    P("kernel-30-modify-ldt", "modify_ldt: seccomp", "syscall_reaches(154, 0, None, 0)"),
    P("kernel-31-pidfd-getfd", "pidfd_getfd (steal an fd): seccomp", "syscall_reaches(438, -1, 0, 0)"),
    P("kernel-32-clock-settime", "clock_settime: seccomp", "syscall_reaches(227, -1, None)"),
    P("kernel-33-acct", "acct (process accounting): seccomp",
      "syscall_reaches(163, b'/nonexistent-sandpad/acct')", needs_root=True),
    P("kernel-34-kcmp", "kcmp (compare another process's kernel objects): seccomp",
      "syscall_reaches(312, 0, 0, -1, 0, 0)"),
    P("kernel-35-fanotify", "fanotify_init (watch the whole filesystem): seccomp",
      "syscall_reaches(300, -1, 0)", needs_root=True),
    P("kernel-36-migrate-pages", "migrate_pages: seccomp",
      "syscall_reaches(256, 0, 0, None, None)"),
    # ---- information ----
    P("info-01-hostname", "the host's name: uts ns",
      "h = socket.gethostname()\n"
      "if h == E['SANDPAD_PROBE_HOSTNAME']: escaped(h)\n"
      "blocked(h)"),
    P("info-02-host-processes", "the host's process list: pid ns / Landlock (no listing /proc)",
      "try:\n"
      "    pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
      "except PermissionError as e:\n"
      "    blocked('list /proc: %s' % e)\n"
      "if E['SANDPAD_PROBE_TARGET_PID'] in pids: escaped('%d processes, target among them' % len(pids))\n"
      "blocked('%d processes' % len(pids))"),
    P("info-03-machine-id", "/etc/machine-id (a stable tracking id): not mounted / Landlock",
      "attempt('read', lambda: open('/etc/machine-id').read())"),
    P("info-04-kmsg", "the kernel log: not mounted / Landlock",
      "attempt('read', lambda: os.read(os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK), 65536))",
      needs_root=True),
    P("info-05-sysfs-net", "the host's interfaces in /sys: /sys not mounted / Landlock",
      "attempt('list', lambda: os.listdir('/sys/class/net'))"),
    P("info-06-parent-env", "the parent's environment (API keys): clean environment",
      "if 'SANDPAD_PROBE_PARENT_SECRET' in E: escaped('secret in environ')\n"
      "blocked('not in environ')"),
    P("info-07-host-users", "the host's user accounts: synthesized passwd / Landlock",
      "try:\n"
      "    users = open('/etc/passwd').read()\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "if 'daemon:' in users: escaped('host passwd')\n"
      "blocked('a synthesized passwd')"),

    # ---- issue 8: ways out found by attacking the runner ----
    # Finding 1: Landlock handled no MAKE_SYM, so symlinks could be made
    # anywhere the uid may write (a ~/.bash_profile pointing at a payload).
    # Making the link is the escape; removing it again may well be refused
    # (REMOVE_FILE), so the harness removes what is left.
    P("fs-20-symlink-var-tmp", "a symlink in the shared /var/tmp: not mounted / Landlock MAKE_SYM",
      "p = E['SANDPAD_PROBE_VAR_TMP_LINK']\n"
      "attempt('symlink', lambda: os.symlink('/etc/passwd', p))"),
    P("fs-21-symlink-outside", "plant a .bash_profile symlink to a payload outside: Landlock MAKE_SYM",
      "p = E['SANDPAD_PROBE_OUTSIDE_DIR'] + '/.bash_profile'\n"
      "attempt('symlink', lambda: os.symlink(E['SANDPAD_PROBE_PAYLOAD'], p))",
      check="outside-clean"),
    # Finding 2: Landlock does not mediate metadata; files outside the
    # workdir owned by the run's uid (made so by the harness).
    P("fs-22-chmod-outside-file", "chmod a file of the uid outside (id_rsa 0644): mount ns / seccomp",
      "attempt('chmod', lambda: os.chmod(E['SANDPAD_PROBE_OWNED'] + '/chmod-file', 0o644))",
      nobody_control=True),
    P("fs-23-chmod-outside-dir", "chmod a directory of the uid outside (~/.ssh 0777): mount ns / seccomp",
      "attempt('chmod', lambda: os.chmod(E['SANDPAD_PROBE_OWNED'] + '/chmod-dir', 0o777))",
      nobody_control=True),
    P("fs-24-chown-outside", "chown (to its own uid) a file of the uid outside: mount ns / seccomp",
      "attempt('chown', lambda: os.chown(E['SANDPAD_PROBE_OWNED'] + '/chown-file', os.getuid(), "
      "os.getgid()))", nobody_control=True),
    P("fs-25-utime-outside", "utimensat on a file of the uid outside: mount ns / seccomp",
      "attempt('utime', lambda: os.utime(E['SANDPAD_PROBE_OWNED'] + '/utime-file', (0, 0)))",
      nobody_control=True),
    P("fs-26-setxattr-outside", "setxattr user.* on a file of the uid outside: mount ns / seccomp",
      "attempt('setxattr', lambda: os.setxattr(E['SANDPAD_PROBE_OWNED'] + '/xattr-file', "
      "'user.sandpad-probe', b'x'))", nobody_control=True),
    P("fs-27-fchmodat2-opath", "chmod through an O_PATH fd (fchmodat2, AT_EMPTY_PATH): seccomp",
      "try:\n"
      "    fd = os.open(E['SANDPAD_PROBE_OWNED'] + '/opath-file', os.O_PATH)\n"
      "except OSError as e:\n"
      "    blocked('O_PATH open: %s' % e)\n"
      "# fchmodat2 is 452 on x86_64 (Linux 6.6); AT_EMPTY_PATH = 0x1000\n"
      "r = libc.syscall(452, fd, b'', 0o644, 0x1000)\n"
      "if r == 0: escaped('chmod through O_PATH')\n"
      "blocked(os.strerror(ctypes.get_errno()))", nobody_control=True),
    # Metadata through an fd the run may only read (its own code, here; a
    # --context-path document or the run's venv alike): Landlock allows the
    # read-only open, and the fd forms then reached every file the run may
    # read. Namespace mode: a read-only bind (EROFS); fallback: seccomp.
    P("fs-32-fchmod-readonly-fd", "fchmod through a read-only fd (a context document 0777): "
      "read-only bind / seccomp",
      "fd = os.open(__file__, os.O_RDONLY)\n"
      "before = os.fstat(fd).st_mode\n"
      "try:\n"
      "    os.fchmod(fd, 0o666)\n"
      "except OSError as e:\n"
      "    blocked('fchmod: %s' % e)\n"
      "if os.fstat(fd).st_mode != before: escaped('mode of a read-only file changed')\n"
      "blocked('unchanged')"),
    P("fs-33-futimens-readonly-fd", "futimens to 1970 through a read-only fd: "
      "read-only bind / seccomp",
      "fd = os.open(__file__, os.O_RDONLY)\n"
      "try:\n"
      "    os.utime(fd, (0, 0))\n"
      "except OSError as e:\n"
      "    blocked('futimens: %s' % e)\n"
      "if os.fstat(fd).st_mtime == 0: escaped('mtime of a read-only file set to 1970')\n"
      "blocked('unchanged')"),
    P("fs-34-fsetxattr-readonly-fd", "fsetxattr through a read-only fd: read-only bind / seccomp",
      "fd = os.open(__file__, os.O_RDONLY)\n"
      "attempt('fsetxattr', lambda: os.setxattr(fd, 'user.sandpad-probe', b'x'))",
      needs="user_xattr"),
    P("fs-35-getxattr-outside", "getxattr by path of a file outside (a download's origin URL): "
      "mount ns / seccomp",
      "attempt('getxattr', lambda: os.getxattr(E['SANDPAD_PROBE_OWNED'] + '/xattr-file', "
      "'user.xdg.origin.url'))", nobody_control=True, needs="user_xattr"),
    # Python's os.utime by path is refused in fallback mode, and the
    # prelude then sets the times through an fd of the file: one opened for
    # writing (Landlock refuses that here), never a read-only one.
    P("fs-36-utime-readonly-path", "os.utime by path of a read-only file (the run's code): "
      "read-only bind / Landlock at the prelude's open for writing",
      "before = os.stat(__file__).st_mtime\n"
      "try:\n"
      "    os.utime(__file__, (0, 0))\n"
      "except OSError as e:\n"
      "    blocked('utime: %s' % e)\n"
      "if os.stat(__file__).st_mtime != before: escaped('mtime of a read-only file set to 1970')\n"
      "blocked('unchanged')"),
    # The check and the act on one file: a thread swaps a read-only fd in
    # under the number another thread sets times through. Fallback mode's
    # run init takes the file itself (pidfd_getfd) and acts on what it
    # checked, so the number's meaning after the check does not matter.
    P("fs-37-futimens-fd-swap", "futimens on an fd number a thread swaps between a writable "
      "and a read-only file: read-only bind / the run init acts on the file it checked",
      "import threading\n"
      "ro = os.open(__file__, os.O_RDONLY)\n"
      "rw = os.open('mine', os.O_WRONLY | os.O_CREAT, 0o644)\n"
      "n = os.dup(rw)\n"
      "stop = time.monotonic() + 1.5\n"
      "def swap():\n"
      "    while time.monotonic() < stop:\n"
      "        os.dup2(ro, n)\n"
      "        os.dup2(rw, n)\n"
      "threading.Thread(target=swap, daemon=True).start()\n"
      "errors = set()\n"
      "while time.monotonic() < stop:\n"
      "    try:\n"
      "        os.utime(n, (0, 0))\n"
      "    except OSError as e:\n"
      "        errors.add(e.errno)\n"
      "    if os.fstat(ro).st_mtime == 0: escaped('mtime of a read-only file set to 1970')\n"
      "blocked('unchanged; errors %s' % sorted(errors))"),
    # A directory cannot be opened for writing, so fallback mode's run init
    # sets a directory's times through a read-only fd only where the run
    # may write (its working directory, its tmp): not its code's.
    P("fs-38-utime-readonly-dir", "os.utime of a directory the run may only read (its code's): "
      "read-only bind / the run init finds no writable directory above it",
      "d = os.path.dirname(os.path.abspath(__file__))\n"
      "before = os.stat(d).st_mtime\n"
      "try:\n"
      "    os.utime(d, (0, 0))\n"
      "except OSError as e:\n"
      "    blocked('utime: %s' % e)\n"
      "if os.stat(d).st_mtime != before: escaped('mtime of a read-only directory set to 1970')\n"
      "blocked('unchanged')"),
    # Finding 3: SysV IPC objects of the uid, made by the harness.
    P("ipc-01-shm-attach", "attach and write a 0600 shm segment of the uid: ipc ns / seccomp",
      "libc.shmat.restype = ctypes.c_void_p\n"
      "sid = libc.shmget(int(E['SANDPAD_PROBE_SHM_KEY']), 0, 0)\n"
      "if sid < 0: blocked('shmget: ' + os.strerror(ctypes.get_errno()))\n"
      "addr = libc.shmat(sid, None, 0)\n"
      "if addr in (None, ctypes.c_void_p(-1).value): blocked('shmat: ' + os.strerror(ctypes.get_errno()))\n"
      "ctypes.memmove(addr, b'owned', 5)\n"
      "libc.shmdt(ctypes.c_void_p(addr))\n"
      "escaped('wrote into segment %d' % sid)"),
    P("ipc-02-msg-queue", "send to a message queue of the uid: ipc ns / seccomp",
      "qid = libc.msgget(int(E['SANDPAD_PROBE_MSG_KEY']), 0)\n"
      "if qid < 0: blocked('msgget: ' + os.strerror(ctypes.get_errno()))\n"
      "msg = ctypes.create_string_buffer(b'\\x01\\0\\0\\0\\0\\0\\0\\0hi', 10)\n"
      "if libc.msgsnd(qid, msg, 2, 0o4000) != 0: blocked('msgsnd: ' + os.strerror(ctypes.get_errno()))\n"
      "libc.msgrcv(qid, msg, 2, 0, 0o4000)\n"
      "escaped('sent to queue %d' % qid)"),
    P("ipc-03-semaphore", "use a semaphore set of the uid: ipc ns / seccomp",
      "sid = libc.semget(int(E['SANDPAD_PROBE_SEM_KEY']), 0, 0)\n"
      "if sid < 0: blocked('semget: ' + os.strerror(ctypes.get_errno()))\n"
      "v = libc.semctl(sid, 0, 12)  # GETVAL\n"
      "if v < 0: blocked('semctl: ' + os.strerror(ctypes.get_errno()))\n"
      "escaped('semaphore %d reads %d' % (sid, v))"),
    P("ipc-04-left-behind", "shm, a queue and a semaphore that outlive the run: ipc ns / seccomp",
      "key = int(E['SANDPAD_PROBE_LEAVE_KEY'])\n"
      "made = []\n"
      "if libc.shmget(key, 1 << 20, 0o1600) >= 0: made.append('shm')\n"
      "if libc.msgget(key, 0o1600) >= 0: made.append('msg')\n"
      "if libc.semget(key, 1, 0o1600) >= 0: made.append('sem')\n"
      "if not made: blocked('none could be made: ' + os.strerror(ctypes.get_errno()))\n"
      "done('made %s with key %#x' % (made, key))", check="ipc-left"),
    # Finding 4: system calls that act on another process of the same uid.
    # The harness gives each probe a fresh victim and checks it afterwards.
    P("proc-14-prlimit-other", "prlimit(RLIMIT_CPU) on another process of the uid: pid ns / seccomp",
      "import resource\n"
      "attempt('prlimit', lambda: resource.prlimit(int(E['SANDPAD_PROBE_VICTIM_PID']), "
      "resource.RLIMIT_CPU, (3600, 3600)))", check="victim", nobody_control=True),
    P("proc-15-setpriority-other", "setpriority on another process of the uid: pid ns / seccomp",
      "attempt('setpriority', lambda: os.setpriority(os.PRIO_PROCESS, "
      "int(E['SANDPAD_PROBE_VICTIM_PID']), 7))", check="victim", nobody_control=True),
    P("proc-16-affinity-other", "sched_setaffinity on another process of the uid: pid ns / seccomp",
      "attempt('sched_setaffinity', lambda: os.sched_setaffinity("
      "int(E['SANDPAD_PROBE_VICTIM_PID']), {0}))", check="victim", nobody_control=True),
    P("proc-17-ioprio-other", "ioprio_set on another process of the uid: pid ns / seccomp",
      "# ioprio_set is 251 on x86_64: IOPRIO_WHO_PROCESS, class best-effort (2) level 7\n"
      "r = libc.syscall(251, 1, int(E['SANDPAD_PROBE_VICTIM_PID']), (2 << 13) | 7)\n"
      "if r == 0: escaped('io priority changed')\n"
      "blocked(os.strerror(ctypes.get_errno()))", check="victim", nobody_control=True),
    # Finding 5: the disk cap (small --disk) and cleanup. A full tmpfs
    # (ENOSPC), a quota (EDQUOT) or RLIMIT_FSIZE (EFBIG) inside the run
    # count as blocked, as does the runner naming the disk limit.
    P("res-08-disk-deep-tree", "64 MiB in a 48-level tree with --disk 16: a cap no shape gets around",
      "d = 'deep'\n"
      "try:\n"
      "    for level in range(48):\n"
      "        os.mkdir(d)\n"
      "        if level >= 16:\n"
      "            with open(d + '/blob', 'wb') as f: f.write(b'x' * (2 << 20))\n"
      "        d += '/d'\n"
      "except OSError as e:\n"
      "    refused(e, errno.ENOSPC, errno.EDQUOT, errno.EFBIG)\n"
      "# Kept, as a run that wants the space keeps it. (Written and deleted\n"
      "# within one 200 ms check it goes unseen: docs/security.md, Disk.)\n"
      "time.sleep(0.5)\n"
      "escaped('64 MiB below level 16')", limit="disk", disk=16, timeout=10),
    P("res-09-disk-many-files", "150,000 empty files with --disk 1: an inode cap",
      "os.mkdir('many')\n"
      "try:\n"
      "    for i in range(150000):\n"
      "        os.close(os.open('many/%d' % i, os.O_CREAT | os.O_WRONLY, 0o644))\n"
      "except OSError as e:\n"
      "    refused(e, errno.ENOSPC, errno.EDQUOT)\n"
      "escaped('150,000 files')", limit="disk", disk=1, timeout=15, many_entries=True),
    # Ten times the entry cap: in fallback mode the runner counts them
    # every 200 ms, and 20,000 mkdirs from a warm start fit in one interval.
    P("res-10-disk-many-dirs", "200,000 directories with --disk 1: an inode cap / directories counted",
      "try:\n"
      "    for i in range(200000): os.mkdir('d%d' % i)\n"
      "except OSError as e:\n"
      "    refused(e, errno.ENOSPC, errno.EDQUOT)\n"
      "escaped('200,000 directories')", limit="disk", disk=1, timeout=10, many_entries=True),
    P("res-11-cleanup-deep-tree", "a 400-level tree in the run's directories must not outlive the run",
      "def deep(top):\n"
      "    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)\n"
      "    for level in range(400):\n"
      "        os.mkdir('d', dir_fd=fd)\n"
      "        nfd = os.open('d', os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)\n"
      "        os.close(fd)\n"
      "        fd = nfd\n"
      "    os.close(os.open('left-behind', os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))\n"
      "    os.close(fd)\n"
      "deep('.')\n"
      "deep(E.get('TMPDIR', '/tmp'))\n"
      "done('two trees 400 levels deep')", check="tmpdir-clean", own_dir=True, timeout=10),
    # Finding 6: the memory limit (a small --memory) against memory that
    # RLIMIT_DATA does not count. Escaped = the pages were held.
    P("res-12-memory-shared-anon", "1 GiB of MAP_SHARED|MAP_ANONYMOUS touched with --memory 64",
      "import mmap\n"
      "try:\n"
      "    m = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_SHARED)\n"
      "    ctypes.memset(ctypes.addressof(ctypes.c_char.from_buffer(m)), 1, 1 << 30)\n"
      "except (OSError, MemoryError) as e:\n"
      "    refused(e, errno.ENOMEM, errno.EPERM, errno.EACCES)\n"
      "held = rss_kib(field='RssShmem')\n"
      "if held >= 900 * 1024: escaped('%d MiB of shared memory held' % (held // 1024))\n"
      "blocked('only %d MiB held' % (held // 1024))", limit="memory", memory=64, timeout=10),
    P("res-13-memory-sysv-shm", "a 1 GiB SysV shm segment touched with --memory 64",
      "libc.shmat.restype = ctypes.c_void_p\n"
      "sid = libc.shmget(0, 1 << 30, 0o1600)  # IPC_PRIVATE\n"
      "if sid < 0: blocked('shmget: ' + os.strerror(ctypes.get_errno()))\n"
      "addr = libc.shmat(sid, None, 0)\n"
      "libc.shmctl(sid, 0, None)  # IPC_RMID: gone once detached, whatever happens\n"
      "if addr in (None, ctypes.c_void_p(-1).value): blocked('shmat: ' + os.strerror(ctypes.get_errno()))\n"
      "ctypes.memset(addr, 1, 1 << 30)\n"
      "held = rss_kib(field='RssShmem')\n"
      "if held >= 900 * 1024: escaped('%d MiB of SysV shm held' % (held // 1024))\n"
      "blocked('only %d MiB held' % (held // 1024))", limit="memory", memory=64, timeout=10),
    # 32 memfds of 32 MiB: RLIMIT_FSIZE (the disk cap) bounds each one,
    # not their sum.
    P("res-14-memory-memfd", "1 GiB written into 32 memfds with --memory 64",
      "fds = []\n"
      "chunk = b'x' * (1 << 20)\n"
      "try:\n"
      "    for i in range(32):\n"
      "        fds.append(os.memfd_create('probe'))\n"
      "        for j in range(32): os.write(fds[-1], chunk)\n"
      "except (OSError, MemoryError) as e:\n"
      "    refused(e, errno.ENOMEM, errno.EPERM, errno.ENOSPC, errno.ENOSYS)\n"
      "held = sum(os.fstat(fd).st_blocks * 512 for fd in fds)\n"
      "if held >= 900 << 20: escaped('%d MiB in memfds' % (held >> 20))\n"
      "blocked('only %d MiB held' % (held >> 20))", limit="memory", memory=64, timeout=10),
    P("res-15-memory-children", "6 children of 40 MiB each at once with --memory 64: a tree-wide limit",
      "r, w = os.pipe()\n"
      "hold_r, hold_w = os.pipe()\n"
      "kids = []\n"
      "for i in range(6):\n"
      "    pid = os.fork()\n"
      "    if pid == 0:\n"
      "        os.close(r)\n"
      "        try:\n"
      "            b = bytearray(40 << 20)\n"
      "            for j in range(0, len(b), 4096): b[j] = 1\n"
      "            os.write(w, b'%08d' % rss_kib())\n"
      "        except MemoryError:\n"
      "            os.write(w, b'%08d' % 0)\n"
      "        os.close(w)  # a killed sibling must not leave the parent waiting\n"
      "        os.read(hold_r, 1)\n"
      "        os._exit(0)\n"
      "    kids.append(pid)\n"
      "os.close(w)\n"
      "got = b''\n"
      "while True:\n"
      "    c = os.read(r, 64)\n"
      "    if not c: break\n"
      "    got += c\n"
      "held = [int(got[i:i + 8]) for i in range(0, len(got), 8)]\n"
      "os.write(hold_w, b'x' * 6)\n"
      "for k in kids: os.waitpid(k, 0)\n"
      "if sum(held) >= 200 * 1024: escaped('children held %d MiB together' % (sum(held) // 1024))\n"
      "blocked('children held %s KiB' % held)",
      limit="memory", memory=64, timeout=10),
    # Finding 7: with --cwd DIR, what the run leaves in DIR for the user.
    P("fs-28-setuid-in-cwd", "setuid and setgid files left in --cwd DIR: bits stripped after the run",
      "for name, mode in (('suid', 0o4755), ('sgid', 0o2755)):\n"
      "    with open(name, 'w') as f: f.write('#!/bin/sh\\n')\n"
      "    try:\n"
      "        os.chmod(name, mode)\n"
      "    except OSError as e:\n"
      "        print('chmod %s: %s' % (name, e))\n"
      "try:\n"
      "    os.close(os.open('created-suid', os.O_CREAT | os.O_WRONLY, 0o4755))\n"
      "except OSError as e:\n"
      "    print('open: %s' % e)\n"
      "done('planted')", check="cwd-setuid"),
    # Finding 9: what the run learns about the host.
    P("info-08-target-cmdline", "another host process's command line (a --token in argv): pid ns / /proc view",
      "try:\n"
      "    line = open('/proc/%s/cmdline' % E['SANDPAD_PROBE_TARGET_PID'], 'rb').read()\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "if b'--token=' in line: escaped(line.replace(b'\\0', b' ').decode()[:80])\n"
      "blocked('no token: %r' % line[:60])"),
    P("info-09-mountinfo-host-paths", "the host's paths in /proc/self/mountinfo: mount ns / /proc view",
      "try:\n"
      "    info = open('/proc/self/mountinfo').read()\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "if E['SANDPAD_PROBE_BASE'] in info: escaped('mountinfo names ' + E['SANDPAD_PROBE_BASE'])\n"
      "blocked('no host path of the harness')", needs_root=True),
    P("info-10-pid1-cmdline", "pid 1's command line (the runner's argv, or the host's init): pid ns",
      "try:\n"
      "    line = open('/proc/1/cmdline', 'rb').read()\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "args = [a for a in line.split(b'\\0') if a]\n"
      "# A bare name (a minimal init) tells nothing; paths or arguments do.\n"
      "if len(args) > 1 or b'/' in line: escaped(b' '.join(args).decode()[:100])\n"
      "blocked('pid 1 is %r' % line[:40])"),
    P("info-11-boot-id", "the host's boot_id (a tracking id): /proc/sys view",
      "try:\n"
      "    bid = open('/proc/sys/kernel/random/boot_id').read().strip()\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "if bid == E['SANDPAD_PROBE_BOOT_ID']: escaped(bid)\n"
      "blocked('another boot_id ' + bid)"),
    P("info-12-kernel-cmdline", "the kernel command line: /proc view",
      "attempt('read', lambda: open('/proc/cmdline').read()[:60])"),
    P("info-13-uid-map-outer-uid", "the uid outside the user namespace (root runner or not): uid_map",
      "own = os.getuid()\n"
      "try:\n"
      "    lines = [l.split() for l in open('/proc/self/uid_map')]\n"
      "except OSError as e:\n"
      "    blocked(str(e))\n"
      "outer = int(E['SANDPAD_PROBE_OUTER_UID'])\n"
      "for inside, outside, count in ((int(a), int(b), int(c)) for a, b, c in lines):\n"
      "    if inside <= own < inside + count and outside + own - inside == outer:\n"
      "        escaped('uid %d is %d outside' % (own, outer))\n"
      "blocked(repr(lines))", only={"namespaces"}),
    # Finding 11: system calls newer than the old deny list (x86_64
    # numbers; each control gets EFAULT or EINVAL from the kernel itself).
    P("kernel-37-statmount", "statmount (457, Linux 6.8): an allow list", "syscall_reaches(457, None, None, 0, 0)"),
    P("kernel-38-listmount", "listmount (458, Linux 6.8): an allow list", "syscall_reaches(458, None, None, 0, 0)"),
    P("kernel-39-open-tree-attr", "open_tree_attr (467, Linux 6.15): an allow list",
      "syscall_reaches(467, -1, None, 0, None, 0)"),
    P("kernel-40-memfd-secret", "memfd_secret (447, invalid flags): an allow list",
      "syscall_reaches(447, 0xffff)"),
    # setxattrat is the at-form of setxattr, and the allow list names it
    # (fallback mode refuses it with the other xattr calls): a libseccomp
    # that knows it (2.6, Debian 13) lets it reach the kernel, one that
    # does not (2.5, Debian 12) leaves it closed. What matters is its
    # effect, as for fs-26: an xattr set on a file of the uid outside.
    P("kernel-41-setxattrat", "setxattrat (463, Linux 6.13) on a file of the uid outside: "
      "mount ns / seccomp",
      "value = ctypes.create_string_buffer(b'x', 1)\n"
      "# struct xattr_args {u64 value; u32 size; u32 flags}, little-endian\n"
      "args = (ctypes.c_uint64 * 2)(ctypes.addressof(value), 1)\n"
      "path = (E['SANDPAD_PROBE_OWNED'] + '/xattr-file').encode()\n"
      "r = libc.syscall(ctypes.c_long(463), ctypes.c_long(-100), path, ctypes.c_long(0),\n"
      "                 b'user.sandpad-probe', ctypes.byref(args), ctypes.c_long(16))\n"
      "if r == 0: escaped('setxattrat set user.sandpad-probe')\n"
      "blocked(os.strerror(ctypes.get_errno()))", nobody_control=True, needs="setxattrat"),
    P("kernel-42-file-setattr", "file_setattr (469, Linux 6.17): an allow list",
      "syscall_reaches(469, -1, None, None, 0, 0)"),
]

# ---- the same attempts from a compiled program (issue 27) ----
# No interpreter between the probe and the kernel: raw system calls from C,
# compiled by the runner in its sandbox (language "c") and run there; the
# control compiles the same source with gcc and runs it directly. The
# verdicts are the Python probes' (ESCAPED / BLOCKED, EPERM / ENOSYS /
# EACCES meaning the filter). A target missing from the environment is
# neither: the probe prints BROKEN, and the harness fails it.
C_PRELUDE = r'''
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__ ((noreturn, format (printf, 2, 3))) static void
say (int status, const char *fmt, ...)
{
  va_list ap;
  printf (status == 0 ? "ESCAPED: " : status == 1 ? "BLOCKED: " : "BROKEN: ");
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
  exit (status);
}
#define escaped(...) say (0, __VA_ARGS__)
#define blocked(...) say (1, __VA_ARGS__)

__attribute__ ((unused)) static const char *
target (const char *name)
{
  const char *value = getenv (name);
  if (value == NULL)
    say (2, "%s is not set", name);
  return value;
}

__attribute__ ((unused, noreturn)) static void
syscall_reaches (long nr, long a, long b, long c, long d, long e)
{
  errno = 0;
  long r = syscall (nr, a, b, c, d, e);
  int err = errno;
  if (r == -1 && (err == EPERM || err == ENOSYS || err == EACCES))
    blocked ("syscall %ld: %s", nr, strerror (err));
  escaped ("syscall %ld reached the kernel: %ld %s", nr, r, r == -1 ? strerror (err) : "");
}
'''


def C(name, why, body, **kw):
    """A C probe: body is main's, after C_PRELUDE."""
    return P(name, why, "int\nmain (void)\n{\n" + body + "}\n", lang="c", **kw)


C_PROBES = [
    C("c-kernel-01-ptrace", "raw ptrace(PTRACE_PEEKDATA) from C: seccomp",
      "  syscall_reaches (SYS_ptrace, 3, 1, 0, 0, 0);\n"),
    C("c-kernel-07-keyctl", "raw keyctl from C: seccomp",
      "  syscall_reaches (SYS_keyctl, -1, 0, 0, 0, 0);\n"),
    C("c-kernel-13-mount", "raw mount from C: seccomp",
      "  syscall_reaches (SYS_mount, 0, 0, 0, 0, 0);\n", needs_root=True),
    C("c-kernel-20-unshare-user", "raw unshare(CLONE_NEWUSER) from C: seccomp",
      "  syscall_reaches (SYS_unshare, 0x10000000, 0, 0, 0, 0);\n"),
    C("c-kernel-25-i386-syscall", "getpid through int 0x80 from C, no mapping needed: "
      "seccomp arch kill",
      "  long r = 20; /* the i386 getpid */\n"
      "  __asm__ volatile (\"int $0x80\" : \"+a\" (r) : : \"r8\", \"r9\", \"r10\", \"r11\", "
      "\"memory\");\n"
      "  if (r > 0)\n"
      "    escaped (\"i386 getpid answered %ld\", r);\n"
      "  blocked (\"i386 getpid: %ld\", r);\n", limit="sigsys", needs="int80"),
    C("c-fs-01-secret-file", "open and read a user secret outside with open(2): mount ns / "
      "Landlock",
      "  char buf[64] = \"\";\n"
      "  int fd = open (target (\"SANDPAD_PROBE_SECRET_FILE\"), O_RDONLY);\n"
      "  if (fd < 0)\n"
      "    blocked (\"open: %s\", strerror (errno));\n"
      "  if (read (fd, buf, sizeof buf - 1) < 0)\n"
      "    blocked (\"read: %s\", strerror (errno));\n"
      "  escaped (\"read %s\", buf);\n"),
    C("c-fs-17-write-home", "create a file in a home-like directory outside (its .config/"
      "autostart): mount ns / Landlock",
      "  char path[4096];\n"
      "  snprintf (path, sizeof path, \"%s/.config/autostart/sandpad-c-probe.desktop\",\n"
      "            target (\"SANDPAD_PROBE_OUTSIDE_DIR\"));\n"
      "  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0644);\n"
      "  if (fd < 0)\n"
      "    blocked (\"create: %s\", strerror (errno));\n"
      "  ssize_t n = write (fd, \"[Desktop Entry]\\n\", 16);\n"
      "  close (fd);\n"
      "  unlink (path);\n"
      "  escaped (\"created %s (%zd bytes)\", path, n);\n"),
    C("c-net-01-tcp-localhost", "connect(2) to a TCP service on the host's 127.0.0.1: "
      "net ns / Landlock TCP / seccomp",
      "  struct sockaddr_in addr = { .sin_family = AF_INET };\n"
      "  char buf[8] = \"\";\n"
      "  addr.sin_port = htons ((unsigned short) atoi (target (\"SANDPAD_PROBE_TCP_PORT\")));\n"
      "  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);\n"
      "  int fd = socket (AF_INET, SOCK_STREAM, 0);\n"
      "  if (fd < 0)\n"
      "    blocked (\"socket: %s\", strerror (errno));\n"
      "  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)\n"
      "    blocked (\"connect: %s\", strerror (errno));\n"
      "  if (read (fd, buf, 4) <= 0)\n"
      "    blocked (\"read: %s\", strerror (errno));\n"
      "  escaped (\"the host's service said %s\", buf);\n"),
]
PROBES += C_PROBES
