"""`python -m lumen.cli --precision default,high --accuracy highest`"""
import argparse

from lumen.config import KernelConfig
from lumen.ops import apply


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--precision", default="default,highest")
    p.add_argument("--accuracy", default="highest")
    args = p.parse_args(argv)
    return KernelConfig.from_dict({"precision": tuple(args.precision.split(",")), "accuracy": args.accuracy})


def cli_mm(x, w, argv=()):
    cfg = parse(list(argv))
    return apply("mm", x, w, precision=cfg.precision)
