"""Makes another process make one system call, through ptrace, and returns
what the kernel answered it: the way to see a process's own seccomp filter
at work without putting code of the test's into it (the warm parent runs no
code but its own). x86_64 only; the caller skips elsewhere (supported()).

The target is stopped (PTRACE_SEIZE, PTRACE_INTERRUPT), a syscall
instruction of its own is stepped over once with the call's number and
arguments in its registers, and its registers are put back before it goes
on, as a debugger's `call` does; a call it was waiting in is restarted.
"""

import ctypes
import os
import platform
import signal

PTRACE_GETREGS = 12
PTRACE_SETREGS = 13
PTRACE_SINGLESTEP = 9
PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
WALL = 0x40000000
SYSCALL = b"\x0f\x05"
MASK = (1 << 64) - 1

# x86_64 numbers of the calls the tests make.
NR = {"unshare": 272, "process_vm_writev": 311}


class Regs(ctypes.Structure):
    """struct user_regs_struct (x86_64)."""
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags "
        "rsp ss fs_base gs_base ds es fs gs").split()]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]


def supported():
    return platform.machine() == "x86_64"


def _ptrace(request, pid, data=None):
    if _libc.ptrace(request, pid, None, data) == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"ptrace({request}, {pid}): {os.strerror(err)}")


def _stopped(pid, want=None):
    """Waits for pid's next stop (SIGTRAP when want says so)."""
    while True:
        _, status = os.waitpid(pid, WALL)
        if not os.WIFSTOPPED(status):
            raise OSError(f"process {pid} ended while traced ({status:#x})")
        if want is None or os.WSTOPSIG(status) == want:
            return


def _syscall_address(pid, rip):
    """A syscall instruction of pid's: the one it stopped after (it waits
    in a call), else the first in its libc's code."""
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        mem.seek(rip - 2)
        if mem.read(2) == SYSCALL:
            return rip - 2
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) > 5 and "x" in fields[1] and "/libc" in fields[5]:
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    mem.seek(start)
                    at = mem.read(end - start).find(SYSCALL)
                    if at >= 0:
                        return start + at
    raise OSError(f"no syscall instruction found in process {pid}")


def call(pid, name, *args):
    """What the call `name` (a key of NR) with args returns in pid: its
    result, or -errno."""
    _ptrace(PTRACE_SEIZE, pid)
    try:
        _ptrace(PTRACE_INTERRUPT, pid)
        _stopped(pid)
        saved = Regs()
        _ptrace(PTRACE_GETREGS, pid, ctypes.byref(saved))
        regs = Regs.from_buffer_copy(saved)
        regs.rip = _syscall_address(pid, saved.rip)
        regs.rax = NR[name]
        # Not a call to restart: the kernel leaves rip and rax alone.
        regs.orig_rax = MASK
        for reg, value in zip(("rdi", "rsi", "rdx", "r10", "r8", "r9"), args):
            setattr(regs, reg, value & MASK)
        _ptrace(PTRACE_SETREGS, pid, ctypes.byref(regs))
        _ptrace(PTRACE_SINGLESTEP, pid)
        _stopped(pid, signal.SIGTRAP)
        _ptrace(PTRACE_GETREGS, pid, ctypes.byref(regs))
        result = ctypes.c_longlong(regs.rax).value
        _ptrace(PTRACE_SETREGS, pid, ctypes.byref(saved))
    finally:
        try:
            _ptrace(PTRACE_DETACH, pid)
        except OSError:
            pass  # not stopped: it detaches when we exit
    return result
