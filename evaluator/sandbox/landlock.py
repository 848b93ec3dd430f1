"""Landlock from ``ctypes``: an unprivileged, kernel-enforced allow-list for files, TCP and signals.

Why: it works without root and without user namespaces, so it is the floor the sandbox never
goes below, and on top of the mount namespace it is a second, independent wall (a candidate
that somehow reached a host path still cannot open it, bind or connect a TCP port, or signal a
process outside its own domain). Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import struct

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ_ONLY = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl  # looked up here, in the fork server: in each child the lookup costs a few dozen page faults


def abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    version = _libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    return max(0, int(version))


def _fs_rights(version: int) -> int:
    rights = (1 << 13) - 1
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read_only: list[str], writable: list[str], version: int) -> None:
    """Confine this process (and its future children) for good; see :func:`ruleset`."""
    fd = ruleset(read_only, writable, version)
    try:
        enforce(fd)
    finally:
        os.close(fd)


def ruleset(read_only: list[str], writable: list[str], version: int) -> int:
    """A Landlock ruleset (an fd) that a process then :func:`enforce` s on itself.

    ``read_only`` paths may be read and executed, ``writable`` ones fully used; nothing else on
    any filesystem can be opened. From ABI 4 no TCP port can be bound or connected; from ABI 6
    no signal reaches, and no abstract Unix socket connects to, a process outside the domain.
    Raises OSError when the kernel refuses, so a caller never runs a candidate half-confined.
    Built once and enforced per child, a fork pays two system calls for it.
    """
    handled = _fs_rights(version)
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0
    attr = struct.pack("=QQQ", handled, net, scoped)[: 8 if version < 4 else 16 if version < 6 else 24]
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = _libc.syscall(_SYS_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, rights in ((read_only, READ_ONLY), (writable, handled)):
            for path in paths:
                _allow(int(fd), path, rights & handled)
    except BaseException:
        os.close(int(fd))
        raise
    return int(fd)


def enforce(ruleset_fd: int) -> None:
    """Restrict this process to ``ruleset_fd`` (no_new_privs first, as Landlock requires)."""
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    if _libc.syscall(_SYS_RESTRICT_SELF, ruleset_fd, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")


def _allow(ruleset_fd: int, path: str, rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine lacks: nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, target), 12)
        if _libc.syscall(_SYS_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, rule, 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(target)
