"""Pass pipelines: the grammar, typed kebab-case options, anchors, and one-line errors for
every malformed pipeline (a seeded fuzz of pipeline texts included: no traceback, ever)."""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path

import pytest

from tilefoundry.tools.drivers.tf_opt import main as tf_opt
from tilefoundry.transforms import PASSES
from tilefoundry.transforms.pass_manager import (
    Nest,
    PassRun,
    PipelineError,
    option_infos,
    parse_pipeline,
)

INPUT = Path(__file__).parents[2] / "filecheck" / "transforms" / "Inputs" / "tree.mlir"


def test_builtin_module_wrapping_the_pipeline_is_the_pipeline() -> None:
    plain = parse_pipeline("canonicalize,cse", PASSES)
    wrapped = parse_pipeline("builtin.module(canonicalize,cse)", PASSES)
    assert [p.name for p in plain.passes] == ["canonicalize", "cse"]
    assert [type(p) for p in wrapped.passes] == [type(p) for p in plain.passes]
    assert all(isinstance(e, PassRun) for e in wrapped.elements)


def test_nesting_builds_nested_pipelines() -> None:
    pipeline = parse_pipeline("tf.module(hir.func(cse), tf-inline), dce", PASSES)
    outer, last = pipeline.elements
    assert isinstance(outer, Nest) and outer.op_name == "tf.module"
    inner, inline = outer.elements
    assert isinstance(inner, Nest) and inner.op_name == "hir.func"
    assert isinstance(inline, PassRun) and inline.pass_.name == "tf-inline"
    assert isinstance(last, PassRun) and last.pass_.name == "dce"


def test_options_are_typed_and_kebab_case() -> None:
    (fold,) = parse_pipeline("tf-fold-constants{max-elements=0x10}", PASSES).passes
    assert fold.max_elements == 16
    (fold,) = parse_pipeline("tf-fold-constants{max_elements=3}", PASSES).passes
    assert fold.max_elements == 3
    (analyze,) = parse_pipeline("tf-analyze{dims=seq=512,batch=4}", PASSES).passes
    assert analyze.dims == ("seq=512", "batch=4")
    (select,) = parse_pipeline('tf-select{path="a.b"}', PASSES).passes
    assert select.path == "a.b"
    (analyze,) = parse_pipeline('tf-analyze{dims="seq=512","batch=4"}', PASSES).passes
    assert analyze.dims == ("seq=512", "batch=4")  # as `--dump-pass-pipeline` writes a list
    (select,) = parse_pipeline('tf-select{path=@"c d"::@g}', PASSES).passes
    assert select.path == '@"c d"::@g'  # a quoted part inside a value is kept, as in MLIR
    names = {o.name for name in PASSES for o in option_infos(PASSES[name]())}
    assert names == {"max-elements", "dims", "path", "max-ops", "table", "plot", "function"}


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("cse{", "expected '}' to close the options of 'cse'", 5),
        ("cse dce", "expected ',' between passes, found 'd'", 5),
        ("cse,,dce", "expected a pass name or an op name, found ','", 5),
        ("((", "expected a pass name or an op name, found '('", 1),
        ("cse,", "expected a pass name or an op name, found the end", 5),
        ("tf.module(cse", "expected ',' or ')', found the end", 14),
        ("cse)", "expected ',' between passes, found ')'", 4),
        ('tf-select{path="a}', "unterminated quoted option value", 16),
        ("tf-select{path=}", "expected an option value after '='", 16),
        ("tf-fold-constants{max-elements=-1}", "max-elements must be >= 0, got -1", 1),
        ("tf-fold-constants{max-elements=1.5}", "expects an integer, got '1.5'", 19),
        ("tf-analyze{dims=seq}", "dims entries are name=size, got 'seq'", 1),
        ("cse{aggressive}", "pass 'cse' has no option 'aggressive' (options: none)", 5),
        ("nope", "unknown pass 'nope' (available passes: canonicalize, cse", 1),
        ("tf.call(cse)", "cannot nest passes on 'tf.call': it is not isolated from above", 1),
        ("cse(dce)", "cannot nest passes on 'cse': it is not an op name", 1),
        ("hir.func(tf-analyze)", "pass 'tf-analyze' runs on builtin.module or tf.module", 10),
        ("tf.module(tf-select)", "pass 'tf-select' runs on builtin.module, not on 'tf.module'", 11),
        ("tf.module(" * 3000 + "cse" + ")" * 3000, "nests deeper than 64 levels", 641),
        ("tf.module(" * 65 + ")" * 65, "nests deeper than 64 levels", 641),
        ("tf-fold-constants{max-elements=10000000000}", "max-elements must be at most 1048576", 1),
        ("tf-inline{max-ops=0}", "max-ops must be at least 1 and at most 1000000", 1),
        ("tf-inline{max-ops=1000001}", "(each copied op is held in memory), got 1000001", 1),
    ],
)
def test_malformed_pipelines_are_one_line(text: str, message: str, column: int) -> None:
    with pytest.raises(PipelineError) as info:
        parse_pipeline(text, PASSES)
    assert message in info.value.message
    assert info.value.column == column
    assert "\n" not in str(info.value)


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tf_opt(args)
    return code, out.getvalue(), err.getvalue()


PIECES = [
    "cse",
    "dce",
    "canonicalize",
    "tf-inline",
    "tf-select{path=layer0}",
    "tf-analyze{dims=seq=4}",
    "tf-fold-constants{max-elements=2}",
    "tf.module(",
    "hir.func(",
    "builtin.module(",
    ")",
    "(",
    ",",
    "{",
    "}",
    "=",
    " ",
    '"',
    "tf-prune-unreachable",
    "tf-verify-published",
    "tf-lower{function=layer0.f}",
    "x{y=1}",
    "tf.mesh(",
]


def test_fuzzed_pipelines_end_in_a_result_or_one_line() -> None:
    """Seeded: random pipeline texts from the grammar's pieces never end in a traceback or
    an internal error; failures are one `tf-opt: error:` line (or one diagnostic line)."""
    rng = random.Random(6)
    for _ in range(120):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))
        code, _, err = run([str(INPUT), "-p", text])
        assert code in (0, 1), f"exit {code} for {text!r}: {err}"
        if code:
            lines = err.strip().splitlines()
            # one line, or one diagnostic: its line, the source line and a caret
            assert len(lines) == (3 if lines[0].startswith(str(INPUT)) else 1), f"{text!r}: {err}"
            assert "error:" in lines[0] and "Traceback" not in err


def test_a_deep_pipeline_is_one_short_line() -> None:
    code, _, err = run([str(INPUT), "-p", "tf.module(" * 3000 + "cse" + ")" * 3000])
    assert code == 1
    assert err.startswith("tf-opt: error: invalid pass pipeline 'tf.module(tf.module(")
    assert err.endswith(
        "...' (33003 characters): the pipeline nests deeper than 64 levels (at column 641)\n"
    )
    assert len(err) < 400


def test_list_passes_lists_every_pass() -> None:
    code, out, _ = run(["--list-passes"])
    assert code == 0
    listed = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert listed == sorted(PASSES)


def test_help_describes_tf_opts_own_behaviour() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        tf_opt(["--help"])
    text = " ".join(out.getvalue().split())
    assert "MLIR's diagnostic checking" in text
    assert "'builtin.module(a,b)'" in text
    assert "--list-passes" in text


def test_a_dumped_pipeline_reads_back_as_itself() -> None:
    """`--dump-pass-pipeline`'s text (every option with its value) is a pipeline that builds
    the same passes, for every registered pass and for nesting, `any(...)` included."""
    nested = "tf.module(any(cse),hir.func(canonicalize)),tf-select{path=a}"
    for text in [*sorted(PASSES), nested, "tf-analyze{dims=seq=512,batch=4 table=out.csv}"]:
        dumped = parse_pipeline(text, PASSES).describe()
        again = parse_pipeline(dumped, PASSES)
        assert again.describe() == dumped
        assert again.passes == parse_pipeline(text, PASSES).passes


def test_any_nests_on_every_anchor_op_in_the_anchor() -> None:
    pipeline = parse_pipeline("tf.module(any(cse))", PASSES)
    (outer,) = pipeline.elements
    assert isinstance(outer, Nest) and isinstance(outer.elements[0], Nest)
    assert outer.elements[0].op_name == "any"
    with pytest.raises(PipelineError, match=r"pass 'tf-select' runs on builtin.module, not on any"):
        parse_pipeline("any(tf-select)", PASSES)


def test_an_unknown_pass_or_option_names_the_nearest() -> None:
    for text, nearest in [("canonicalise", "canonicalize"), ("tf-inline{max-op=3}", "max-ops")]:
        with pytest.raises(PipelineError) as info:
            parse_pipeline(text, PASSES)
        assert info.value.message.endswith(f"; did you mean '{nearest}'?")


@pytest.mark.parametrize(
    "text",
    [
        "cse,dce,canonicalize",
        "tf-fold-constants{max-elements=7},tf-inline{max-ops=5}",
        'tf-analyze{dims="seq=4","batch=2" table="" plot="a.svg"},tf-select{path="a.b"}',
        "tf-analyze{dims},tf-select{path=layer0}",
        "tf-fold-constants{max_elements=3}",
    ],
)
def test_a_flat_pipeline_xdsl_reads_builds_what_xdsl_builds(text: str) -> None:
    """Where xDSL's own reader (`PassPipeline.parse_spec`) takes the text, the layer builds the
    same passes: it adds MLIR's nesting and values to xDSL's options, it does not change them."""
    from xdsl.passes import PassPipeline

    assert parse_pipeline(text, PASSES).passes == PassPipeline.parse_spec(PASSES, text).passes
