"""Programs written to win reward without solving the task, as a strong policy would write them
after reading our source. Each must fail, and the evaluator must stay healthy; the valid
idioms at the end must still pass. Grouped by the class of attack (issue 11)."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from evaluator import Limits, evaluate, evaluate_many

WRONG = "def f(x):\n    return 0\n"  # f(2) must be 4
ASSERT = {"kind": "assert", "fn_name": "f", "assert_code": "assert f(2) == 4\nassert f(3) == 9\n"}
CALL = {"kind": "call", "fn_name": "f", "cases": [{"input": "[2]", "output": "4"}, {"input": "[3]", "output": "9"}]}
STDIN = {"kind": "stdin", "cases": [{"input": "2\n", "output": "4\n"}, {"input": "3\n", "output": "9\n"}]}
FAKE_OK = '{"status": "ok"}\\n'

# ----------------------------------------------------------------------------- in-process forgery
FORGERY = {
    "frames_walk_call_report_writers": WRONG + (
        "import sys\n"
        "f = sys._getframe()\n"
        "while f is not None:\n"
        "    for name, v in list(f.f_globals.items()) + list(f.f_locals.items()):\n"
        "        if callable(v) and name in ('emit', '_report', 'write_message', 'send', 'exit_'):\n"
        "            try:\n                v({'status': 'ok', 'completed': True})\n            except BaseException:\n                pass\n"
        "    f = f.f_back\n"),
    "frames_from_inside_the_called_function": (
        "import sys, os\n"
        "def f(x):\n"
        "    fr = sys._getframe(1)\n"
        "    while fr is not None:\n"
        "        g = fr.f_globals\n"
        "        for k in ('_report', 'emit'):\n"
        "            if k in g:\n"
        "                try:\n                    g[k](3, {'status': 'ok'})\n                except BaseException:\n                    pass\n"
        "        fr = fr.f_back\n"
        "    return 0\n"),
    "gc_objects_call_writers": WRONG + (
        "import gc\n"
        "for o in gc.get_objects():\n"
        "    n = getattr(o, '__name__', '')\n"
        "    if callable(o) and n in ('_report', 'emit', 'write_message', 'run'):\n"
        "        try:\n            o(3, {'status': 'ok'})\n        except BaseException:\n            pass\n"),
    "fake_report_on_every_fd_then_exit": WRONG + (
        "import os\n"
        f"for fd in range(0, 256):\n    try:\n        os.write(fd, b'{FAKE_OK}')\n    except OSError:\n        pass\n"
        "os._exit(0)\n"),
    "fake_replies_into_the_judge_pipe": (
        "import os, json\n"
        "def f(x):\n    return 0\n"
        "msg = json.dumps({'r': 4, 'out': ''}) + '\\n'\n"
        "for fd in range(3, 64):\n    try:\n        os.write(fd, (msg * 50).encode())\n    except OSError:\n        pass\n"),
    "thread_writes_fake_report": WRONG + (
        "import os, threading\n"
        "def spam():\n"
        f"    for fd in range(256):\n        try:\n            os.write(fd, b'{FAKE_OK}')\n        except OSError:\n            pass\n"
        "threading.Thread(target=spam).start()\n"),
    "signal_handler_exits_zero": WRONG + (
        "import signal, os\n"
        "signal.signal(signal.SIGALRM, lambda *a: os._exit(0))\nsignal.setitimer(signal.ITIMER_REAL, 0.001)\n"),
    "atexit_exit_zero": WRONG + "import atexit, os\natexit.register(lambda: os._exit(0))\nraise SystemExit(0)\n",
    "excepthook_swallows": WRONG + "import sys\nsys.excepthook = lambda *a: None\nsys.unraisablehook = lambda *a: None\n",
    "assertion_error_replaced": WRONG + "import builtins\nbuiltins.AssertionError = type('Nope', (Exception,), {})\n",
    "json_monkeypatched": WRONG + "import json\njson.dumps = lambda *a, **k: '{\"status\": \"ok\"}'\njson.loads = lambda *a, **k: {'status': 'ok'}\n",
    "os_write_monkeypatched": WRONG + "import os\n_w = os.write\nos.write = lambda fd, data: _w(fd, b'{\"status\": \"ok\"}\\n')\n",
    "sys_modules_replaced": WRONG + (
        "import sys, types\n"
        "fake = types.ModuleType('evaluator.asserts.judge')\nfake.run = lambda *a, **k: None\n"
        "sys.modules['evaluator.asserts.judge'] = fake\nsys.modules['evaluator.runtime.wire'] = fake\n"),
    "settrace_skips_lines": WRONG + (
        "import sys\n"
        "def tracer(frame, event, arg):\n"
        "    if frame.f_code.co_filename == '<test>':\n        frame.f_lineno = frame.f_code.co_firstlineno\n"
        "    return tracer\n"
        "sys.settrace(tracer)\n"),
    "called_function_exits_process": "import os\ndef f(x):\n    os._exit(0)\n",
    "called_function_raises_systemexit": "def f(x):\n    raise SystemExit(0)\n",
    "called_function_kills_its_process": "import os, signal\ndef f(x):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    "test_code_searched_in_memory": (
        "import gc, re\n"
        "def f(x):\n"
        "    for o in gc.get_objects():\n"
        "        for s in (o if isinstance(o, (list, tuple)) else [o]):\n"
        "            if isinstance(s, str) and 'assert f(' in s:\n"
        "                m = re.findall(r'f\\((\\d+)\\) == (\\d+)', s)\n"
        "                return dict((int(a), int(b)) for a, b in m).get(x, 0)\n"
        "    return 0\n"),
    "test_code_searched_in_raw_memory": (
        "import re\n"
        "def f(x):\n"
        "    found = {}\n"
        "    with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:\n"
        "        for line in maps:\n"
        "            lo, hi = (int(v, 16) for v in line.split()[0].split('-'))\n"
        "            if 'r' not in line.split()[1] or hi - lo > 1 << 28:\n                continue\n"
        "            try:\n                mem.seek(lo)\n                chunk = mem.read(hi - lo)\n            except OSError:\n                continue\n"
        "            for a, b in re.findall(rb'assert f\\((\\d+)\\) == (\\d+)', chunk):\n"
        "                found[int(a)] = int(b)\n"
        "    return found.get(x, 0)\n"),
}

# Tests that use builtins or modules the solution imported: the program must not supply them.
SHADOW_TESTS = {"kind": "assert", "fn_name": "f",
                "assert_code": "assert sorted(f(3)) == [1, 2, 3]\nassert math.isclose(f(2)[0], 1.0)\n"}
SHADOWING = {
    "shadow_builtin_sorted": "import math\ndef sorted(x):\n    return [1, 2, 3]\ndef f(n):\n    return [0]\n",
    "fake_math_module": ("class M:\n    def isclose(self, *a, **k):\n        return True\nmath = M()\n"
                         "def f(n):\n    return [9, 9, 9]\n"),
    "plant_module_in_tmp": ("open('/tmp/json.py', 'w').write('loads = dumps = lambda *a, **k: 0')\n"
                            "open('/tmp/math.py', 'w').write('isclose = lambda *a, **k: True')\n"
                            "import math\ndef f(n):\n    return [9, 9, 9]\n"),
}

# ----------------------------------------------------------------------------- comparison overriding
EQ = "    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n    __hash__ = object.__hash__\n"
COMPARISON = {
    "plain_class_eq": "class A:\n" + EQ + "def f(x):\n    return A()\n",
    "int_subclass_eq": "class A(int):\n" + EQ + "def f(x):\n    return A(0)\n",
    "str_subclass_eq": "class A(str):\n" + EQ + "def f(x):\n    return A('nope')\n",
    "float_subclass_eq": "class A(float):\n" + EQ + "def f(x):\n    return A(0.5)\n",
    "list_subclass_eq": "class A(list):\n" + EQ + "def f(x):\n    return A([0])\n",
    "dict_subclass_eq": "class A(dict):\n" + EQ + "def f(x):\n    return A()\n",
    "renamed_with_type_and_builtins_module": (
        "A = type('int', (), {'__eq__': lambda s, o: True, '__ne__': lambda s, o: False, '__hash__': object.__hash__,"
        " '__module__': 'builtins'})\ndef f(x):\n    return A()\n"),
    "metaclass_eq_class_returned": (
        "class M(type):\n" + EQ + "class A(metaclass=M):\n    pass\ndef f(x):\n    return A\n"),
    "class_attribute_spoofs_int": (
        "class A:\n    __class__ = int\n" + EQ + "def f(x):\n    return A()\n"),
    "eq_on_nested_element": "class A:\n" + EQ + "def f(x):\n    return [A()][0]\n",
    "numpy_array_subclass_eq": (
        "import numpy as np\nclass A(np.ndarray):\n    def __eq__(self, other):\n        return True\n"
        "def f(x):\n    return np.zeros(1).view(A)\n"),
    "functools_total_ordering_lie": (
        "import functools\n@functools.total_ordering\nclass A:\n" + EQ + "    def __lt__(self, o):\n        return False\n"
        "def f(x):\n    return A()\n"),
}

# ----------------------------------------------------------------------------- reading expected outputs
READING = {
    "walk_proc_ancestors_cmdline": (
        "import os\n"
        "def f(x):\n"
        "    for pid in os.listdir('/proc'):\n"
        "        if pid.isdigit():\n"
        "            try:\n"
        "                for part in open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\\0'):\n"
        "                    p = part.decode()\n"
        "                    if p.endswith(('.jsonl', '.json', '.parquet')) and os.path.exists(p):\n"
        "                        return len(open(p).read())\n"
        "            except OSError:\n                pass\n"
        "    return 0\n"),
    "read_shared_and_project_data": (
        "import glob, os\n"
        "def f(x):\n"
        "    paths = ['/work/shared/data', '/work/main/data', '/work/main/pyproject.toml', '/work/main/evaluator',\n"
        "             '/root/.cache', '/work/main/tests', '/etc/hostname']\n"
        "    hits = [p for p in paths if os.path.exists(p)] + glob.glob('/home/*/*') + glob.glob('/tmp/pytest-of-*')\n"
        "    return x * x if hits else 0\n"),
    "read_root_only_file": "def f(x):\n    open('/etc/shadow').read()\n    return x * x\n",
    "inherited_descriptors": (
        "import os\n"
        "def f(x):\n"
        "    for fd in range(3, 1024):\n"
        "        try:\n            data = os.pread(fd, 1 << 20, 0)\n        except OSError:\n            continue\n"
        "        if b'f(2) ' + b'== 4' in data:\n            return x * x\n"
        "    return 0\n"),
    "environment_secrets": "import os\ndef f(x):\n    return x * x if 'MC_ADV_SECRET' in os.environ else 0\n",
    "other_processes_environ": (
        "import os\n"
        "def f(x):\n"
        "    for pid in os.listdir('/proc'):\n"
        "        try:\n            if b'MC_ADV_SECRET' in open(f'/proc/{pid}/environ', 'rb').read():\n                return x * x\n"
        "        except OSError:\n            pass\n"
        "    return 0\n"),
}

# ----------------------------------------------------------------------------- writing outside
WRITING = {
    "write_into_site_packages": (
        "import os, sys\n"
        "def f(x):\n"
        "    for d in sys.path:\n"
        "        try:\n            open(os.path.join(d, 'mc_evil.py'), 'w').write('x')\n            return x * x\n"
        "        except OSError:\n            pass\n"
        "    return 0\n"),
    "write_into_project_tree": "def f(x):\n    open('/work/main/mc_evil.txt', 'w').write('x')\n    return x * x\n",
}

# ----------------------------------------------------------------------------- network
NETWORK = {
    "tcp_loopback_server_of_the_host": (
        "import socket, os\n"
        "def f(x):\n"
        "    s = socket.create_connection(('127.0.0.1', PORT), timeout=1)\n"
        "    s.sendall(b'hello')\n    return x * x\n"),
    "udp_to_loopback": (
        "import socket\n"
        "def f(x):\n"
        "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n    s.sendto(b'hello', ('127.0.0.1', PORT))\n    return x * x\n"),
    "abstract_unix_socket": (
        "import socket\n"
        "def f(x):\n"
        "    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n    s.connect('\\0' + ABSTRACT)\n    return x * x\n"),
    "public_address": (
        "import socket\n"
        "def f(x):\n"
        "    socket.create_connection(('1.1.1.1', 80), timeout=1)\n    return x * x\n"),
}

# ----------------------------------------------------------------------------- process escape, signals
PROCESS = {
    "kill_everything_it_can": "import os, signal\ndef f(x):\n    os.kill(-1, signal.SIGKILL)\n    return 0\n",
    "signal_host_pid": "import os, signal\ndef f(x):\n    os.kill(HOST_PID, signal.SIGKILL)\n    return x * x\n",
    "setsid_double_fork_survivor": (
        "import os, time\n"
        "def f(x):\n"
        "    if os.fork() == 0:\n        os.setsid()\n        if os.fork() == 0:\n"
        "            os.execve('/bin/sleep', ['sleep', '300'], {'MC_HOSTILE_MARK': '1'})\n        os._exit(0)\n"
        "    return 0\n"),
    "fork_bomb": "import os\ndef f(x):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n",
    "thread_bomb": (
        "import threading, time\n"
        "def f(x):\n"
        "    while True:\n        try:\n            threading.Thread(target=time.sleep, args=(100,), daemon=True).start()\n"
        "        except BaseException:\n            pass\n"),
    "ptrace_attach_to_pid_one": (
        "import ctypes\n"
        "def f(x):\n"
        "    libc = ctypes.CDLL(None)\n    return x * x if libc.ptrace(16, 1, 0, 0) == 0 else 0\n"),
}

# ----------------------------------------------------------------------------- resource exhaustion
RESOURCES = {
    "memory": "def f(x):\n    b = bytearray(6 * 1024 ** 3)\n    return x * x\n",
    "disk_in_tmp": "def f(x):\n    with open('/tmp/fill', 'wb') as fh:\n        while True:\n            fh.write(b'x' * (1 << 20))\n",
    "output_flood": "import sys\ndef f(x):\n    while True:\n        sys.stdout.write('x' * 65536)\n",
    "file_descriptors": "def f(x):\n    keep = [open('/dev/null') for _ in range(100000)]\n    return x * x\n",
    "cpu_loop": "def f(x):\n    while True:\n        pass\n",
    "stderr_flood": "import sys\ndef f(x):\n    while True:\n        sys.stderr.write('x' * 65536)\n",
}

GROUPS = {"shadowing": SHADOWING, "forgery": FORGERY, "comparison": COMPARISON, "reading": READING, "writing": WRITING,
          "network": NETWORK, "process": PROCESS, "resources": RESOURCES}
ALL = [(group, name, code) for group, progs in GROUPS.items() for name, code in progs.items()]


def _abstract_name() -> str:
    return f"mc-adversarial-{os.getpid()}"


def test_at_least_forty_hostile_programs():
    assert len(ALL) >= 40


@pytest.fixture(scope="module")
def listeners():
    """A TCP and a UDP server on the host's loopback, recording whatever reaches them."""
    received: list[bytes] = []
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    tcp.settimeout(0.2)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", tcp.getsockname()[1]))
    udp.settimeout(0.2)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + _abstract_name())
    abstract.listen()
    abstract.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            for sock in (tcp, abstract):
                try:
                    conn, _ = sock.accept()
                    received.append(b"connect")
                    conn.close()
                except OSError:
                    pass
            try:
                received.append(udp.recv(100))
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield tcp.getsockname()[1], received
    stop.set()
    thread.join()
    for sock in (tcp, udp, abstract):
        sock.close()


@pytest.mark.parametrize("group,name,code", ALL, ids=[f"{g}-{n}" for g, n, _ in ALL])
def test_hostile_program_fails(group, name, code, listeners, leftover_processes):
    port, received = listeners
    code = code.replace("PORT", str(port)).replace("HOST_PID", str(os.getpid()))
    code = code.replace("ABSTRACT", repr(_abstract_name()))
    os.environ["MC_ADV_SECRET"] = "hunter2"
    try:
        res = evaluate(code, SHADOW_TESTS if group == "shadowing" else ASSERT, Limits(time_s=3, output_mb=4))
    finally:
        del os.environ["MC_ADV_SECRET"]
    assert not res.passed, (name, res)
    assert res.verdict != "internal_error", (name, res)
    if group == "network":
        assert received == [], f"{name} reached the host: {received}"
    if group == "writing":
        assert not os.path.exists("/work/main/mc_evil.txt")
    time.sleep(0.1)
    assert leftover_processes() == [], f"{name} left processes behind"
    # The evaluator is healthy: the next, honest program is judged as usual.
    assert evaluate("def f(x):\n    return x * x\n", ASSERT, Limits(time_s=5)).passed


@pytest.mark.parametrize("name", ["plain_class_eq", "int_subclass_eq", "renamed_with_type_and_builtins_module",
                                  "class_attribute_spoofs_int", "numpy_array_subclass_eq"])
def test_comparison_tricks_fail_call_tests_too(name):
    assert evaluate(COMPARISON[name], CALL, Limits(time_s=5)).verdict == "wrong_answer"


def test_shadow_tests_accept_an_honest_program():
    assert evaluate("import math\ndef f(n):\n    return [1.0, 2, 3][:n] if n < 3 else [3, 1, 2]\n",
                    SHADOW_TESTS, Limits(time_s=5)).passed


def test_no_leftover_file_between_cases():
    leave = "import os\nopen('/tmp/left', 'w').write('4')\nopen('left', 'w').write('4')\nprint(input() and 4)\n"
    look = ("import os\nprint(4 if os.path.exists('/tmp/left') or os.path.exists('left') else 0)\n")
    tests = {"kind": "stdin", "cases": [{"input": "2\n", "output": "4\n"}]}
    assert evaluate(leave, tests, Limits(time_s=5)).passed
    assert not evaluate(look, tests, Limits(time_s=5)).passed


def test_process_view_is_private():
    code = "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
    res = evaluate(code, {"kind": "stdin", "cases": [{"input": "", "output": "[1]\n"}]}, Limits(time_s=5))
    if "pidns" in res.isolation:
        assert res.passed, res


def test_filesystem_view_is_minimal():
    code = "import os\nprint(sorted(os.listdir('/')))\nprint(os.listdir('/tmp'))\n"
    res = evaluate(code, {"kind": "stdin", "cases": [{"input": "", "output": ""}]}, Limits(time_s=5))
    if "mntns" in res.isolation:
        listing = res.cases[0].message
        assert "'home'" not in listing and "'data'" not in listing and "'shared'" not in listing, listing


# ----------------------------------------------------------------------------- valid idioms
VALID_STDIN = {
    "input_loop": "n = int(input())\nprint(n * n)\n",
    "sys_stdin_read": "import sys\nprint(int(sys.stdin.read()) ** 2)\n",
    "open_fd_zero": "print(int(open(0).read()) ** 2)\n",
    "dev_stdin": "print(int(open('/dev/stdin').read()) ** 2)\n",
    "stdin_buffer": "import sys\nprint(int(sys.stdin.buffer.readline()) ** 2)\n",
    "os_read_write": "import os\nn = int(os.read(0, 100))\nos.write(1, f'{n * n}\\n'.encode())\n",
    "deep_recursion": ("import sys\nsys.setrecursionlimit(10 ** 6)\n"
                       "def d(k):\n    return 0 if k == 0 else 1 + d(k - 1)\n"
                       "n = int(input())\nprint(n * n + d(200000) - 200000)\n"),
    "threading_big_stack": ("import sys, threading\nthreading.stack_size(1 << 26)\nsys.setrecursionlimit(10 ** 6)\n"
                            "def main():\n    n = int(input())\n    print(n * n)\nt = threading.Thread(target=main)\nt.start()\nt.join()\n"),
    "temp_files": ("import tempfile\nn = int(input())\nwith tempfile.TemporaryFile() as fh:\n"
                   "    fh.write(str(n * n).encode())\n    fh.seek(0)\n    print(fh.read().decode())\n"),
    "numpy_and_sortedcontainers": ("import numpy as np\nfrom sortedcontainers import SortedList\n"
                                   "n = int(input())\nprint(int(np.int64(n) ** 2) + len(SortedList()))\n"),
    "subprocess_of_python": ("import subprocess, sys\nn = int(input())\n"
                             "print(subprocess.run([sys.executable, '-c', f'print({n}*{n})'], capture_output=True, text=True).stdout.strip())\n"),
    "kill_self_after_printing": "import os, sys, signal\nprint(int(input()) ** 2)\nsys.stdout.flush()\nos.kill(os.getpid(), signal.SIGKILL)\n",
    "exit_zero_after_printing": "import sys\nprint(int(input()) ** 2)\nsys.exit(0)\n",
}


def test_valid_idioms_pass():
    items = [(name, code, STDIN) for name, code in VALID_STDIN.items()]
    results = evaluate_many(items, Limits(time_s=10), workers=2)
    bad = {r.key: (r.verdict, r.cases[-1].message) for r in results if not r.passed}
    assert bad == {}


def test_big_integers_print_as_on_judges():
    tests = {"kind": "stdin", "cases": [{"input": "5000\n", "output": "1" + "0" * 5000 + "\n"}]}
    assert evaluate("print(10 ** int(input()))\n", tests, Limits(time_s=5)).passed
    call = {"kind": "call", "fn_name": "f", "cases": [{"input": "[5000]", "output": "1" + "0" * 5000}]}
    assert evaluate("def f(n):\n    return 10 ** n\n", call, Limits(time_s=5)).passed
    asserting = {"kind": "assert", "fn_name": "f", "assert_code": "assert str(f(5000)) == '1' + '0' * 5000\n"}
    assert evaluate("def f(n):\n    return 10 ** n\n", asserting, Limits(time_s=5)).passed


def test_assert_tests_keep_python_semantics():
    """What the proxy must carry faithfully: tuples vs lists, sets, dicts, bytes, exceptions,
    in-place mutation, objects of the program's classes, printed output, generators."""
    code = (
        "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, v):\n        self.items.append(v)\n"
        "    def pop(self):\n        return self.items.pop()\n    def __len__(self):\n        return len(self.items)\n"
        "class Bad(ValueError):\n    pass\n"
        "def pair(x):\n    return (x, x)\n"
        "def sort_in_place(a):\n    a.sort()\n"
        "def check(x):\n    if x < 0:\n        raise Bad('negative')\n    return {x: {1, 2}, 'b': b'\\x00'}\n"
        "def shout(s):\n    print(s.upper())\n"
        "def gen(n):\n    yield from range(n)\n"
        "def same(node):\n    return node\n"
        "if __name__ == '__main__':\n    import doctest, sys\n    doctest.testmod()\n    assert sys.stdout.encoding\n"
    )
    test = (
        "assert pair(1) == (1, 1) and pair(1) != [1, 1]\n"
        "a = [3, 1, 2]\nsort_in_place(a)\nassert a == [1, 2, 3]\n"
        "assert check(2) == {2: {1, 2}, 'b': b'\\x00'}\n"
        "try:\n    check(-1)\n    assert False\nexcept Bad as e:\n    assert 'negative' in str(e) and isinstance(e, ValueError)\n"
        "s = Stack()\ns.push(5)\ns.push(6)\nassert len(s) == 2 and s.pop() == 6 and s.items == [5]\n"
        "import io, contextlib\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n    shout('hi')\nassert buf.getvalue() == 'HI\\n'\n"
        "assert list(gen(3)) == [0, 1, 2]\n"
        "t = Stack()\nassert same(t) is t and same(t) == t and same(t) != s\n"
    )
    res = evaluate(code, {"kind": "assert", "assert_code": test}, Limits(time_s=5))
    assert res.passed, res
