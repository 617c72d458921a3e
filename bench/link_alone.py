"""The whole-program link's CPU alone (`Linker.solve` and its answers), on the inputs a real run gave it.

    python bench/link_alone.py capture /tmp/link.pkl --no-cache --jobs 1 KERNELS SITE   # a CLI run; each
                                                # link's inputs and answers kept (run where the trees are)
    python bench/link_alone.py time /tmp/link.pkl [ROUNDS]   # CPU of the links again, best of ROUNDS

`capture` keeps what each `link()` call of the run read (the summaries it started from, those it
loaded on demand, the followed calls) and what it answered; `time` links them again in this process
(the collector paused, as in a run) and fails where an answer differs from the captured one: a speed
change to the link is measured on the trees' link without the rest of a run (parses, facts, rules),
and proved to answer the same. Run `time` with two checkouts' code in turn (PYTHONPATH) to compare.
"""

from __future__ import annotations

import gc
import pickle
import sys
import time


def capture(out: str, cli_args: list[str]) -> None:
    from codemods.analysis.project import flow
    from codemods.cli import app

    captured = []
    real_link = flow.link

    def capturing(summaries, follows, load=None, loadable=frozenset()):
        summaries, loaded = list(summaries), {}

        def loading(name):
            loaded[name] = load(name)
            return loaded[name]

        result = real_link(summaries, follows, loading, loadable)
        captured.append((summaries, dict(follows), loaded, frozenset(loadable), result))
        return result

    flow.link = capturing
    try:
        app(cli_args, standalone_mode=False)
    except SystemExit:
        pass
    with open(out, "wb") as file:
        pickle.dump(captured, file, protocol=pickle.HIGHEST_PROTOCOL)
    print(f"{len(captured)} link(s) captured in {out}", file=sys.stderr)


def time_links(path: str, rounds: int) -> None:
    from codemods.analysis.flow.link import Linker
    from codemods.analysis.flow.link_answers import answers

    with open(path, "rb") as file:
        captured = pickle.load(file)
    gc.disable()
    best = None
    for round_ in range(rounds):
        solving = answering = 0.0
        for summaries, follows, loaded, loadable, result in captured:
            start = time.process_time()
            linker = Linker({summary.name: summary for summary in summaries}, follows, loaded.get, loadable).solve()
            solved = time.process_time()
            linked = answers(linker), frozenset(linker.modules)
            solving, answering = solving + solved - start, answering + time.process_time() - solved
            if linked != result:
                sys.exit(f"answers differ from the captured ones ({path})")
        gc.collect()
        print(f"round {round_ + 1}: solve {solving:.2f} s, answers {answering:.2f} s CPU", file=sys.stderr)
        best = min(best if best is not None else float("inf"), solving + answering)
    print(f"best of {rounds}: {best:.2f} s CPU, answers identical to the captured ones", file=sys.stderr)


if __name__ == "__main__":
    sys.setrecursionlimit(100_000)  # (pickling deep summaries)
    if len(sys.argv) >= 3 and sys.argv[1] == "capture":
        capture(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "time":
        time_links(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    else:
        sys.exit(__doc__)
