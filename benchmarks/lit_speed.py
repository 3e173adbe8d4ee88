"""The cost of a lit RUN line: tf-opt's start-up in-process and as a client of the resident
server (`tilefoundry/tools/server/server.py`), next to xdsl-opt and mlir-opt-19 in the same run, and
lit's wall time over the suite (or a part of it) with the server and without (TF_LIT_SERVER=0).

Each start-up case runs a trivial module `--repeat` times, the tools interleaved round by round
so that a change of the machine's load hits them alike; the medians and minimums are printed.
The lit runs alternate the same way (`--lit-repeat` each). Times only: nothing is asserted.

Usage: `.venv/bin/python benchmarks/lit_speed.py [--repeat 10] [--lit-repeat 1]
[--lit-path tests/filecheck]`; with `PATH` holding `.venv/bin` (`make bench` sets it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _start_server(where: Path) -> tuple[subprocess.Popen[bytes], str]:
    sock = str(where / "tf-opt.sock")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path[0] = {str(BIN)!r}; "
            "from tilefoundry.tools.server.server import main; main()",
            "--socket",
            sock,
            "--parent-pid",
            str(os.getpid()),
        ],
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    while not os.path.exists(sock):
        time.sleep(0.05)
    return proc, sock


def _time(command: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or not done.stdout:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode()}")
    return elapsed


def startup(repeat: int) -> list[tuple[str, list[float]]]:
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        trivial = where / "trivial.mlir"
        trivial.write_text("builtin.module {\n}\n")
        env = {k: v for k, v in os.environ.items() if k != "TF_OPT_SERVER"}
        server, sock = _start_server(where)
        served = dict(env, TF_OPT_SERVER=sock)
        _time([str(BIN / "tf-opt"), str(trivial)], served)  # the server has imported
        cases: list[tuple[str, list[str], dict[str, str]]] = [
            ("tf-opt, in-process", [str(BIN / "tf-opt"), str(trivial)], env),
            ("tf-opt, client of the server", [str(BIN / "tf-opt"), str(trivial)], served),
            ("tf-run, client of the server", [str(BIN / "tf-run"), "--help"], served),
            ("python -c pass (the floor)", [sys.executable, "-c", "print()"], env),
        ]
        xdsl = shutil.which("xdsl-opt", path=str(BIN))
        if xdsl:
            cases.append(("xdsl-opt", [xdsl, str(trivial)], env))
        mlir = shutil.which("mlir-opt-19") or shutil.which(
            "mlir-opt-19", path="/usr/lib/llvm-19/bin"
        )
        if mlir:
            cases.append(("mlir-opt-19", [mlir, str(trivial)], env))
        times: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        try:
            for _ in range(repeat):
                for name, command, case_env in cases:
                    times[name].append(_time(command, case_env))
        finally:
            server.terminate()
            server.wait()
    return list(times.items())


def lit(path: str, repeat: int) -> list[tuple[str, list[float]]]:
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    times: dict[str, list[float]] = {"lit, with the server": [], "lit, TF_LIT_SERVER=0": []}
    for _ in range(repeat):
        for name, value in (("lit, with the server", "1"), ("lit, TF_LIT_SERVER=0", "0")):
            start = time.perf_counter()
            done = subprocess.run(
                [str(BIN / "lit"), "-q", path],
                cwd=ROOT,
                env=dict(env, TF_LIT_SERVER=value),
                capture_output=True,
            )
            times[name].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"lit failed ({name}):\n{done.stdout.decode()}")
    return list(times.items())


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--lit-repeat", type=int, default=1)
    parser.add_argument("--lit-path", default="tests/filecheck")
    parser.add_argument("--no-lit", action="store_true", help="only the start-up times")
    args = parser.parse_args(argv)
    print(f"load average before: {_load()}\n")
    print("| start-up, trivial module | median s | min s |\n|---|---|---|")
    for name, values in startup(args.repeat):
        print(f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} |")
    if not args.no_lit:
        print(f"\n| `lit {args.lit_path}` | median s | min s |\n|---|---|---|")
        for name, values in lit(args.lit_path, args.lit_repeat):
            print(f"| {name} | {statistics.median(values):.1f} | {min(values):.1f} |")
    print(f"\nload average after: {_load()}")


if __name__ == "__main__":
    main()
