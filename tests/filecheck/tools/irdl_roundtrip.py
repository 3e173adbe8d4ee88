"""Every accepted lit input, and the example decoder, through upstream MLIR with the dialects of
`dialects/*.irdl.mlir`, and back: the same IR, metadata included.

    irdl_roundtrip.py MLIR_OPT IRDL_FILE [--example] PATH...

For each `.mlir` file under the PATHs, every chunk (split on `// -----`) that tf-opt accepts as
it stands (a chunk with `expected-error` annotations is not one) is printed in the IRDL form with
debug info (`tf-opt --print-irdl-generic --print-debuginfo`); `MLIR_OPT --irdl-file=IRDL_FILE`,
without `--allow-unregistered-dialect`, parses and verifies it and prints it with debug info
(its default form: locations through `#loc` aliases); tf-opt reads that back, and it must be the
chunk's IR, metadata included (`same_ir.py`). `--example` adds the decoder of
`examples/decoder.py` as built, and after the demo's analysis pipeline.

Prints one line per file and a total; exit 1 at the first difference or refusal.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path

import custom_metadata  # noqa: F401 - registers the metadata class the inputs use
from same_ir import metadata, roots

from tilefoundry.ir.algebra.structural import structural_equal
from tilefoundry.tools.drivers.tf_opt import main as tf_opt

ROOT = Path(__file__).resolve().parents[3]
SEPARATOR = "// -----"


def irdl_forms(text: str, workdir: Path) -> list[str]:
    """Each chunk of a file in the IRDL form; empty for a chunk tf-opt does not accept."""
    path = workdir / "input.mlir"
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        tf_opt([str(path), "--split-input-file", "--print-irdl-generic", "--print-debuginfo"])
    return out.getvalue().split(SEPARATOR)


def upstream(mlir_opt: str, irdl_file: str, text: str, workdir: Path) -> list[str]:
    """What mlir-opt prints for each chunk of `text` (an error exits the script)."""
    path = workdir / "irdl-form.mlir"
    path.write_text(text, encoding="utf-8")
    run = subprocess.run(
        [mlir_opt, f"--irdl-file={irdl_file}", "--split-input-file", "--mlir-print-debuginfo"]
        + [str(path)],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(f"mlir-opt refused the IRDL form:\n{run.stderr}")
    return run.stdout.split(SEPARATOR)


def check_file(name: str, text: str, mlir_opt: str, irdl_file: str, workdir: Path) -> int:
    """Round-trip the accepted chunks of one file; how many there were."""
    accepted: list[tuple[str, str]] = []
    chunks = text.split(SEPARATOR)
    forms = irdl_forms(text, workdir)
    if len(forms) != len(chunks):
        sys.exit(f"{name}: {len(chunks)} chunks, tf-opt printed {len(forms)}")
    for chunk, form in zip(chunks, forms, strict=True):
        if "expected-error" not in chunk and form.strip():
            accepted.append((chunk, form))
    if not accepted:
        return 0
    outputs = upstream(
        mlir_opt, irdl_file, f"\n{SEPARATOR}\n".join(f for _, f in accepted), workdir
    )
    if len(outputs) != len(accepted):
        sys.exit(f"{name}: {len(accepted)} chunks sent to mlir-opt, {len(outputs)} came back")
    for index, ((chunk, _), output) in enumerate(zip(accepted, outputs, strict=True)):
        original, back = roots(chunk, name), roots(output, f"{name} (mlir-opt)")
        same = len(original) == len(back) and all(
            structural_equal(a, b) and metadata(a) == metadata(b)
            for a, b in zip(original, back, strict=True)
        )
        if not same:
            sys.exit(f"{name}: accepted chunk #{index} differs after mlir-opt:\n{output}")
    return len(accepted)


def example_texts() -> dict[str, str]:
    """The decoder of examples/decoder.py, as built and after the demo's model pipeline."""
    sys.path.insert(0, str(ROOT / "examples"))
    import decoder

    import tilefoundry as tf

    root = decoder.build_decoder(num_layers=2, d_model=16, d_ff=32, max_seq=64)
    analysed = tf.run_passes(root, "canonicalize,cse,tf-analyze{dims=seq=16}")
    return {
        "examples/decoder.py": tf.print_module(root, debuginfo=True),
        "examples/decoder.py (analysed)": tf.print_module(analysed, debuginfo=True),
    }


def main() -> int:
    mlir_opt, irdl_file, *rest = sys.argv[1:]
    example = "--example" in rest
    paths = [Path(p).resolve() for p in rest if p != "--example"]
    files = sorted({f for p in paths for f in (p.rglob("*.mlir") if p.is_dir() else [p])})
    texts = {str(f.relative_to(ROOT)): f.read_text(encoding="utf-8") for f in files}
    if example:
        texts |= example_texts()
    total = 0
    with tempfile.TemporaryDirectory() as workdir:
        for name, text in texts.items():
            if "/Output/" in name:
                continue
            count = check_file(name, text, mlir_opt, irdl_file, Path(workdir))
            print(f"{name}: {count} chunk(s) through mlir-opt and back")
            total += count
    print(f"total: {total} chunk(s), all the same IR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
