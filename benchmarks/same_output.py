"""Check that this checkout's tf-opt prints exactly what a baseline checkout's prints.

For every `tests/filecheck/**/*.mlir` input: the `tf-opt %s ...` command lines of its RUN lines,
and the input printed plainly, in the generic form (`--print-op-generic`) and with locations
(`--mlir-print-debuginfo`) (`--split-input-file` where the input has `// -----`); then each
generic form the baseline printed, read back by both and printed both ways; and the programs of
`generate.py` (tree, chain, shapes, constants, distinct; custom and generic form) at a size that
keeps the check to minutes. Every run's standard output, standard error and exit status must be
equal byte for byte.

Each side runs in one process of its own (`PYTHONPATH` its checkout, the same interpreter),
calling `tilefoundry.tools.drivers.tf_opt.main` once per run with its standard output and error
redirected to files: the runs are the lit RUN lines' tf-opt runs, not the shell around them.

Usage: `.venv/bin/python benchmarks/same_output.py --baseline /path/to/main [--full]`
(`--full`: the generated programs at `make bench`'s sizes). Exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_RUN = re.compile(r"//\s*RUN:\s*(?:not\s+)?tf-opt\s+%s\b([^|>\n]*)")
_PRINTS: tuple[list[str], ...] = ([], ["--print-op-generic"], ["--mlir-print-debuginfo"])

Job = list[str]


def lit_jobs(root: Path) -> list[Job]:
    """The runs of every lit input: its RUN lines' tf-opt flags and the three printings."""
    jobs: list[Job] = []
    for path in sorted((root / "tests" / "filecheck").rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        split = ["--split-input-file"] if "// -----" in text else []
        seen: set[tuple[str, ...]] = set()
        for flags in [*(shlex.split(m.group(1)) for m in _RUN.finditer(text)), *_PRINTS]:
            flags = [*split, *flags] if flags in _PRINTS else flags
            if any("%" in flag for flag in flags) or tuple(flags) in seen:
                continue  # a flag naming a lit substitution (%t): not reproducible here
            seen.add(tuple(flags))
            jobs.append([str(path), *flags])
    return jobs


def generated_jobs(directory: Path, full: bool) -> list[Job]:
    """The programs of `generate.py`, each form printed the three ways."""
    sys.path.insert(0, str(Path(__file__).parent))
    from generate import generate

    sizes = {} if full else {"layers": 4, "calls": 400, "shape_layers": 6, "functions": 160}
    inputs = generate(
        directory,
        sizes.get("layers", 64),
        sizes.get("calls", 20000),
        _tf_opt_command(),
        shape_layers=sizes.get("shape_layers", 160),
        constants=5000 if full else 300,
        functions=sizes.get("functions", 1600),
    )
    paths = [*inputs.custom.values(), *(p for p in inputs.generic.values() if p is not None)]
    return [[str(p), *flags] for p in paths for flags in _PRINTS]


def _tf_opt_command() -> str | None:
    """This interpreter's `tf-opt` (generate.py writes the generic forms with it)."""
    candidate = Path(sys.executable).parent / "tf-opt"
    return str(candidate) if candidate.is_file() else None


def run_side(checkout: Path, jobs: list[Job], work: Path, name: str) -> list[dict[str, object]]:
    """Run `jobs` with `checkout`'s tilefoundry, in one process; each job's output."""
    jobs_file, results_file = work / f"{name}.jobs.json", work / f"{name}.results.json"
    jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(checkout), "TF_OPT_SERVER": ""}
    subprocess.run(
        [sys.executable, __file__, "--worker", str(jobs_file), str(results_file)],
        cwd=checkout,
        env=env,
        check=True,
    )
    results: list[dict[str, object]] = json.loads(results_file.read_text(encoding="utf-8"))
    return results


def worker(jobs_file: Path, results_file: Path) -> int:
    """Run each job through `tf_opt.main` in this process, its output and error in files."""
    try:
        from tilefoundry.tools.drivers import tf_opt
    except ImportError:  # a baseline from before tools/ was split by what it holds
        tf_opt = importlib.import_module("tilefoundry.tools.tf_opt")

    jobs: list[Job] = json.loads(jobs_file.read_text(encoding="utf-8"))
    results = []
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryDirectory() as scratch:
        out_path, err_path = Path(scratch) / "out", Path(scratch) / "err"
        for job in jobs:
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                try:
                    status = tf_opt.main(job)
                except SystemExit as done:
                    status = done.code if isinstance(done.code, int) else 1
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os.dup2(saved[0], 1)
                    os.dup2(saved[1], 2)
            results.append(
                {
                    "status": status,
                    "out": out_path.read_bytes().decode("utf-8", "replace"),
                    "err": err_path.read_bytes().decode("utf-8", "replace"),
                }
            )
    results_file.write_text(json.dumps(results), encoding="utf-8")
    return 0


def compare(jobs: list[Job], ours: list[dict[str, object]], theirs: list[dict[str, object]]) -> int:
    """Print each difference; the number of runs that differ."""
    differing = 0
    for job, mine, base in zip(jobs, ours, theirs, strict=True):
        if mine != base:
            differing += 1
            what = [k for k in ("status", "out", "err") if mine[k] != base[k]]
            print(f"DIFFERS ({', '.join(what)}): tf-opt {shlex.join(job)}")
    return differing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="the checkout to compare with")
    parser.add_argument("--full", action="store_true", help="generated programs at full size")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(*args.worker)
    if args.baseline is None:
        parser.error("--baseline is required")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        jobs = lit_jobs(ROOT) + generated_jobs(work / "generated", args.full)
        theirs = run_side(args.baseline.resolve(), jobs, work, "baseline")
        ours = run_side(ROOT, jobs, work, "ours")
        differing = compare(jobs, ours, theirs)
        # the generic forms the baseline printed, read back by both
        again: list[Job] = []
        for index, (job, result) in enumerate(zip(jobs, theirs, strict=True)):
            if job[1:] == ["--print-op-generic"] and result["status"] == 0:
                path = work / f"generic{index}.mlir"
                path.write_text(str(result["out"]), encoding="utf-8")
                again += [[str(path)], [str(path), "--print-op-generic"]]
        theirs2 = run_side(args.baseline.resolve(), again, work, "baseline2")
        ours2 = run_side(ROOT, again, work, "ours2")
        differing += compare(again, ours2, theirs2)
        total = len(jobs) + len(again)
    print(f"{total} runs, {differing} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
