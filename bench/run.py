#!/usr/bin/env python
"""Time jax-codemod's dry run side by side with libcst's own runner and with grep, in one run.

    python bench/run.py                      # site-packages of this Python; libcst on its `jax` package
    python bench/run.py --corpus DIR         # any folder
    python bench/run.py --skip-libcst        # tool vs grep only (seconds instead of minutes)

Commands timed (wall clock, each repeated; best and median reported):
  tool    jax-codemod CORPUS -q                     (a dry run, default --jobs = all cores)
  libcst  python -m libcst.tool codemod noop.NOOPCommand --no-format -j CORES CORPUS
          (parse + unparse every file, nothing else: the floor for any libcst-based codemod runner)
  grep    grep -rlE 'precision|accuracy|lstm' CORPUS (the issue's reference: every file, any type)

libcst over a whole site-packages takes many minutes, so it runs on a smaller corpus (default: the
`jax` package inside CORPUS), and the tool and grep are timed on that same corpus too: the
libcst ratio is measured there, never extrapolated. The tool-vs-grep ratio is reported on both.
Timings vary with the page cache and machine load: grep is run once untimed first to warm it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PATTERN = "precision|accuracy|lstm"
TARGET_VS_LIBCST = 50.0  # the tool at least this many times faster than libcst's runner
TARGET_VS_GREP = 5.0  # and at most this many times slower than grep


@dataclass
class Timing:
    name: str
    corpus: str
    command: list[str]
    times: list[float] = field(default_factory=list)
    returncodes: list[int] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


@dataclass
class Corpus:
    path: Path
    py_files: int
    py_bytes: int
    all_files: int
    all_bytes: int

    @classmethod
    def scan(cls, path: Path) -> "Corpus":
        py_files = py_bytes = all_files = all_bytes = 0
        for dirpath, _, filenames in os.walk(path):
            for name in filenames:
                try:
                    size = os.lstat(os.path.join(dirpath, name)).st_size
                except OSError:
                    continue
                all_files += 1
                all_bytes += size
                if name.endswith(".py"):
                    py_files += 1
                    py_bytes += size
        return cls(path, py_files, py_bytes, all_files, all_bytes)

    def describe(self) -> str:
        return (f"{self.path}: {self.py_files} .py files ({self.py_bytes / 1e6:.1f} MB); "
                f"{self.all_files} files in all ({self.all_bytes / 1e6:.0f} MB)")


def tool_command() -> tuple[list[str], dict[str, str]]:
    """The installed `jax-codemod` next to this Python, else `python -m codemods` from this checkout."""
    script = Path(sys.executable).with_name("jax-codemod")
    if script.exists():
        return [str(script)], dict(os.environ)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return [sys.executable, "-m", "codemods"], env


def measure(timing: Timing, repeat: int, *, cwd: Path, env: dict[str, str], ok: set[int], timeout: float) -> Timing:
    for i in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(timing.command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
        elapsed = time.perf_counter() - start
        if proc.returncode not in ok:
            sys.exit(f"{timing.name} failed (exit {proc.returncode}): {' '.join(timing.command)}\n"
                     f"{proc.stderr.decode(errors='replace')[-2000:]}")
        timing.times.append(elapsed)
        timing.returncodes.append(proc.returncode)
        print(f"  {timing.name:<12} {timing.corpus:<6} run {i + 1}/{repeat}: {elapsed:8.3f} s", flush=True)
    return timing


def tool_summary(corpus: Path, command: list[str], env: dict[str, str]) -> str:
    """The tool's own summary line (files scanned, parsed, would change...), from one untimed run."""
    proc = subprocess.run([*command, str(corpus)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines = proc.stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"(no summary; exit {proc.returncode})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(sysconfig.get_paths()["purelib"]),
                        help="Folder to scan (default: this Python's site-packages).")
    parser.add_argument("--libcst-corpus", type=Path,
                        help="Folder for the libcst comparison (default: CORPUS/jax if present, else CORPUS).")
    parser.add_argument("--repeat", type=int, default=5, help="Runs of the tool and grep per corpus (default 5).")
    parser.add_argument("--libcst-repeat", type=int, default=2, help="Runs of libcst's runner (default 2).")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="libcst's -j (default: all cores).")
    parser.add_argument("--skip-libcst", action="store_true", help="Only the tool and grep.")
    parser.add_argument("--libcst-timeout", type=float, default=3600.0, help="Seconds per libcst run.")
    parser.add_argument("--json", type=Path, help="Also write every timing here.")
    args = parser.parse_args()

    grep = shutil.which("grep")
    if grep is None:
        sys.exit("grep not found")
    full = Corpus.scan(args.corpus.resolve())
    small_path = args.libcst_corpus or (args.corpus / "jax" if (args.corpus / "jax").is_dir() else args.corpus)
    small = Corpus.scan(small_path.resolve())
    corpora = {"small": small} if small.path == full.path else {"small": small, "full": full}
    tool, tool_env = tool_command()

    print(f"python {sys.version.split()[0]} ({sys.executable}), {os.cpu_count()} cores")
    print(f"tool: {' '.join(tool)}")
    for label, corpus in corpora.items():
        print(f"corpus {label}: {corpus.describe()}")

    timings: dict[tuple[str, str], Timing] = {}
    with tempfile.TemporaryDirectory(prefix="jax-codemod-bench-") as scratch:
        cwd = Path(scratch)
        # libcst's runner reads .libcst.codemod.yaml from the current folder upwards: give it the
        # default one, in a folder of its own, so no project config changes what it does.
        subprocess.run([sys.executable, "-m", "libcst.tool", "initialize", "."], cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL)
        for label, corpus in corpora.items():
            target = str(corpus.path)
            subprocess.run([grep, "-rlE", PATTERN, target], stdout=subprocess.DEVNULL)  # warm the page cache
            print(f"\n[{label}] {tool_summary(corpus.path, tool, tool_env)}")
            runs = [
                ("tool", [*tool, target, "-q"], tool_env, {0, 1, 2}, args.repeat, 600.0),
                ("grep", [grep, "-rlE", PATTERN, target], dict(os.environ), {0, 1}, args.repeat, 600.0),
                ("grep *.py", [grep, "-rlE", "--include=*.py", PATTERN, target], dict(os.environ), {0, 1},
                 args.repeat, 600.0),
            ]
            if label == "small" and not args.skip_libcst:
                runs.append(("libcst", [sys.executable, "-m", "libcst.tool", "codemod", "noop.NOOPCommand",
                                        "--no-format", "-j", str(args.jobs), target],
                             dict(os.environ), {0}, args.libcst_repeat, args.libcst_timeout))
            for name, command, env, ok, repeat, timeout in runs:
                timing = Timing(name, label, command)
                timings[(name, label)] = measure(timing, repeat, cwd=cwd, env=env, ok=ok, timeout=timeout)

    print("\n== wall times (seconds; best / median of the runs) ==")
    print(f"{'command':<12} {'corpus':<6} {'files':>6} {'best':>9} {'median':>9} {'.py files/s':>12}")
    for (name, label), t in timings.items():
        files = corpora[label].py_files
        print(f"{name:<12} {label:<6} {files:>6} {t.best:9.3f} {t.median:9.3f} {files / t.best:12.0f}")

    print("\n== ratios (from best times; median in brackets) ==")
    results = {}

    def ratio(slow: Timing, fast: Timing) -> tuple[float, float]:
        return slow.best / fast.best, slow.median / fast.median

    if ("libcst", "small") in timings:
        r, rm = ratio(timings[("libcst", "small")], timings[("tool", "small")])
        ok = r >= TARGET_VS_LIBCST
        results["libcst_over_tool"] = r
        print(f"libcst / tool on {small.path} ({small.py_files} files): {r:6.1f}x [{rm:.1f}x]  "
              f"target >= {TARGET_VS_LIBCST:.0f}x: {'met' if ok else 'MISSED'}  (measured, same corpus)")
    for label, corpus in corpora.items():
        r, rm = ratio(timings[("tool", label)], timings[("grep", label)])
        ok = r <= TARGET_VS_GREP
        results[f"tool_over_grep_{label}"] = r
        note = "  (grep takes under 0.1 s here: this ratio measures start-up)" if timings[("grep", label)].best < 0.1 else ""
        print(f"tool / grep   on {corpus.path} ({corpus.py_files} .py files, {corpus.all_files} in all): "
              f"{r:6.2f}x [{rm:.2f}x]  target <= {TARGET_VS_GREP:.0f}x: {'met' if ok else 'MISSED'}{note}")
        r2, _ = ratio(timings[("tool", label)], timings[("grep *.py", label)])
        print(f"  (tool / grep --include='*.py' on the same corpus: {r2:.2f}x)")
    if ("libcst", "small") in timings and "full" in corpora:
        rate = small.py_files / timings[("libcst", "small")].best
        estimate = full.py_files / rate
        print(f"libcst on the full corpus, extrapolated from its per-file rate ({rate:.1f} files/s): "
              f"~{estimate:.0f} s, ~{estimate / timings[('tool', 'full')].best:.0f}x the tool's time there "
              "(an estimate, not a measurement)")

    if args.json:
        args.json.write_text(json.dumps({
            "python": sys.version, "cores": os.cpu_count(),
            "corpora": {k: {**asdict(v), "path": str(v.path)} for k, v in corpora.items()},
            "timings": [asdict(t) for t in timings.values()], "ratios": results,
        }, indent=2))


if __name__ == "__main__":
    main()
