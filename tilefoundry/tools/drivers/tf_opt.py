"""`tf-opt`: parse, verify, transform and print TileFoundry IR.

A driver that loads only the dialects and passes it needs, when it needs them (the options of
xdsl-opt it implements, without importing `xdsl.xdsl_opt_main`), and that reports every failure
as mlir-opt does, `file:line:col: error: message` then the source line and a caret (and any
notes the same way), with a non-zero exit:

```
$ tf-opt bad.mlir
bad.mlir:4:5: error: 'tf.call' op tf.math.binary argument #1 ('rhs') expects Tensor, got tensor<f32>
    %y = tf.call tf.math.binary<kind = add>(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ^
```

`--verify-diagnostics` is MLIR's (`tools/output/expectations.py`). With `--split-input-file` every chunk
runs and the good ones are printed. `-o FILE` is written only when the run succeeds: a regular
FILE is written aside and renamed over it (a failing run leaves it as it was), a device or FIFO
is written in place, `-o -` is standard output (`tools/output/output.py`). The output keeps the shape
of the input: a file whose top level is a `tf.module` prints as one.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from io import StringIO
from typing import TYPE_CHECKING, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tilefoundry.context.context import register_dialects
from tilefoundry.ir.allocation import collection_paused
from tilefoundry.ir.text.irdl_form import IRDLFormError
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.ir.verify.verifier import OpVerifyError, verify_ir
from tilefoundry.support.diagnostics import PassError, PassOutputError
from tilefoundry.tools.drivers.driver import load_plugins
from tilefoundry.tools.drivers.tf_opt_args import parse_arguments
from tilefoundry.tools.drivers.timing import Timing
from tilefoundry.tools.output.output import (
    ErrorStreamFailed,
    OutputClosed,
    OutputError,
    guarded_stderr,
    guarded_stdout,
    write_file,
    write_stdout,
)

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

    from tilefoundry.tools.output.report import Diagnostic
    from tilefoundry.transforms.pass_manager import Pipeline

__all__ = ["TfOptMain", "main"]

PROG = "tf-opt"


class ToolError(Exception):
    """A failure of the tool itself (bad flag, missing file, bad pipeline): one line, exit 1."""


class _ChunkFailed(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class TfOptMain:
    """The tool: its command line (`tools/drivers/tf_opt_args.py`), its context (the dialects, loaded
    on first use; the plugins), the pipeline, and `run()`."""

    def __init__(self, args: Sequence[str] | None = None) -> None:
        self.args = parse_arguments(args, _refuse)
        self.ctx = Context(allow_unregistered=self.args.allow_unregistered_dialect)
        register_dialects(self.ctx)
        load_plugins(self.args.plugin, ToolError)
        if self.args.extra:  # mlir-opt's pass flags (-cse): the registry is read only then
            from tilefoundry.tools.drivers.tf_opt_args import pass_flags
            from tilefoundry.transforms import PASSES

            self.args.passes = pass_flags(self.args, PASSES, _refuse) or self.args.passes
        self.dump_before = self._pass_names(self.args.mlir_print_ir_before)
        self.dump_after = self._pass_names(self.args.mlir_print_ir_after)
        self.color = _use_color(self.args.color)
        self.timing = Timing() if self.args.timing else None
        self.tf_pipeline = self._pipeline() if self.args.passes else None

    def _pass_names(self, lists: list[str]) -> frozenset[str]:
        """The passes named by `--mlir-print-ir-before/after=a,b` (each one registered)."""
        names = frozenset(n.strip() for text in lists for n in text.split(",") if n.strip())
        if names:
            from tilefoundry.transforms import PASSES
            from tilefoundry.transforms.pass_manager import did_you_mean

            for name in sorted(names - PASSES.keys()):
                raise ToolError(
                    f"unknown pass '{name}' in --mlir-print-ir-before/after"
                    + did_you_mean(name, PASSES)
                )
        return names

    def _pipeline(self) -> Pipeline:
        """The pipeline of `-p` (the pass manager is imported only when there is one)."""
        from tilefoundry.transforms import PASSES
        from tilefoundry.transforms.pass_manager import PipelineError, parse_pipeline

        try:
            return parse_pipeline(self.args.passes, PASSES)
        except PipelineError as err:
            text = self.args.passes
            shown = (
                f"'{text}'" if len(text) <= 200 else f"'{text[:200]}...' ({len(text)} characters)"
            )
            raise ToolError(f"invalid pass pipeline {shown}: {err}") from None

    # -- running ---------------------------------------------------------------------------------

    exit_code: int = 0

    def run(self) -> None:
        if self.args.list_passes:
            from tilefoundry.transforms import PASSES, describe_passes

            write_stdout(describe_passes(PASSES))
            return
        if self.args.list_ops:
            from tilefoundry.tools.generators.op_docs import describe_ops

            write_stdout(describe_ops())
            return
        if self.args.show_dialects:
            names = ",".join(sorted(self.ctx.registered_dialect_names))
            write_stdout(f"Available Dialects: {names}\n")
            return
        if self.args.dump_pass_pipeline:
            pipeline = self.tf_pipeline
            count = 0 if pipeline is None else len(pipeline.passes)
            shown = "builtin.module()" if pipeline is None else pipeline.describe()
            sys.stderr.write(f"Pass Manager with {count} passes:\n{shown}\n\n")
        name = self.args.input_file or "<stdin>"
        text = self._read_input()
        source = text.split("\n")
        output = StringIO()
        failed = internal = False
        for index, (chunk, first_line) in enumerate(self._split(text)):
            if index:
                output.write(f"{self.args.output_split_marker}\n")
            diagnostics: list[Diagnostic] = []
            try:
                output.write(self._process(chunk, name, first_line))
            except _ChunkFailed as err:
                diagnostics.append(err.diagnostic)
            except (ToolError, OutputError, OutputClosed):  # the tool cannot go on: one line
                raise
            except Exception as err:  # a bug: this chunk's one line, and the others still run
                if os.environ.get("TF_OPT_TRACEBACK"):
                    raise
                print(internal_error(err), file=sys.stderr)
                internal = True
                continue
            if self.args.verify_diagnostics:
                from tilefoundry.tools.output.expectations import (
                    check_expectations,
                    read_expectations,
                )

                expectations, problems = read_expectations(chunk, first_line)
                problems += check_expectations(expectations, diagnostics)
            else:
                problems = diagnostics
            if problems:  # the report is imported only when there is something to report
                from tilefoundry.tools.output.report import format_diagnostic

            for problem in problems:
                print(format_diagnostic(problem, name, source, color=self.color), file=sys.stderr)
            failed |= bool(problems)
        self.exit_code = 2 if internal else 1 if failed else 0
        self._write_output(output.getvalue(), succeeded=self.exit_code == 0)

    def _read_input(self) -> str:
        from tilefoundry.tools.drivers.source_text import SourceError, read_source

        try:
            return read_source(self.args.input_file or "-")
        except SourceError as err:
            raise ToolError(str(err)) from None

    def _split(self, text: str) -> list[tuple[str, int]]:
        if not self.args.split_input_file:
            return [(text, 1)]
        chunks: list[tuple[str, int]] = []
        line = 1
        for chunk in text.split("// -----"):
            chunks.append((chunk, line))
            line += chunk.count("\n")
        return chunks

    def _process(self, chunk: str, name: str, first_line: int) -> str:
        if _is_blank(chunk):
            # an empty input is an empty module, as mlir-opt prints it (not a split chunk)
            whole = not self.args.split_input_file and not self.args.no_implicit_module
            return "builtin.module {\n}\n" if whole else ""
        parser = TFParser(self.ctx, chunk, name)

        def diagnostic(kind: str, place: tuple[int, int] | None, message: str) -> Diagnostic:
            from tilefoundry.tools.output.report import Diagnostic, mlir_style

            if place is None:
                return Diagnostic(kind, None, None, mlir_style(message))
            return Diagnostic(kind, place[0] + first_line - 1, place[1], mlir_style(message))

        def fail(
            place: tuple[int, int] | None,
            message: str,
            notes: tuple[tuple[Operation, str], ...] = (),
        ) -> NoReturn:
            error = diagnostic("error", place, message)
            noted = tuple(diagnostic("note", op_place(op), text) for op, text in notes)
            raise _ChunkFailed(dataclasses.replace(error, notes=noted))

        def at_offset(offset: int) -> tuple[int, int]:
            position = parser.position_of(offset)
            return position.line, position.column

        def op_place(op: Operation) -> tuple[int, int] | None:
            position = parser.op_position(op)
            if position is None:
                return None
            return position.line, position.column

        try:
            with self._timed("parse"), collection_paused():
                module = parser.parse_module(not self.args.no_implicit_module)
        except ParseError as err:
            fail(at_offset(err.span.start), err.msg)
        except DiagnosticException as err:  # e.g. an attribute's verifier, run while parsing
            fail(at_offset(parser.pos), str(err))
        implicit = module not in parser.op_offsets
        try:
            if not self.args.disable_verify:
                with self._timed("verify"), collection_paused():
                    verify_ir(module)
            if self.tf_pipeline is not None:
                from tilefoundry.transforms.reports import reports_to

                # a pass's clones would trigger full collections; tf-analyze's table: stderr
                with collection_paused(), reports_to(sys.stderr):
                    self._run_pipeline(self.tf_pipeline, module, implicit)
        except OpVerifyError as err:
            fail(op_place(err.op), str(err), err.notes)
        except PassOutputError as err:  # the pass's bug: at the op, or the closest op read
            fail(_known_place(err.op, op_place), str(err), err.notes)
        except PassError as err:
            where = op_place(err.op) if err.op is not None else None
            fail(where, f"pass '{err.pass_name}' failed: {err.message}")
        except DiagnosticException as err:
            fail(None, f"a pass failed: {_one_line(str(err))}")
        if self.args.emit == "mlir":
            with self._timed("emit"):
                return self._emit_mlir(module, name, first_line, parser, fail)
        with self._timed("print"):
            printed = self._print(module, implicit)
        if self.args.verify_roundtrip:
            self._verify_roundtrip(module, implicit, fail)
        return printed

    def _emit_mlir(
        self,
        module: ModuleOp,
        name: str,
        first_line: int,
        parser: TFParser,
        fail: Callable[[tuple[int, int] | None, str], NoReturn],
    ) -> str:
        """`--emit=mlir`: the upstream MLIR of the input's `tf.module` (each op located at its
        metadata's span, else at its place in the input)."""
        from tilefoundry.codegen.emitter import emit_tree
        from tilefoundry.codegen.symbols import stamp_positions
        from tilefoundry.dialects.tf.module import ModuleOp as TFModuleOp
        from tilefoundry.mlir_builder import EmitError
        from tilefoundry.transforms.lowering import LoweringError

        roots = [op for op in module.ops if isinstance(op, TFModuleOp)]
        if len(roots) != 1:
            fail(None, f"--emit=mlir takes one tf.module, the input has {len(roots)}")

        def position(op: Operation) -> tuple[int, int] | None:
            found = parser.op_position(op)
            return None if found is None else (found.line + first_line - 1, found.column)

        stamp_positions(roots[0], name, position)
        try:
            return emit_tree(roots[0]).text
        except (EmitError, LoweringError) as err:
            place = None
            if isinstance(err.op, Operation):
                from tilefoundry.codegen.symbols import span_of

                span = span_of(err.op)
                place = None if span is None else (span[0] - first_line + 1, span[1])
            fail(place, err.message)

    def _verify_roundtrip(
        self,
        module: ModuleOp,
        implicit: bool,
        fail: Callable[[tuple[int, int] | None, str], NoReturn],
    ) -> None:
        """`--verify-roundtrip`: the output, in the custom and the generic form, reads back
        and prints as it was printed (the reading verified)."""
        for generic in (False, True):
            text = self._print(module, implicit, generic=generic, elide=False)
            reader = TFParser(self.ctx, text, "<roundtrip>")
            form = "generic" if generic else "custom"
            try:
                again = reader.parse_module(not self.args.no_implicit_module)
                verify_ir(again)
            except (ParseError, DiagnosticException, OpVerifyError) as err:
                message = err.msg if isinstance(err, ParseError) else str(err)
                fail(
                    None,
                    f"the output in the {form} form does not read back: "
                    f"{_one_line(message)} (--verify-roundtrip)",
                )
            back = self._print(again, again not in reader.op_offsets, generic=generic, elide=False)
            if back != text:
                fail(
                    None,
                    f"the output in the {form} form reads back as other IR: line "
                    f"{_first_difference(text, back)} differs (--verify-roundtrip)",
                )

    def _dump(self, when: str, module_pass: ModulePass, text: str, failed: bool = False) -> None:
        """An IR dump on stderr, headed as mlir-opt heads it."""
        title = f"{when} {type(module_pass).__name__}{' Failed' if failed else ''}"
        title += f" ({module_pass.name})"
        sys.stderr.write(f"// -----// IR Dump {title} //----- //\n{text}\n")

    def _anchor_text(self, anchor: Operation, module: ModuleOp, implicit: bool) -> str:
        if anchor is module:
            return self._print(module, implicit)
        return self._print_ops([anchor])

    def _run_pipeline(self, pipeline: Pipeline, module: ModuleOp, implicit: bool) -> None:
        """Run the pipeline, verifying after every pass (and timing, printing between and
        around passes on stderr, as mlir-opt's `--mlir-print-ir-*`). After a pass, the op it ran
        on is verified, as MLIR does; after a pipeline that nested, the whole input once more.
        Each is an instrumentation of the run (`transforms/instrumentation.py`), outermost
        first: the dumps, the verification, the pass timer, the house's own."""
        from tilefoundry.transforms.instrumentation import (
            CostFreshness,
            EffectSummaries,
            OutputVerification,
            PassHooks,
            PassInstrumentation,
        )

        total = len(pipeline.passes)
        done = 0
        started = time.perf_counter()
        args = self.args
        after_change = args.mlir_print_ir_after_change
        before_text: str | None = None
        running: tuple[ModulePass, Operation] | None = None

        def before_pass(module_pass: ModulePass, anchor: Operation) -> None:
            nonlocal before_text, running
            running = (module_pass, anchor)
            text = None
            if args.mlir_print_ir_before_all or module_pass.name in self.dump_before:
                text = self._anchor_text(anchor, module, implicit)
                self._dump("Before", module_pass, text)
            if after_change:
                before_text = text or self._anchor_text(anchor, module, implicit)

        def start_timer(module_pass: ModulePass, anchor: Operation) -> None:
            nonlocal started
            started = time.perf_counter()

        def stop_timer(module_pass: ModulePass, anchor: Operation) -> None:
            elapsed = time.perf_counter() - started
            if self.timing is not None:
                self.timing.add(f"pass {module_pass.name}", elapsed)
            if self.args.time_passes:
                print(f"Pass {module_pass.name} took {elapsed} seconds", file=sys.stderr)

        def after_pass(module_pass: ModulePass, anchor: Operation) -> None:
            nonlocal done
            done += 1
            named = module_pass.name in self.dump_after
            if args.mlir_print_ir_after_all or named or after_change:
                text = self._anchor_text(anchor, module, implicit)
                if not after_change or text != before_text or named:
                    self._dump("After", module_pass, text)
            if self.args.print_between_passes and done < total:
                sys.stderr.write(
                    f"// IR after {module_pass.name}:\n{self._print(module, implicit)}\n"
                )

        instrumentations: list[PassInstrumentation] = [PassHooks(before_pass, after_pass)]
        if not self.args.disable_verify and self.args.verify_each:
            instrumentations.append(OutputVerification(timed=lambda: self._timed("verify")))
        instrumentations += [PassHooks(start_timer, stop_timer), EffectSummaries(), CostFreshness()]
        try:
            pipeline.run(self.ctx, module, instrumentations)
        except Exception:
            if args.mlir_print_ir_after_failure and running is not None:
                failed_pass, anchor = running
                text = self._anchor_text(anchor, module, implicit)
                self._dump("After", failed_pass, text, failed=True)
            raise

    def _timed(self, stage: str) -> AbstractContextManager[None]:
        return nullcontext() if self.timing is None else self.timing.measure(stage)

    def _print(
        self, module: ModuleOp, implicit: bool, generic: bool | None = None, elide: bool = True
    ) -> str:
        ops = list(module.ops) if implicit and not module.attributes else [module]
        return self._print_ops(ops, generic, elide)

    def _print_ops(
        self, ops: Sequence[Operation], generic: bool | None = None, elide: bool = True
    ) -> str:
        stream = StringIO()
        printer = TFPrinter(
            stream=stream,
            print_generic_format=self.args.print_op_generic if generic is None else generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
            elide_elements_over=self.args.mlir_elide_elementsattrs_if_larger if elide else None,
        )
        if self.args.print_irdl_generic and generic is None:
            from tilefoundry.ir.text.irdl_printer import irdl_printer

            printer = irdl_printer(stream, print_debuginfo=self.args.print_debuginfo)
        try:
            for op in ops:
                printer.print_op(op)
                printer.print_string("\n")
            printer.print_location_aliases()
        except IRDLFormError as err:
            raise ToolError(str(err)) from None
        return stream.getvalue()

    def _write_output(self, text: str, *, succeeded: bool) -> None:
        """Print the output; into `-o FILE` only when the run succeeded (`tools/output/output.py`:
        a regular file is written aside and renamed over FILE, so that a failure never leaves
        it truncated or half written; a device or FIFO is written in place; `-` is stdout)."""
        path = self.args.output_file
        if path is None:
            write_stdout(text)
            return
        if not succeeded:
            return
        try:
            write_file(path, lambda stream: stream.write(text.encode("utf-8")))
        except OutputError as err:
            raise ToolError(str(err)) from None


def _refuse(message: str) -> NoReturn:
    raise ToolError(message)


def _first_difference(text: str, other: str) -> int:
    """The 1-based number of the first line where two texts differ."""
    lines, others = text.split("\n"), other.split("\n")
    for number, (line, that) in enumerate(zip(lines, others, strict=False), 1):
        if line != that:
            return number
    return min(len(lines), len(others)) + 1


def _use_color(when: str) -> bool:
    """`--color`: always, never, or auto (stderr is a terminal and NO_COLOR is not set)."""
    if when != "auto":
        return when == "always"
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _known_place(
    op: Operation, op_place: Callable[[Operation], tuple[int, int] | None]
) -> tuple[int, int] | None:
    """Where the input has `op`, else its closest enclosing op that the input has (a pass's
    new op was never read)."""
    node: Operation | None = op
    while node is not None:
        place = op_place(node)
        if place is not None:
            return place
        node = node.parent_op()
    return None


def _is_blank(chunk: str) -> bool:
    """Whether a chunk holds only white space and `//` comments."""
    return all(not line.strip() or line.lstrip().startswith("//") for line in chunk.splitlines())


def _one_line(message: str) -> str:
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return lines[0] if lines else "error"


def internal_error(err: Exception) -> str:
    """The one line that reports a bug."""
    return (
        f"{PROG}: internal error: {type(err).__name__}: {_one_line(str(err))} "
        "(set TF_OPT_TRACEBACK=1 for the traceback)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    from tilefoundry_client.streams import hold_closed_streams

    hold_closed_streams()  # a closed stdout: one line at the first write; a closed stderr: quiet
    try:
        with guarded_stderr():  # a failed write to stderr: exit 1, nothing more can be said
            return _main(argv)
    except ErrorStreamFailed:
        return 1


def _main(argv: Sequence[str] | None) -> int:
    try:
        with guarded_stdout():  # any print: a full or closed standard output is one line
            driver = TfOptMain(argv)
            driver.run()
        if driver.timing is not None:
            sys.stderr.write(driver.timing.report())
        return driver.exit_code
    except ToolError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    except OutputError as err:  # standard output is full or failed: one line
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except (OutputClosed, BrokenPipeError):  # a closed pipe (`| head -1`): a quiet exit
        return 1
    except Exception as err:  # a bug in tf-opt or a pass: still one line, unless asked
        if os.environ.get("TF_OPT_TRACEBACK"):
            raise
        print(internal_error(err), file=sys.stderr)
        return 2


def entry() -> NoReturn:
    """The `tf-opt` command: `main`, then the exit without the teardown. Freeing a large module
    object by object takes a tenth of the run; the output is flushed and every file closed by
    then, so the process ends as MLIR's tools end theirs, leaving the memory to the system."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    entry()
