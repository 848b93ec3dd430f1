"""The candidate's box: its own filesystem view, process tree, network and privileges.

Set up once per fork-server worker (:class:`Jail`), entered by every forked child before any
candidate or test code runs (:meth:`Jail.enter`):

- **Filesystem**: a read-only root of its own (a tmpfs holding read-only bind mounts of the
  Python installation, ``/usr`` and a few ``/etc`` files, device nodes such as ``/dev/null``)
  entered with ``pivot_root``, plus a private writable ``/tmp`` (a size-capped tmpfs emptied
  after every test case). The installation is visible wherever it lives: under ``/tmp`` it is
  bound again, read-only, over the private ``/tmp``. Nothing else exists there: not the
  evaluator's input or output files, not ``$MICROCODER_DATA``, not home directories, not
  another program's files.
- **Processes**: each child is PID 1 of a fresh PID namespace with its own ``/proc``; when it
  exits, the kernel kills everything it started (``kill(-1)``, fork bombs, ``setsid`` double forks).
- **Network**: an empty network namespace (no interface but a down loopback).
- **Privileges**: as root, children drop to a per-slot uid with no capability at all; without
  root, a user namespace gives the same view and the children drop every capability.
- **Landlock** on top, when the kernel has it: an allow-list of paths, no TCP, no signals or
  abstract sockets out of the domain. Without namespaces (no root, no user namespaces) it is the
  only filesystem wall; the level says so (``degraded``), and the worker warns on stderr.
"""

from __future__ import annotations

import _random
import ctypes
import fcntl
import os
import random
import shutil
import sys
import tempfile
import threading

from evaluator.sandbox import landlock

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME = 1 << 14, 1 << 18, 1 << 21
MNT_DETACH = 2
_SYS_PIVOT_ROOT = 155
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
_CAP_VERSION_3 = 0x20080522

RULESET_FD = 1000  # where the worker keeps its Landlock ruleset (children keep it until enforced)
JAIL_WRITABLE = ["/tmp", "/dev/null", "/dev/zero", "/dev/full"]
SANDBOX_UID_BASE = 61000  # root mode: each worker slot's children run as their own uid
USERNS_UID = 1000  # user-namespace mode: the uid inside (never 0, so exec gains no capability)
ETC_FILES = ("ld.so.cache", "ld.so.conf", "localtime", "passwd", "group", "nsswitch.conf", "hosts",
             "mime.types")
DEV_NODES = ("null", "zero", "full", "random", "urandom")
DEV_LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
             "stderr": "/proc/self/fd/2", "shm": "/tmp"}
_STATVFS_TO_MS = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                  (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME),
                  (os.ST_RELATIME, MS_RELATIME))

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
for _name in ("prctl", "capset", "setns", "unshare", "mount"):  # looked up here, in the fork server:
    getattr(_libc, _name)  # in each child the lookup costs a few dozen page faults


# glibc's fork called with the GIL held (PyDLL): the fork without the interpreter's at-fork hooks.
_bare_fork = ctypes.PyDLL(None, use_errno=True).fork
_bare_fork.restype = ctypes.c_int
_GIL = getattr(sys, "_is_gil_enabled", lambda: True)()


def quick_fork() -> int:
    """``os.fork`` without the interpreter's before/after-fork work, where this process has one
    thread (a fork server): that work (``threading``'s, ``logging``'s and ``random``'s hooks, the
    import lock and thread states re-made) is for other threads that a one-thread process has
    not, and the pages it touches are copied into every child: half a millisecond of a child's CPU.
    The one hook whose effect a program sees runs here: ``random`` seeds itself afresh, as in a new
    ``python3``. Elsewhere (several threads, a build without the GIL) it is ``os.fork``."""
    if not _GIL or threading.active_count() != 1:
        return os.fork()
    pid = _bare_fork()
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"fork: {os.strerror(err)}")
    if pid == 0:
        _reseed()
    return pid


_seed_from_urandom = _random.Random.seed


def _reseed() -> None:
    """``random.seed()``, as a new ``python3`` seeds itself, from the OS's entropy: its C half
    alone (the Python wrapper only checks its argument, and its bytecode wrote about 30 of the
    server's pages into each child's copy)."""
    _seed_from_urandom(random._inst, None)
    if random._inst.gauss_next is not None:
        random._inst.gauss_next = None


def release_free_memory() -> None:
    """Give the C heap's free pages back to the kernel (``malloc_trim``): a fork server's every
    fork maps, and every child's exit unmaps, each resident page (about 1 MB less after the
    preload's imports)."""
    trim = getattr(_libc, "malloc_trim", None)  # glibc only
    if trim is not None:
        trim(0)


class JailError(OSError):
    """A confinement step failed: the child must not run candidate code."""


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise JailError(err, f"{what}: {os.strerror(err)}")


def _bytes(text: str | None) -> bytes | None:
    return text.encode() if text is not None else None


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_bytes(src), _bytes(target), _bytes(fstype), ctypes.c_ulong(flags), _bytes(data)),
           f"mount {target}")


def _umount(target: str) -> None:
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def prctl(option: int, arg: int) -> bool:
    return _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) == 0


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _installation_names() -> set[str]:
    """The Python installation(s) this worker runs from, as named (symlinks unresolved)."""
    names = {os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    names.add(os.path.dirname(os.path.dirname(os.path.abspath(sys.executable))))
    return names


def visible_paths() -> list[str]:
    """Host paths a candidate may read: the Python installation(s) this worker runs from and the
    system's ``/usr`` (shared libraries, ``/usr/bin`` tools). Not the project directory: only
    ``sys.path`` entries under these prefixes are visible, so our own code and data are not.
    Real paths, wherever they live (``/tmp``, a home directory, a read-only mount)."""
    prefixes = {os.path.realpath(p) for p in _installation_names()}
    prefixes.add(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    for top in ("/usr", "/bin", "/lib", "/lib64", "/sbin", "/lib32", "/libx32"):
        if os.path.isdir(top) and not os.path.islink(top):
            prefixes.add(top)
    keep = sorted(p for p in prefixes if p != "/" and os.path.isdir(p))
    return [p for p in keep if not any(p != q and p.startswith(q + "/") for q in keep)]


def import_roots() -> tuple[str, ...]:
    """Where code may be imported from inside the box: the read-only installation, under its real
    paths and under the names ``sys.path`` uses (a venv reached through a symlink)."""
    roots = set(visible_paths())
    roots.update(p for p in _installation_names() if os.path.realpath(p) != p and os.path.isdir(p))
    return tuple(sorted(roots))


def _under(path: str, roots: tuple[str, ...] | list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def import_path(entries: list[str], roots: tuple[str, ...], cwd: str) -> list[str]:
    """The ``sys.path`` entries inside the read-only installation ``roots``: never the writable
    ``/tmp`` or working directory ``cwd``, except an installation sealed read-only inside it
    (a venv under ``/tmp``, see :meth:`Jail._seal_in_tmp`)."""
    sealed = tuple(r for r in roots if _under(r, (cwd,)))
    out = []
    for entry in entries:
        path = os.path.normpath(entry) if entry and os.path.isabs(entry) else ""
        if path and _under(path, roots) and (not _under(path, (cwd,)) or _under(path, sealed)):
            out.append(entry)
    return out


def unreachable(paths: list[str], uid: int) -> list[str]:
    """The ``paths`` that ``uid`` cannot reach through plain permissions (an ancestor such as a
    0700 home directory it may not search). Only matters without a mount namespace: the box
    binds the installation where any uid can reach it."""
    hidden = []
    for path in paths:
        parts = path.strip("/").split("/")
        for i in range(len(parts)):
            try:
                st = os.stat("/" + "/".join(parts[: i + 1]))
            except OSError:
                break
            if st.st_uid != uid and not st.st_mode & 0o001:
                hidden.append(path)
                break
    return hidden


class Jail:
    """One worker's box. ``level`` names what this machine gave, e.g.
    ``root:mntns+pidns+netns+ipcns+uid+landlock7+rlimits`` or ``degraded:landlock7+rlimits``."""

    def __init__(self, slot: int, tmp_mb: int = 256) -> None:
        self.slot, self.tmp_mb = slot, tmp_mb
        self.root: str | None = None  # the jail root, as seen by the worker
        self.uid: int | None = None
        self.userns = False
        self.pidns_fd: int | None = None
        self.landlock_abi = landlock.abi()
        self.workdir = ""
        self.kept_in_tmp: frozenset[str] = frozenset()  # installation directories under /tmp
        self.import_roots = import_roots()  # computed on the host side, before any pivot
        self.base = tempfile.mkdtemp(prefix=f"mc-eval-{slot}-")
        os.chmod(self.base, 0o711)
        # MICROCODER_EVAL_NAMESPACES=0 forces the degraded level (to test it, or where namespaces
        # misbehave); it is reported like any other level.
        parts = self._enter_namespaces() if os.environ.get("MICROCODER_EVAL_NAMESPACES", "1") != "0" else []
        if os.geteuid() == 0 and not self.userns:
            self.uid = SANDBOX_UID_BASE + self.slot
        if self.root is not None:
            parts.append("mntns")
            if self._probe_pidns():
                parts.append("pidns")
        if self.uid is not None:
            parts.append("uid")
        self.ruleset_fd: int | None = None
        if self.landlock_abi:
            parts.append(f"landlock{self.landlock_abi}")
            if self.root is not None:  # a fixed box: one ruleset for every child
                fd = landlock.ruleset(["/"], JAIL_WRITABLE, self.landlock_abi)
                self.ruleset_fd = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, RULESET_FD)
                os.close(fd)
        parts.append("rlimits")
        mode = "root" if os.geteuid() == 0 and not self.userns else "userns" if self.userns else "degraded"
        if self.root is None:
            mode = "degraded"
        self.level = f"{mode}:" + "+".join(parts)

    @property
    def hidden_installation(self) -> list[str]:
        """Installation paths the candidate's uid cannot reach at this level (warned about)."""
        if self.root is not None or self.uid is None:
            return []
        return unreachable(visible_paths(), self.uid)

    @property
    def degraded(self) -> bool:
        return self.level.startswith("degraded")

    # ------------------------------------------------------------------ worker set-up (once)
    def _enter_namespaces(self) -> list[str]:
        parts: list[str] = []
        flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
        if os.geteuid() == 0:
            if _libc.unshare(flags) != 0:
                return parts
        else:
            real_uid, real_gid = os.getuid(), os.getgid()
            if _libc.unshare(flags | CLONE_NEWUSER | CLONE_NEWPID) != 0:
                return parts
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{USERNS_UID} {real_uid} 1")
            _write("/proc/self/gid_map", f"{USERNS_UID} {real_gid} 1")
            self.userns = True
            parts.append("userns")
            self._become_pid_one()
        parts += ["netns", "ipcns"]
        try:
            _mount(None, "/", None, MS_REC | MS_PRIVATE)
            if self.userns:  # our /proc must show our PID namespace (pids we kill are ours)
                _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            self.root = self._build_root()
        except OSError as exc:
            print(f"microcoder-eval: no filesystem view ({exc}); falling back to Landlock", file=sys.stderr)
            self.root = None
        return parts

    def _become_pid_one(self) -> None:
        """After unshare(CLONE_NEWPID) only our next child is in the new namespace: fork, and
        let the original process wait and pass its child's exit status on."""
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
        prctl(PR_SET_PDEATHSIG, 9)

    def _build_root(self) -> str:
        root = tempfile.mkdtemp(prefix="mc-jail-", dir=self.base)
        _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=4m")
        paths = visible_paths()
        for path in paths:
            if not path.startswith("/tmp/"):
                self._bind(path, root + path)
        for top in ("/bin", "/lib", "/lib64", "/sbin"):
            if os.path.islink(top):
                os.symlink(os.readlink(top), root + top)
        os.makedirs(root + "/etc", exist_ok=True)
        for name in ETC_FILES:
            if os.path.isfile(f"/etc/{name}"):
                self._bind(f"/etc/{name}", f"{root}/etc/{name}")
        os.makedirs(root + "/dev", exist_ok=True)
        for name in DEV_NODES:
            if os.path.exists(f"/dev/{name}"):
                self._bind(f"/dev/{name}", f"{root}/dev/{name}", writable=True, devices=True)
        for name, target in DEV_LINKS.items():
            if not os.path.lexists(f"{root}/dev/{name}"):  # an installation under /dev/shm is bound there
                os.symlink(target, f"{root}/dev/{name}")
        for name in ("proc", "tmp"):
            os.makedirs(f"{root}/{name}", mode=0o755, exist_ok=True)
        _mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
               f"size={self.tmp_mb}m,nr_inodes=16384,mode=1777")
        in_tmp = [p for p in paths if p.startswith("/tmp/")]
        for path in in_tmp:  # would vanish under the private /tmp: bound again on top of it
            self._bind(path, root + path)
        self._seal_in_tmp(root, in_tmp + self._bind_aliases(root))
        # Our own /proc inside the box (needed after the pivot; mounted while the host's is visible).
        _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        # The worker moves in for good: its mount namespace then holds only the box, so each
        # child's copy of it is small and needs no pivot of its own.
        os.chdir(root)
        _check(_libc.syscall(_SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
        _umount(".")
        os.chdir("/")
        return "/"

    def _bind_aliases(self, root: str) -> list[str]:
        """``sys.path`` names the installation as the worker was started (``/tmp/x/venv`` where
        ``/tmp/x`` is a symlink): bind the real path under those names too. Returns them."""
        done = []
        for name in sorted(_installation_names()):
            real = os.path.realpath(name)
            if real == name or os.path.lexists(root + name) or not os.path.isdir(real):
                continue
            try:
                self._bind(real, root + name)
                done.append(name)
            except OSError:
                pass  # a name inside another bound (read-only) path: the real path still works
        return done

    def _seal_in_tmp(self, root: str, paths: list[str]) -> None:
        """An installation under ``/tmp`` (a clone or venv there) is bound over the private
        ``/tmp``, inside a top-level directory made read-only here: no case can write to it,
        rename or remove it (a mount point), and :meth:`end_case` leaves it alone."""
        tops = {p.split("/")[2] for p in paths if p.startswith("/tmp/")}
        for top in sorted(tops):
            dst = f"{root}/tmp/{top}"
            if not os.path.ismount(dst):
                _mount(dst, dst, None, MS_BIND | MS_REC)
                _mount(None, dst, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        self.kept_in_tmp = frozenset(tops)

    @staticmethod
    def _bind(src: str, dst: str, *, writable: bool = False, devices: bool = False) -> None:
        if os.path.isdir(src):
            os.makedirs(dst, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            open(dst, "a").close()
        _mount(src, dst, None, MS_BIND | MS_REC)
        flags = 0 if writable else MS_RDONLY
        flags |= MS_NOSUID | (0 if devices else MS_NODEV)
        have = os.statvfs(dst).f_flag
        for st, ms in _STATVFS_TO_MS:  # flags locked by the parent namespace must be kept
            if have & st:
                flags |= ms
        if have & os.ST_RDONLY:
            flags |= MS_RDONLY
        _mount(None, dst, None, MS_BIND | MS_REMOUNT | flags)

    def _probe_pidns(self) -> bool:
        try:
            self.pidns_fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            pid = self.fork()
        except OSError:
            self.pidns_fd = None
            return False
        if pid == 0:
            os._exit(0 if os.getpid() == 1 else 1)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            os.close(self.pidns_fd)
            self.pidns_fd = None
            return False
        return True

    # ------------------------------------------------------------------ per test case
    def begin_case(self) -> str:
        """This case's private, empty ``/tmp``; returns its path as the worker sees it."""
        if self.root is not None:
            self.workdir = "/tmp"
        else:
            self.workdir = tempfile.mkdtemp(dir=self.base)
            os.chmod(self.workdir, 0o777)
        return self.workdir

    def end_case(self) -> None:
        """Nothing the case wrote survives it (its processes are gone: their namespace died)."""
        if self.root is None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            return
        with os.scandir(self.workdir) as entries:
            for entry in entries:
                if entry.name in self.kept_in_tmp:
                    continue  # the read-only installation (see _seal_in_tmp)
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)

    def close(self) -> None:
        """Remove this worker's host-side directory where it can still see it (degraded level;
        otherwise the pool removes it once the worker has exited)."""
        if self.root is None:
            shutil.rmtree(self.base, ignore_errors=True)

    def fork(self) -> int:
        """A fork (:func:`quick_fork`) into a fresh PID namespace (the child is its PID 1) when we have them."""
        if self.pidns_fd is not None:
            _check(_libc.setns(self.pidns_fd, CLONE_NEWPID), "setns pid")
            _check(_libc.unshare(CLONE_NEWPID), "unshare pid")
        return quick_fork()

    # ------------------------------------------------------------------ in the child
    def enter(self) -> None:
        """Called in a freshly forked child before untrusted code: the filesystem view, the
        private ``/proc`` and ``/tmp``, then no privilege and the Landlock domain. Raises
        :class:`JailError` on any failure (the caller exits without running the candidate)."""
        if self.root is not None:
            _check(_libc.unshare(CLONE_NEWNS), "unshare mnt")
            if self.pidns_fd is not None:  # a /proc that shows this PID namespace only
                _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            os.chdir("/tmp")
        else:
            os.chdir(self.workdir)
        self._drop_privileges()
        prctl(PR_SET_PDEATHSIG, 9)  # setuid cleared the one set at fork: die with the worker
        if self.ruleset_fd is not None:
            landlock.enforce(self.ruleset_fd)
            os.close(self.ruleset_fd)
        elif self.landlock_abi:
            read_only = visible_paths() + [f"/etc/{n}" for n in ETC_FILES] + [
                "/dev/random", "/dev/urandom", "/proc/self"]
            writable = [self.workdir, "/dev/null", "/dev/zero", "/dev/full"]
            landlock.restrict(read_only, writable, self.landlock_abi)

    def _drop_privileges(self) -> None:
        if self.uid is not None:
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)  # no KEEPCAPS: every capability goes
        elif self.userns:
            header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
            data = (ctypes.c_uint32 * 6)()
            _check(_libc.capset(header, data), "capset")
        if os.geteuid() == 0:
            raise JailError(1, "still root after dropping privileges")
