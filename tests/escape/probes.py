"""The escape probes: small Python programs that each try one way out.

Every probe prints "ESCAPED: ..." and exits 0 when its escape worked, or
"BLOCKED: ..." and exits 1 when it did not, so "the probe ran and was
stopped" is told apart from "the probe never ran". Kernel probes call a
denied system call with harmless or invalid arguments (bubblewrap's
try-syscall idea): an errno like EBADF or EFAULT means the call reached the
kernel, EPERM or ENOSYS means the filter stopped it.

Resource probes instead name the limit that must stop them (`limit`), and
lingering probes leave a ticking process behind (`lingers`) that the
harness watches. Targets outside the sandbox (a secret file, servers, a
process) come in SANDPAD_PROBE_* variables set by the harness.
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

def syscall_reaches(nr, *args):
    r = libc.syscall(nr, *args)
    err = ctypes.get_errno()
    if r == -1 and err in FILTERED:
        blocked(f"syscall {nr}: {os.strerror(err)}")
    escaped(f"syscall {nr} reached the kernel: {r} {os.strerror(err) if r == -1 else ''}")
'''


def P(name, why, code, limit=None, lingers=False, needs_root=False, nobody_control=False,
      setuid=False, extra_fd=False):
    return dict(name=name, why=why, code=code, limit=limit, lingers=lingers,
                needs_root=needs_root, nobody_control=nobody_control, setuid=setuid,
                extra_fd=extra_fd)


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
      "        while True:\n"
      "            with open('ticks', 'a') as f: f.write('.')\n"
      "            time.sleep(0.05)\n"
      "    os._exit(0)\n"
      "time.sleep(0.3)\n"
      "print('BLOCKED: unless it keeps ticking', flush=True)", lingers=True),
    P("proc-06-setsid-escape", "a new session to dodge the group kill at timeout: pid ns / seccomp",
      "pid = os.fork()\n"
      "if pid == 0:\n"
      "    try:\n"
      "        os.setsid()\n"
      "    except OSError:\n"
      "        pass\n"
      "    for fd in (0, 1, 2): os.close(fd)\n"
      "    while True:\n"
      "        with open('ticks', 'a') as f: f.write('.')\n"
      "        time.sleep(0.05)\n"
      "time.sleep(0.3)\n"
      "print('BLOCKED: unless it keeps ticking', flush=True)", lingers=True),
    P("proc-07-fork-bomb", "many processes: RLIMIT_NPROC in the user namespace",
      "kids = []\n"
      "try:\n"
      "    for i in range(400):\n"
      "        pid = os.fork()\n"
      "        if pid == 0:\n"
      "            time.sleep(3)\n"
      "            os._exit(0)\n"
      "        kids.append(pid)\n"
      "except OSError as e:\n"
      "    for k in kids: os.kill(k, 9)\n"
      "    blocked('stopped after %d: %s' % (len(kids), e))\n"
      "for k in kids: os.kill(k, 9)\n"
      "escaped('%d processes' % len(kids))"),
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
      "escaped('%d threads' % n)"),
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
    P("res-02-output-flood", "20 MB of output: the output limit",
      "for i in range(200):\n"
      "    sys.stdout.write('y' * 100000)\n"
      "escaped('20 MB written')", limit="output"),
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
    P("kernel-17-move-mount", "move_mount: seccomp", "syscall_reaches(429, -1, None, -1, None, 0)"),
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
      "buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
      "buf.write(bytes([0x53, 0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0x5b, 0xc3]))  # getpid via int 0x80\n"
      "fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))\n"
      "r = fn()\n"
      "if r > 0: escaped('i386 getpid answered %d' % r)\n"
      "blocked('i386 getpid: %d' % r)", limit="sigsys"),
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
      "syscall_reaches(300, -1, 0)"),
    P("kernel-36-migrate-pages", "migrate_pages: seccomp",
      "syscall_reaches(256, 0, 0, None, None)"),
    # ---- information ----
    P("info-01-hostname", "the host's name: uts ns",
      "h = socket.gethostname()\n"
      "if h == E['SANDPAD_PROBE_HOSTNAME']: escaped(h)\n"
      "blocked(h)"),
    P("info-02-host-processes", "the host's process list: pid ns",
      "pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
      "if E['SANDPAD_PROBE_TARGET_PID'] in pids: escaped('%d processes, target among them' % len(pids))\n"
      "blocked('%d processes' % len(pids))"),
    P("info-03-machine-id", "/etc/machine-id (a stable tracking id): not mounted / Landlock",
      "attempt('read', lambda: open('/etc/machine-id').read())"),
    P("info-04-kmsg", "the kernel log: not mounted / Landlock",
      "attempt('read', lambda: os.read(os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK), 256))",
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
]
