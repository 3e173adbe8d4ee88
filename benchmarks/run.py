"""Time tf-opt side by side with xdsl-opt and mlir-opt-19, in one run, and print the ratios.

The inputs come from `generate.py` (written into a temporary directory): tf-opt reads the custom
form, xdsl-opt and mlir-opt (`--allow-unregistered-dialect`) the generic form tf-opt prints. Each
case runs each tool `--repeat` times (`--large-repeat` for the large module), one process per run,
timed with `time.perf_counter` around `subprocess.run` (start-up, parse, verify, passes, print);
with `--cpu`, by the CPU time (user + system) the process used instead, which a machine shared
with other work inflates far less than the wall time.

A run counts only if it exits 0 and prints something; its output's `tf.call` ops are counted, so
a tool that drops or keeps ops differently shows up in the table. mlir-opt's `--cse` is timed only
if it removes what `-p cse` removes: upstream passes leave unregistered ops alone, so it is probed
once and otherwise reported as not equivalent.

Usage: `make bench`, or `.venv/bin/python benchmarks/run.py --quick` for a run of a minute or so.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generate import Inputs, LargeShape, find_tool, generate

TF_OPT = "tf-opt"
BASELINE = "tf-opt before"
XDSL_OPT = "xdsl-opt"
MLIR_OPT = "mlir-opt"
PASS_FLAGS = {"cse": "--cse", "dce": "--canonicalize"}


@dataclass(frozen=True)
class Command:
    """One tool's command line for one case; `input` None means the input could not be made."""

    tool: str
    argv: list[str] | None
    input: Path | None
    probe: bool = False  # run once first; time only if its output matches the reference


@dataclass(frozen=True)
class Case:
    """A row group of the table: one input and one job, run by every tool."""

    name: str
    repeat: int
    commands: list[Command]


@dataclass
class Result:
    """The measurements of one tool on one case, or why there are none."""

    case: str
    tool: str
    times: list[float] = field(default_factory=list)
    status: str = "ok"  # ok | not found | FAILED | skipped
    note: str = ""
    calls: int | None = None

    @property
    def median(self) -> float | None:
        """The median wall time, when every run succeeded."""
        return statistics.median(self.times) if self.status == "ok" and self.times else None

    @property
    def best(self) -> float | None:
        """The minimum wall time, when every run succeeded."""
        return min(self.times) if self.status == "ok" and self.times else None


class RunFailed(Exception):
    """A run that exited non-zero, printed nothing or timed out; the message is one line."""


def progress(message: str) -> None:
    """One progress line on stderr."""
    print(message, file=sys.stderr, flush=True)


def first_line(text: str, default: str) -> str:
    """The first non-blank line of a tool's output."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else default


CLOCK = {"cpu": False}
"""Whether runs are timed by their CPU time (`--cpu`) rather than the wall clock."""


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_once(argv: list[str], timeout: float) -> tuple[float, bytes]:
    """Run a command once: its wall time (or CPU time) and stdout, or RunFailed."""
    started = time.perf_counter()
    cpu_started = _children_cpu()
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RunFailed(f"timed out after {timeout:g} s") from None
    elapsed = time.perf_counter() - started
    if CLOCK["cpu"]:
        elapsed = _children_cpu() - cpu_started
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        raise RunFailed(first_line(stderr, f"exit code {done.returncode}, no stderr"))
    if not done.stdout.strip():
        raise RunFailed("empty output")
    return elapsed, done.stdout


def count_calls(output: bytes) -> int:
    """The `tf.call` ops of a printed module, custom (`tf.call`) or generic (`"tf.call"`)."""
    return output.count(b"tf.call")


def unavailable(command: Command) -> Result | None:
    """The result of a command that cannot run at all: its tool or its input is missing."""
    if command.argv is None:
        return Result("", command.tool, status="not found")
    if command.input is None:
        return Result(
            "", command.tool, status="skipped", note="no input (generic form not written)"
        )
    return None


def probe(command: Command, result: Result, reference: int | None, timeout: float) -> None:
    """Run a probed command once; mark it skipped unless it leaves `reference` tf.call ops."""
    try:
        _, output = run_once(command.argv or [], timeout)
    except RunFailed as err:
        result.status, result.note = "FAILED", str(err)
        return
    result.calls = count_calls(output)
    if reference is None:
        result.status, result.note = "skipped", "no tf-opt or xdsl-opt result to compare with"
    elif result.calls != reference:
        result.status = "skipped"
        result.note = f"not equivalent: leaves {result.calls} tf.call, tf-opt leaves {reference}"


def measure_once(case: Case, command: Command, result: Result, index: int, timeout: float) -> None:
    """One timed run, recorded in `result`; a failure ends the tool's runs for this case."""
    label = f"[{case.name}] {command.tool} run {index + 1}/{case.repeat}"
    try:
        elapsed, output = run_once(command.argv or [], timeout)
    except RunFailed as err:
        result.status, result.note = "FAILED", str(err)
        progress(f"{label}: FAILED: {err}")
        return
    result.times.append(elapsed)
    result.calls = count_calls(output)
    progress(f"{label}: {elapsed:.3f} s")


def build_cases(
    inputs: Inputs, tools: dict[str, str | None], args: argparse.Namespace
) -> list[Case]:
    """The cases: the trivial file; the tree and the chain parsed and printed, tf-opt reading
    the custom form and then the generic form; the model of distinct shapes; the dense
    constants; the 1,600 functions of their own shapes, both forms; the chain with a pass; and
    the large module when asked."""

    def command(tool: str, flags: list[str], source: Path | None, probe: bool = False) -> Command:
        path = tools[tool]
        argv = None if path is None else [path, *flags, *([str(source)] if source else [])]
        return Command(tool, argv, source, probe)

    def tf_opts(flags: list[str], source: Path | None) -> list[Command]:
        """tf-opt, and the baseline tf-opt on the same input when there is one."""
        baseline = [command(BASELINE, flags, source)] if BASELINE in tools else []
        return [command(TF_OPT, flags, source), *baseline]

    def trio(flags: dict[str, list[str]], name: str, probe: bool = False) -> list[Command]:
        custom, generic = inputs.custom[name], inputs.generic[name]
        return [
            *tf_opts(flags[TF_OPT], custom),
            command(XDSL_OPT, flags[XDSL_OPT], generic),
            command(MLIR_OPT, flags[MLIR_OPT], generic, probe),
        ]

    def parse_print(name: str, repeat: int) -> Case:
        return Case(f"{name} ({inputs.ops[name]} ops)", repeat, trio(plain, name))

    def generic_in(name: str, repeat: int) -> Case:
        """tf-opt reading the generic form too (what upstream mlir-opt hands back)."""
        generic = inputs.generic[name]
        commands = [
            *tf_opts([], generic),
            command(XDSL_OPT, [], generic),
            command(MLIR_OPT, plain[MLIR_OPT], generic),
        ]
        return Case(f"{name}, generic form ({inputs.ops[name]} ops)", repeat, commands)

    plain = {TF_OPT: [], XDSL_OPT: [], MLIR_OPT: ["--allow-unregistered-dialect"]}
    with_pass = {
        TF_OPT: ["-p", args.pass_name],
        XDSL_OPT: ["-p", args.pass_name],
        MLIR_OPT: ["--allow-unregistered-dialect", PASS_FLAGS[args.pass_name]],
    }
    cases = [
        Case("trivial", args.repeat, trio(plain, "trivial")),
        parse_print("tree", args.large_repeat),
        generic_in("tree", args.large_repeat),
        parse_print("chain", args.large_repeat),
        generic_in("chain", args.large_repeat),
        parse_print("shapes", args.large_repeat),
        parse_print("constants", args.large_repeat),
        parse_print("distinct", args.large_repeat),
        generic_in("distinct", args.large_repeat),
        Case(f"chain + {args.pass_name}", args.large_repeat, trio(with_pass, "chain", probe=True)),
    ]
    if "large" in inputs.custom:
        cases.append(parse_print("large", args.large_repeat))
    if args.only:
        wanted = args.only.split(";")
        cases = [cases[0], *(c for c in cases[1:] if c.name.split(" (")[0] in wanted)]
    return cases


def run_case(case: Case, timeout: float) -> list[Result]:
    """Every tool on one case, in rounds (tf-opt, xdsl-opt, mlir-opt, tf-opt, ...) so that a
    burst of load on the machine spreads over the tools instead of landing on one of them.

    tf-opt's output (xdsl-opt's if tf-opt failed) is the reference of mlir-opt's probe.
    """
    results: list[Result] = []
    for command in case.commands:
        result = unavailable(command) or Result("", command.tool)
        result.case = case.name
        results.append(result)
    reference: int | None = None
    for index in range(case.repeat):
        for command, result in zip(case.commands, results, strict=True):
            if result.status != "ok":
                continue
            if command.probe and index == 0:
                probe(command, result, reference, timeout)
                if result.status != "ok":
                    progress(f"[{case.name}] {command.tool}: {result.status}: {result.note}")
                    continue
            measure_once(case, command, result, index, timeout)
            if reference is None and command.tool in (TF_OPT, XDSL_OPT) and result.status == "ok":
                reference = result.calls
    return results


def warm_up(cases: Sequence[Case], timeout: float) -> None:
    """One untimed run of each tool on the trivial case (page cache, `.pyc` files)."""
    for command in cases[0].commands:
        if command.argv is not None and command.input is not None:
            progress(f"[warm-up] {command.tool}")
            try:
                run_once(command.argv, timeout)
            except RunFailed:
                pass  # the timed runs report it


def ratio(numerator: float | None, denominator: float | None) -> str:
    """`numerator / denominator` with two or three significant digits, or a dash."""
    if numerator is None or not denominator:
        return "-"
    value = numerator / denominator
    if value < 10:
        return f"{value:.2f}"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def seconds(value: float | None) -> str:
    """A time in seconds for the table."""
    return "-" if value is None else f"{value:.3f}"


def format_table(results: Sequence[Result]) -> str:
    """The results as a Markdown table; `tf-opt ÷` is tf-opt's median over this row's median."""
    header = ["case", "tool", "runs", "min s", "median s", "tf-opt ÷", "tf.call out", "status"]
    rows: list[list[str]] = []
    tf_median: dict[str, float | None] = {r.case: r.median for r in results if r.tool == TF_OPT}
    for r in results:
        status = r.status if not r.note else f"{r.status}: {r.note}"
        rows.append(
            [
                r.case,
                r.tool,
                str(len(r.times)),
                seconds(r.best),
                seconds(r.median),
                "-" if r.tool == TF_OPT else ratio(tf_median.get(r.case), r.median),
                "-" if r.calls is None else str(r.calls),
                status,
            ]
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return (
            "| " + " | ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)) + " |"
        )

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def format_ratios(results: Sequence[Result]) -> str:
    """A Markdown table, one row per case: tf-opt/xdsl-opt and tf-opt/mlir-opt, of the medians
    and, in parentheses, of the minimums (the less noisy of the two on a busy machine)."""
    by_key = {(r.case, r.tool): r for r in results}

    def cell(case: str, tool: str) -> str:
        tf, other = by_key.get((case, TF_OPT)), by_key.get((case, tool))
        if tf is None or other is None:
            return "-"
        if tf.median is None or other.median is None:
            missing = tf if tf.median is None else other
            return f"- ({missing.tool} {missing.status})"
        return f"{ratio(tf.median, other.median)} (min {ratio(tf.best, other.best)})"

    if not any(r.tool == BASELINE for r in results):
        lines = ["| case | tf-opt / xdsl-opt | tf-opt / mlir-opt |", "|---|---|---|"]
        for case in dict.fromkeys(r.case for r in results):
            lines.append(f"| {case} | {cell(case, XDSL_OPT)} | {cell(case, MLIR_OPT)} |")
        return "\n".join(lines)

    def before(case: str) -> str:
        base, other = by_key.get((case, BASELINE)), by_key.get((case, XDSL_OPT))
        if base is None or other is None or base.median is None or other.median is None:
            return "-"
        return f"{ratio(base.median, other.median)} (min {ratio(base.best, other.best)})"

    lines = [
        "| case | before / xdsl-opt | tf-opt / xdsl-opt | tf-opt / mlir-opt |",
        "|---|---|---|---|",
    ]
    for case in dict.fromkeys(r.case for r in results):
        lines.append(
            f"| {case} | {before(case)} | {cell(case, XDSL_OPT)} | {cell(case, MLIR_OPT)} |"
        )
    return "\n".join(lines)


def tool_version(path: str | None) -> str:
    """The first line of `<tool> --version`, or why there is none."""
    if path is None:
        return "not found"
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown ({err})"
    return first_line(done.stdout + done.stderr, "unknown")


def package_version(name: str) -> str:
    """An installed distribution's version, through the stdlib."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    """The CPU model from /proc/cpuinfo, where there is one."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, where the system has them."""
    try:
        return " ".join(f"{load:.2f}" for load in os.getloadavg())
    except OSError:
        return "unknown"


def environment(tools: dict[str, str | None], load_before: str) -> list[str]:
    """The lines describing where the numbers come from."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 0
    lines = [
        f"date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"python: {platform.python_version()} ({sys.executable})",
        f"xdsl: {package_version('xdsl')}",
        f"tilefoundry: {package_version('tilefoundry')}",
        f"nproc: {cores}",
        f"cpu: {cpu_model()}",
        f"load average (1/5/15 min): {load_before} before, {load_average()} after",
    ]
    for name, path in tools.items():
        lines.append(f"{name}: {path or 'not found'} -- {tool_version(path)}")
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; `--quick` shrinks the inputs and the repeats."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=None, help="runs per tool (default 5)")
    parser.add_argument(
        "--large-repeat", type=int, default=None, help="runs per tool on the tree and chain (3)"
    )
    parser.add_argument("--quick", action="store_true", help="16 layers, 5,000 calls, fewer runs")
    parser.add_argument("--layers", type=int, default=None, help="layers of the tree (64)")
    parser.add_argument("--calls", type=int, default=None, help="calls of the chain (20,000)")
    parser.add_argument("--shape-layers", type=int, default=None, help="layers of `shapes` (160)")
    parser.add_argument("--constants", type=int, default=None, help="constants (5,000)")
    parser.add_argument(
        "--functions", type=int, default=None, help="functions of their own shapes (1,600)"
    )
    parser.add_argument("--large", action="store_true", help="also the 50,001-op module")
    parser.add_argument(
        "--only", default="", help="case names separated by ;, e.g. 'shapes;chain, generic form'"
    )
    parser.add_argument("--pass", dest="pass_name", choices=sorted(PASS_FLAGS), default="cse")
    parser.add_argument("--tf-opt", default=TF_OPT, help="tf-opt command or path")
    parser.add_argument(
        "--baseline", default=None, help="another tf-opt (an older build), timed beside tf-opt"
    )
    parser.add_argument("--xdsl-opt", default=XDSL_OPT, help="xdsl-opt command or path")
    parser.add_argument("--mlir-opt", default="mlir-opt-19", help="mlir-opt command or path")
    parser.add_argument("--cpu", action="store_true", help="time CPU use, not the wall clock")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--keep", type=Path, default=None, help="write the inputs here, keep them")
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (3 if args.quick else 5)
    args.large_repeat = args.large_repeat or (2 if args.quick else min(3, args.repeat))
    args.layers = args.layers or (16 if args.quick else 64)
    args.calls = args.calls or (5000 if args.quick else 20000)
    args.shape_layers = args.shape_layers or (40 if args.quick else 160)
    args.constants = args.constants or (1250 if args.quick else 5000)
    args.functions = args.functions or (400 if args.quick else 1600)
    return args


def benchmark(args: argparse.Namespace, directory: Path) -> int:
    """Generate, run every case, print the environment, the table and the ratios.

    The exit code is 1 if tf-opt is missing or a tf-opt run failed; the other tools' failures are
    results, shown as such.
    """
    tools = {
        TF_OPT: find_tool(args.tf_opt),
        XDSL_OPT: find_tool(args.xdsl_opt),
        MLIR_OPT: find_tool(args.mlir_opt),
    }
    if args.baseline is not None:
        tools[BASELINE] = find_tool(args.baseline)
    load_before = load_average()
    compile_bytecode()
    progress(f"generating inputs in {directory} ...")
    started = time.perf_counter()
    inputs = generate(
        directory,
        args.layers,
        args.calls,
        tools[TF_OPT],
        LargeShape() if args.large else None,
        shape_layers=args.shape_layers,
        constants=args.constants,
        functions=args.functions,
    )
    progress(f"generated in {time.perf_counter() - started:.1f} s")
    if inputs.generic_error:
        progress(f"warning: {inputs.generic_error}")
    cases = build_cases(inputs, tools, args)
    warm_up(cases, args.timeout)
    results: list[Result] = []
    for case in cases:
        results.extend(run_case(case, args.timeout))
    print("## Environment\n")
    print("\n".join(f"- {line}" for line in environment(tools, load_before)))
    sizes = ", ".join(f"{name} {count} ops" for name, count in inputs.ops.items())
    print(
        f"- inputs: tree of {args.layers} layers, chain of {args.calls} calls, "
        f"{args.shape_layers} layers of their own shapes, {args.constants} constants, "
        f"{args.functions} functions of their own shapes ({sizes})"
    )
    print(f"- runs: {args.repeat} (trivial), {args.large_repeat} (the others)\n")
    print(f"## Results ({'CPU' if CLOCK['cpu'] else 'wall'} seconds per process)\n")
    print(format_table(results))
    print("\n## Ratios (tf-opt time / other time; > 1 means tf-opt is slower)\n")
    print(format_ratios(results))
    return 1 if any(r.tool == TF_OPT and r.status != "ok" for r in results) else 0


def compile_bytecode() -> None:
    """Write TileFoundry's bytecode first, as an installed package has it (an editable install
    does not, and with PYTHONDONTWRITEBYTECODE set each run would compile its modules anew)."""
    import compileall

    import tilefoundry

    compileall.compile_dir(Path(tilefoundry.__file__).parent, quiet=1)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: a temporary directory unless `--keep` names one."""
    args = parse_args(argv)
    CLOCK["cpu"] = args.cpu
    if args.keep is not None:
        return benchmark(args, args.keep)
    with tempfile.TemporaryDirectory(prefix="tf-bench-") as directory:
        return benchmark(args, Path(directory))


if __name__ == "__main__":
    sys.exit(main())
