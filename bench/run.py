#!/usr/bin/env python
"""Time jax-codemod where users run it, side by side with grep, libcst's runner and an older revision.

    python bench/run.py                        # every scenario (libcst's runner takes about a minute a run)
    python bench/run.py --skip-libcst          # without libcst's runner
    python bench/run.py --baseline-rev 39d622a # also time that revision of the tool on the same inputs

Scenarios (issue 8), each timed best-of-N, all terms of a ratio measured in the same run:
  one kernel file, nothing to change   deltanet_tpu/gdn2.py (2,490 lines), jax's splash_attention_kernel.py
  one kernel file of a package         ejkernel's fused_cross_entropy/_pallas_impl_fwd.py, named relative to the
                                       package root and run from there (pre-commit), with what it imports
  one file with one fix                examples/tpu_matmul.py
  kernel packages + site-packages      the tool's dry run vs `grep -rlE 'precision|accuracy|lstm' --include='*.py'`
                                       over the same trees (target <= 3x)
  kernel packages                      libcst's no-op runner vs the tool (target >= 100x)
  scaling                              `--scope all --jobs 1` vs `--jobs 2` over the kernel packages, and
                                       `--jobs 1` vs the default (2 here) over both trees (target >= 1.7x)
  target lookup                        codemods/target.py in-process: a project .venv, a uv.lock only (<= 10 ms)
  one file touched                     both trees as one project (a pyproject.toml at their root), its state
                                       warm; before each run a comment is appended to one ejkernel kernel
                                       module, then the tool runs on that file (pre-commit, the editor:
                                       <= 0.5 s) and on the whole tree
Each tool command's peak memory (the largest process's RSS) is recorded with its time.

The tool is timed cold (`--no-cache`: every file analysed, the first run over a tree) and warm (its
result cache filled by one untimed run: what a pre-commit hook or a CI re-run over unchanged files sees).

The kernel packages are the pinned wheels of shared/NOTES.md (`pip download --no-deps`), unpacked into
bench/.corpus/ on first use (PyPI needed once). Timings move with machine load: compare ratios from
one run, not times across runs. Timed tests do not belong in tests/.
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
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "bench" / ".corpus"
KERNEL_PACKAGES = ("ejkernel==0.0.80.3", "qwix==0.1.8", "deltanet-tpu==0.3.0", "flywheel-tpu==0.3.0", "jax-triton==0.4.1")
PATTERN = "precision|accuracy|lstm"
# grep reads what the tool reads: the .py files (the scratch trees hold only those; the option keeps the
# baseline fair even if they held more, e.g. the .so files of site-packages, which made grep look slower).
GREP_PY = ["-rlE", PATTERN, "--include=*.py"]
# One kernel file of a package, as pre-commit names it: relative to the project root, run from there. It
# imports two modules of its package (one relative, one absolute), which whole-package analysis reads.
PACKAGE_FILE = ("ejkernel-0.0.80.3", "ejkernel/kernels/_pallas/tpu/fused_cross_entropy/_pallas_impl_fwd.py")
TARGETS = {
    "kernel file": ("<=", 0.3, "s"),
    "one fix": ("<=", 1.0, "s"),
    "tool / floor": ("<=", 1.5, "x"),  # cold, both trees, against bench/parse_floor.py (issue 34)
    "warm / grep": ("<=", 2.0, "x"),
    "touched": ("<=", 0.5, "s"),
    "libcst / tool": (">=", 100.0, "x"),
    "jobs 1 / jobs 2": (">=", 1.7, "x"),
    "target lookup": ("<=", 10.0, "ms"),
}


@dataclass
class Timing:
    name: str
    command: list[str]
    times: list[float] = field(default_factory=list)
    peak_kb: int = 0  # the largest process's resident set, over the runs
    # CPU seconds (user + system) of each run, the workers it waited for included: what a loaded
    # machine moves less than wall time
    cpu: list[float] = field(default_factory=list)
    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def kernel_packages() -> Path:
    """The pinned kernel packages, unpacked (downloaded once)."""
    tree = CORPUS / "kernel-packages"
    if tree.is_dir() and any(tree.iterdir()):
        return tree
    wheels = CORPUS / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), *KERNEL_PACKAGES],
                   check=True)
    for wheel in sorted(wheels.iterdir()):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tree / wheel.name.split("-py3")[0])
    return tree


def copy_py_files(source: Path, target: Path) -> Path:
    """The .py files under `source`, copied to `target` with their folders."""
    for path in source.rglob("*.py"):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
    return target


def has_cache_option(command: list[str], env: dict[str, str]) -> bool:
    shown = subprocess.run([*command, "fix", "--help"], env=env, capture_output=True, text=True)
    return "--no-cache" in shown.stdout


def py_files(*roots: Path) -> int:
    return sum(name.endswith(".py") for root in roots for _, _, names in os.walk(root) for name in names)


def tool_command(source: Path) -> tuple[list[str], dict[str, str]]:
    """`python -m codemods` from `source` (a checkout), with this Python, its bytecode compiled as
    an installed package's is (PYTHONDONTWRITEBYTECODE in the caller's environment would otherwise
    time compiling the tool's own modules on every run, and a fresh baseline worktree has no .pyc)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(source / "codemods")], check=True)
    env = {**os.environ, "PYTHONPATH": str(source)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return [sys.executable, "-m", "codemods"], env


def measure(name: str, command: list[str], repeat: int, env: dict[str, str], cwd: Path,
            before: Optional[Callable[[], None]] = None) -> Timing:
    """Best-of-`repeat` wall time and the peak RSS (wait4's, of the command and the processes it
    waited for: the largest one's); `before()` runs untimed before each run."""
    timing = Timing(name, command)
    for _ in range(repeat):
        if before is not None:
            before()
        with tempfile.TemporaryFile() as errors:
            start = time.perf_counter()
            proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
            _, status, usage = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode not in (0, 1):
                errors.seek(0)
                sys.exit(f"{name} failed (exit {proc.returncode}): {' '.join(command)}\n"
                         f"{errors.read().decode(errors='replace')[-2000:]}")
        timing.times.append(elapsed)
        timing.peak_kb = max(timing.peak_kb, usage.ru_maxrss)
        timing.cpu.append(usage.ru_utime + usage.ru_stime)
    print(f"  {name:<44} best {timing.best:8.3f} s  median {timing.median:8.3f} s  cpu {min(timing.cpu):8.3f} s  "
          f"peak {timing.peak_kb / 1024:6.0f} MiB"
          f"  ({len(timing.times)} runs)", flush=True)
    return timing


def target_lookups(scratch: Path, repeat: int) -> dict[str, float]:
    """Milliseconds a call of the target lookup (codemods/target.py) takes, best of `repeat` rounds
    of 100 calls, in-process: a project whose .venv has jax, and one that only pins it in uv.lock
    with no environment to read (the tool's own one hidden, as in a pipx install)."""
    sys.path.insert(0, str(REPO))
    from codemods import capabilities, target

    with_venv, pinned = scratch / "target-venv", scratch / "target-lock"
    (with_venv / ".venv/lib/python3.12/site-packages/jax-0.12.0.1.dist-info").mkdir(parents=True)
    pinned.mkdir()
    (pinned / "uv.lock").write_text('version = 1\n\n[[package]]\nname = "jax"\nversion = "0.12.0.1"\n')
    times = {}
    hidden, capabilities.installed_jax_version = capabilities.installed_jax_version, lambda: None
    try:
        for name, root in (("project .venv", with_venv), ("uv.lock only", pinned)):
            assert target.jax_target(root)[0] == (0, 12, 0, 1), name
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                for _ in range(100):
                    target.jax_target(root)
                best = min(best, (time.perf_counter() - start) * 10)  # ms per call
            times[name] = best
    finally:
        capabilities.installed_jax_version = hidden
    return times


def verdict(target: str, value: float) -> str:
    op, bound, unit = TARGETS[target]
    met = value <= bound if op == "<=" else value >= bound
    return f"target {op} {bound:g}{unit}: {'met' if met else 'MISSED'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="Runs per command (default 7).")
    parser.add_argument("--libcst-repeat", type=int, default=1, help="Runs of libcst's runner (default 1).")
    parser.add_argument("--skip-libcst", action="store_true", help="Leave out libcst's runner (a minute a run).")
    parser.add_argument("--baseline-rev", help="Also time this git revision of the tool, side by side.")
    parser.add_argument("--json", type=Path, help="Also write every timing here.")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="jax-codemod-bench-"))
    # The trees are copied out of the repository: inside it git ignores them (bench/.corpus, .venv),
    # and the tool skips what git ignores.
    site = copy_py_files(Path(sysconfig.get_paths()["purelib"]), scratch / "site-packages")
    kernels = copy_py_files(kernel_packages(), scratch / "kernel-packages")
    gdn2 = next(kernels.rglob("deltanet_tpu/gdn2.py"))
    package_root = kernels / PACKAGE_FILE[0]
    (package_root / "pyproject.toml").write_text("[tool.jax-codemod]\n")  # a project that uses the tool: its root
    splash = site / "jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_kernel.py"
    one_fix = REPO / "examples" / "tpu_matmul.py"
    grep = shutil.which("grep") or sys.exit("grep not found")
    tools = {"tool": tool_command(REPO)}
    if args.baseline_rev:
        baseline = scratch / "baseline"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(baseline), args.baseline_rev],
                       check=True)
        tools[f"tool@{args.baseline_rev}"] = tool_command(baseline)

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; kernel packages: {kernels} "
          f"({py_files(kernels)} .py files); site-packages: {site} ({py_files(site)} .py files)")
    subprocess.run([grep, *GREP_PY, str(kernels), str(site)], stdout=subprocess.DEVNULL)  # warm the page cache
    timings: dict[str, Timing] = {}
    try:
        # name -> (paths, the folder it runs from)
        scenarios = {
            "kernel file": ([gdn2], scratch), "kernel file (splash)": ([splash], scratch),
            "package file": ([Path(PACKAGE_FILE[1])], package_root), "one fix": ([one_fix], scratch),
            "trees": ([kernels, site], scratch), "kernels": ([kernels], scratch),
        }
        for label, (command, env) in tools.items():
            print(f"\n[{label}]")
            # Cold: every file analysed (revisions older than the cache have no --no-cache).
            cold = [*command, "-q", *(["--no-cache"] if has_cache_option(command, env) else [])]
            for name, (paths, cwd) in scenarios.items():
                timings[f"{label}: {name}"] = measure(name, [*cold, *map(str, paths)], args.repeat, env, cwd)
            for jobs in (1, 2):
                timings[f"{label}: jobs {jobs}"] = measure(
                    f"kernel packages --scope all --jobs {jobs}",
                    [*cold, "--scope", "all", "--jobs", str(jobs), str(kernels)], args.repeat, env, scratch)
            timings[f"{label}: trees jobs 1"] = measure("trees --jobs 1", [*cold, "--jobs", "1", str(kernels), str(site)],
                                                        min(args.repeat, 3), env, scratch)
        print("\n[tool, warm cache: the same files analysed once before]")
        command, env = tools["tool"]
        warm_env = {**env, "JAX_CODEMOD_CACHE_DIR": str(scratch / "cache")}
        for name, (paths, cwd) in scenarios.items():
            warm = [*command, "-q", *map(str, paths)]
            subprocess.run(warm, env=warm_env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            timings[f"warm: {name}"] = measure(name, warm, args.repeat, warm_env, cwd)
        rooted = scratch / "rooted"
        shutil.copytree(kernels, rooted / "kernel-packages")
        shutil.copytree(site, rooted / "site-packages")
        (rooted / "pyproject.toml").write_text("[project]\nname = 'rooted'\n")
        (rooted / "kernel-packages" / PACKAGE_FILE[0] / "pyproject.toml").unlink()  # one project: the whole tree
        touched = rooted / "kernel-packages" / PACKAGE_FILE[0] / PACKAGE_FILE[1]
        edits = iter(range(10**6))
        def touch() -> None:  # noqa: E306 - a content change, as an editor's save makes
            with touched.open("a") as handle:
                handle.write(f"# edited {next(edits)}\n")
        for number, (label, (command, env)) in enumerate(tools.items()):
            print(f"\n[{label}, one file touched: both trees as one project, its cache warm]")
            touch_env = {**env, "JAX_CODEMOD_CACHE_DIR": str(scratch / f"cache-touched-{number}")}
            subprocess.run([*command, "-q", "."], env=touch_env, cwd=rooted, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            timings[f"{label}: touched file"] = measure(
                "one file touched, run on it", [*command, "-q", str(touched.relative_to(rooted))], args.repeat,
                touch_env, rooted, before=touch)
            timings[f"{label}: touched tree"] = measure("one file touched, the whole tree", [*command, "-q", "."],
                                                        min(args.repeat, 3), touch_env, rooted, before=touch)
        print("\n[reference commands]")
        timings["python"] = measure("python -c pass", [sys.executable, "-c", "pass"], args.repeat, dict(os.environ), scratch)
        timings["grep: trees"] = measure("grep --include='*.py', both trees",
                                         [grep, *GREP_PY, str(kernels), str(site)], args.repeat,
                                         dict(os.environ), scratch)
        timings["floor: trees"] = measure("read, byte test, ast.parse: both trees",
                                          [sys.executable, str(REPO / "bench" / "parse_floor.py"), str(kernels), str(site)],
                                          args.repeat, tools["tool"][1], scratch)
        if not args.skip_libcst:
            subprocess.run([sys.executable, "-m", "libcst.tool", "initialize", "."], cwd=scratch, check=True,
                           stdout=subprocess.DEVNULL)
            timings["libcst: kernels"] = measure(
                "libcst no-op runner, kernel packages",
                [sys.executable, "-m", "libcst.tool", "codemod", "noop.NOOPCommand", "--no-format",
                 "-j", str(os.cpu_count() or 1), str(kernels)], args.libcst_repeat, dict(os.environ), scratch)
    finally:
        if args.baseline_rev:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(scratch / "baseline")])
        shutil.rmtree(scratch, ignore_errors=True)

    lookups = target_lookups(Path(tempfile.mkdtemp(prefix="jax-codemod-target-")), args.repeat)
    print("\n== results (best times; ratios from the same run) ==")
    results: dict[str, float] = {}
    for label in tools:
        t = lambda key: timings[f"{label}: {key}"].best  # noqa: E731
        rows = [
            ("kernel file", f"gdn2.py, nothing to change: {t('kernel file'):.3f} s", t("kernel file")),
            ("kernel file", f"splash_attention_kernel.py: {t('kernel file (splash)'):.3f} s", t("kernel file (splash)")),
            ("kernel file", f"one kernel file of a package (ejkernel, from its root): {t('package file'):.3f} s",
             t("package file")),
            ("one fix", f"examples/tpu_matmul.py, one fix: {t('one fix'):.3f} s", t("one fix")),
            ("tool / floor", f"kernel packages + site-packages, cold: {t('trees'):.2f} s vs the parse floor "
             f"(bench/parse_floor.py) {timings['floor: trees'].best:.2f} s = {t('trees') / timings['floor: trees'].best:.2f}x "
             f"(grep --include='*.py' {timings['grep: trees'].best:.2f} s; peak "
             f"{timings[f'{label}: trees'].peak_kb / 1024:.0f} MiB)", t("trees") / timings["floor: trees"].best),
            ("jobs 1 / jobs 2", f"--scope all --jobs 1 {t('jobs 1'):.2f} s vs --jobs 2 {t('jobs 2'):.2f} s = "
             f"{t('jobs 1') / t('jobs 2'):.2f}x", t("jobs 1") / t("jobs 2")),
            ("jobs 1 / jobs 2", f"both trees, --jobs 1 {t('trees jobs 1'):.2f} s vs --jobs 2 {t('trees'):.2f} s = "
             f"{t('trees jobs 1') / t('trees'):.2f}x", t("trees jobs 1") / t("trees")),
        ]
        if "libcst: kernels" in timings:
            ratio = timings["libcst: kernels"].best / t("kernels")
            rows.append(("libcst / tool", f"kernel packages: libcst {timings['libcst: kernels'].best:.1f} s vs "
                         f"{t('kernels'):.2f} s = {ratio:.0f}x", ratio))
        if label == "tool":
            w = lambda key: timings[f"warm: {key}"].best  # noqa: E731
            rows += [
                ("kernel file", f"warm cache, gdn2.py: {w('kernel file'):.3f} s", w("kernel file")),
                ("kernel file", f"warm cache, one kernel file of a package: {w('package file'):.3f} s",
                 w("package file")),
                ("warm / grep", f"warm cache, kernel packages + site-packages: {w('trees'):.2f} s = "
                 f"{w('trees') / timings['grep: trees'].best:.2f}x grep", w("trees") / timings["grep: trees"].best),
            ]
            if "libcst: kernels" in timings:
                ratio = timings["libcst: kernels"].best / w("kernels")
                rows.append(("libcst / tool", f"warm cache, kernel packages: {w('kernels'):.2f} s = {ratio:.0f}x "
                             "faster than libcst", ratio))
        rows += [
            ("touched", f"one file touched, run on it (a project of both trees): {t('touched file'):.3f} s",
             t("touched file")),
            ("warm / grep", f"one file touched, the whole tree: {t('touched tree'):.2f} s = "
             f"{t('touched tree') / timings['grep: trees'].best:.2f}x grep", t("touched tree") / timings["grep: trees"].best),
        ]
        if label == "tool":
            rows += [("target lookup", f"target jax lookup, {name}: {ms:.2f} ms", ms) for name, ms in lookups.items()]
        print(f"[{label}]")
        for target, text, value in rows:
            results[f"{label}: {text.split(':')[0]}"] = value
            print(f"  {text:<82} {verdict(target, value)}")
    if args.json:
        args.json.write_text(json.dumps({"python": sys.version, "cores": os.cpu_count(), "results": results,
                                         "timings": [asdict(t) for t in timings.values()]}, indent=2))


if __name__ == "__main__":
    main()
