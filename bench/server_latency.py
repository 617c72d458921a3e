"""`jax-codemod server`: how long after a change the diagnostics arrive, and the server's memory over
many edits, on a 2,500-line kernel file (deltanet-tpu's gdn2.py, from bench/.corpus).

    python bench/server_latency.py [--edits 1000] [--file PATH]

The server runs as editors run it (`python -m codemods server`, LSP over stdio) with its default
debounce; a client (pytest-lsp's) opens the file, then makes each edit as an editor does (an
incremental change: a comment at the end of the first line grows by one character) and waits for
the diagnostics of that version before the next. Latency = from sending the change to receiving its
diagnostics, debounce included. Server CPU = the server process's user + system time over the edits,
per edit (what the load of a shared machine does not inflate as much as the latency). Memory = the
server process's resident set (VmRSS), sampled every 100 edits: flat when the last sample is within
a small constant of the one at edit 100.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import make_test_lsp_client

REPO = Path(__file__).resolve().parents[1]
DEFAULT = REPO / "bench" / ".corpus" / "kernel-packages" / "deltanet_tpu-0.3.0" / "deltanet_tpu" / "gdn2.py"


def cpu_s(pid: int) -> float:
    """The process's user + system time (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def bench(source: Path, edits: int, options: dict | None = None) -> None:
    workspace = Path(tempfile.mkdtemp(prefix="server-bench-"))
    package = workspace / source.parent.name
    shutil.copytree(source.parent, package)  # the file's package: its project index is built too
    (workspace / "pyproject.toml").write_text('[project]\nname = "bench"\n')
    path = package / source.name
    text = path.read_text()
    client = make_test_lsp_client()
    # From the repository: `-m codemods` looks in the working folder first (another checkout there would run).
    await client.start_io(sys.executable, "-m", "codemods", "server", env={**os.environ, "PYTHONPATH": str(REPO)},
                          cwd=REPO)
    pid = client._server.pid
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="bench")],
        initialization_options=options))
    uri = path.as_uri()

    async def published(action) -> float:
        waiting = asyncio.ensure_future(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS))
        started = time.perf_counter()
        action()
        await asyncio.wait_for(waiting, 60)
        return time.perf_counter() - started

    opened = await published(lambda: client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))))
    findings = len(client.diagnostics.get(uri, []))
    first_line = text.split("\n", 1)[0]
    latencies, memory, cpu = [], [(0, rss_mib(pid))], cpu_s(pid)
    for edit in range(1, edits + 1):
        column = len(first_line) + (edit - 1) + (len(" #") if edit > 1 else 0)
        insert = " #x" if edit == 1 else "x"
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=column), end=types.Position(line=0, character=column)),
            text=insert)
        latencies.append(await published(lambda: client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=edit + 1), content_changes=[change]))))
        if edit % 100 == 0:
            memory.append((edit, rss_mib(pid)))
    cpu = cpu_s(pid) - cpu
    await client.shutdown_session()
    await client.stop()
    shutil.rmtree(workspace, ignore_errors=True)

    latencies.sort()
    print(f"file: {source} ({len(text.splitlines())} lines), {findings} diagnostics, {edits} edits")
    print(f"open -> diagnostics: {opened * 1000:.0f} ms (settings, project index, first analysis)")
    def percentile(share: float) -> str:
        return f"{latencies[int(len(latencies) * share) - 1] * 1000:.0f} ms"

    print(f"change -> diagnostics: median {statistics.median(latencies) * 1000:.0f} ms, p90 {percentile(0.9)}, "
          f"p95 {percentile(0.95)}, max {latencies[-1] * 1000:.0f} ms (debounce included)")
    print(f"server CPU per change: {cpu / edits * 1000:.0f} ms; load average at the end: {os.getloadavg()[0]:.1f}")
    print("server RSS (MiB) by edit: " + ", ".join(f"{n}: {mib:.1f}" for n, mib in memory))
    if len(memory) > 2:
        grown = memory[-1][1] - memory[1][1]
        print(f"growth from edit {memory[1][0]} to {memory[-1][0]}: {grown:+.1f} MiB "
              f"({grown * 1024 / (memory[-1][0] - memory[1][0]):+.2f} KiB an edit)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--file", type=Path, default=DEFAULT)
    args = parser.parse_args()
    asyncio.run(bench(args.file, args.edits))


if __name__ == "__main__":
    main()
