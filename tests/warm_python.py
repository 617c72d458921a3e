"""Programs run as `python script.py ARGS` would run them, forked from an interpreter that has
already imported jax.

Why: the suite runs some hundred jax programs in a fresh interpreter each (the lowering that fails
and its fix that lowers, a golden's original and its rewrite, on three jax releases), and importing
jax is most of each run: over a second of CPU, before the program does anything. A fork of an
interpreter that imported jax and nothing else starts each program from the same state as a fresh
one, minus the import: no backend is initialised before the fork (jax warns about a fork after
that), the program's own imports, configuration, warnings and compilations happen in the child and
die with it. What differs from a fresh interpreter is made the same by hand: `sys.argv`,
`sys.path[0]` (the script's folder), the working folder, stdout and stderr (files), the exit
status (SystemExit, an uncaught exception printed as the interpreter prints it, from the script's
own frame), and atexit handlers. One server per interpreter, environment and `-W` options, since
jax reads its environment (JAX_TRACEBACK_FILTERING, ...) when it is imported.

`run(...)` returns what `subprocess.run(..., capture_output=True, text=True)` would.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Optional, Sequence

# The server: reads one request a line ({"argv", "cwd", "env", "out", "err", "timeout"}), forks, runs the
# program in the child, answers {"returncode"} (None past the timeout: the child is killed).
_SERVER = r'''
import json, os, signal, sys, time
import atexit, builtins, types, warnings
# The import every program would pay (no backend is started). A warning it gives would be the
# program's to see, caught or raised under its own filters: then each program runs in a fresh
# interpreter (`exec`), as without this server.
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")  # leaves no "already warned" registry behind
    try:
        import jax  # noqa: F401
    except ImportError:
        pass
WARM = not said
OPTIONS = sys.orig_argv[1:sys.orig_argv.index("-c")]

def child(request):
    out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0), os.dup2(out, 1), os.dup2(err, 2)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if not WARM:
        os.execv(sys.executable, [sys.executable, *OPTIONS, *request["argv"]])
    script, *rest = request["argv"]
    main = types.ModuleType("__main__")
    main.__dict__.update(__builtins__=builtins, __cached__=None)
    if script == "-c":
        source, name, folder = rest[0], "<string>", ""
        sys.argv = ["-c", *rest[1:]]
    else:
        name = os.path.abspath(script)
        with open(name, "rb") as handle:
            source = handle.read()
        folder = os.path.dirname(os.path.realpath(name))
        main.__file__ = name
        sys.argv = [script, *rest]
    sys.path[0] = folder
    sys.modules["__main__"] = main
    status = 0
    try:
        exec(compile(source, name, "exec"), main.__dict__)
    except SystemExit as exit_:
        code_ = exit_.code
        if code_ is None:
            status = 0
        elif isinstance(code_, int):
            status = code_
        else:
            print(code_, file=sys.stderr)
            status = 1
    except BaseException as error:
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == SERVER:  # ours, above the program's
            tb = tb.tb_next
        error.__traceback__ = tb or error.__traceback__  # what the hook prints, whatever it is given
        sys.excepthook(type(error), error, error.__traceback__)
        status = 1
    try:
        atexit._run_exitfuncs()
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        os._exit(status)

for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        child(request)
    deadline = time.monotonic() + request["timeout"]
    status = None
    while True:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(raw)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        time.sleep(0.005)
    print(json.dumps({"returncode": status}), flush=True)
'''


_SERVER_NAME = "<warm python server>"  # the file name of its frames, which a traceback leaves out
_START = "import sys; SERVER = sys.argv[2]; exec(compile(sys.argv[1], SERVER, 'exec'))"


class _Server:
    def __init__(self, python: str, options: tuple[str, ...], env: dict[str, str]) -> None:
        self.process = subprocess.Popen([python, *options, "-c", _START, _SERVER, _SERVER_NAME], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env, cwd=tempfile.gettempdir())
        self.lock = threading.Lock()

    def run(self, argv: Sequence[str], cwd: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
        with self.lock, tempfile.TemporaryDirectory(prefix="warm-python-") as folder:
            out, err = os.path.join(folder, "out"), os.path.join(folder, "err")
            request = {"argv": list(argv), "cwd": cwd, "env": env, "out": out, "err": err, "timeout": timeout}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline()
            if not answer:
                raise RuntimeError(f"the warm interpreter for {argv} exited ({self.process.wait()})")
            returncode = json.loads(answer)["returncode"]
            stdout = Path(out).read_text(errors="replace") if os.path.exists(out) else ""
            stderr = Path(err).read_text(errors="replace") if os.path.exists(err) else ""
        if returncode is None:
            raise subprocess.TimeoutExpired(list(argv), timeout, stdout, stderr)
        return subprocess.CompletedProcess(list(argv), returncode, stdout, stderr)

    def close(self) -> None:
        """Ends the server (end of its input) and closes both pipes: an open one was `sys:1:
        ResourceWarning: unclosed file <_io.TextIOWrapper ...>` at the end of every jax test run."""
        self.process.stdin.close()
        self.process.stdout.close()
        self.process.wait(timeout=60)


_SERVERS: dict[tuple, _Server] = {}


def run(argv: Sequence["os.PathLike | str"], *, python: str = sys.executable, options: Sequence[str] = (),
        env: Optional[dict[str, str]] = None, cwd: "Optional[os.PathLike | str]" = None,
        timeout: float = 300) -> subprocess.CompletedProcess:
    """`subprocess.run([python, *options, *argv], capture_output=True, text=True, env=env, cwd=cwd,
    timeout=timeout)` for a program (`argv[0]`: a script's path, or `-c`), from a warm interpreter.
    The program sees `env` as its whole environment; the server that forks it was started with the
    same (pytest's name for the current test aside, which jax does not read at import)."""
    argv = [os.fspath(arg) for arg in argv]
    if argv[0].startswith("-") and argv[0] != "-c" or "-m" in options or "-c" in options:
        raise ValueError(f"a script or -c, not {[*options, *argv]}: run it with subprocess")
    env = dict(os.environ if env is None else env)
    started_with = {name: value for name, value in env.items() if name != "PYTEST_CURRENT_TEST"}
    key = (python, tuple(options), tuple(sorted(started_with.items())))
    if key not in _SERVERS:
        _SERVERS[key] = _Server(python, tuple(options), started_with)
    return _SERVERS[key].run(argv, os.fspath(cwd or os.getcwd()), env, timeout)


@atexit.register
def _close() -> None:
    for server in _SERVERS.values():
        server.close()
