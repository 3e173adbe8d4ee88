# `make test` and `make demo` each bootstrap .venv from nothing (python3 >= 3.11 on PATH).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: test demo demo-torch unit lit validate bench lint dialects clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,torch,iree]'
	touch $(STAMP)

## The test suite: pytest (tests/unit) and lit + FileCheck (tests/filecheck).
test: $(STAMP)
	$(BIN)/python -m pytest tests/unit
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -v --order=smart tests/filecheck

unit: $(STAMP)
	$(BIN)/python -m pytest tests/unit

lit: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -v --order=smart tests/filecheck

## Translation validation, long: SEEDS generated programs (from START) through every pass and
## random pipelines, compared bit for bit with the interpreter (make test runs 160); then
## NATIVE_SEEDS of them compiled by the native backend against the interpreter (make test: 160),
## and IREE_SEEDS by the IREE backend (make test: 40).
SEEDS ?= 5000
NATIVE_SEEDS ?= 2000
IREE_SEEDS ?= 400
START ?= 0
validate: $(STAMP)
	TF_VALIDATE_SEEDS=$(SEEDS) TF_VALIDATE_START=$(START) $(BIN)/python -m pytest \
		tests/unit/transforms/test_transforms_translation_validation.py -k test_passes_keep
	TF_VALIDATE_SEEDS=$(NATIVE_SEEDS) TF_VALIDATE_START=$(START) $(BIN)/python -m pytest \
		tests/unit/backends/native/test_build_translation_validation.py -k test_compiled_programs
	TF_VALIDATE_SEEDS=$(IREE_SEEDS) TF_VALIDATE_START=$(START) $(BIN)/python -m pytest \
		tests/unit/backends/iree/test_build_translation_validation.py -k test_iree_programs

## The main job: a tf-opt pipeline over the example decoder, then running it on numpy inputs.
demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python examples/demo.py

## The torch frontend: a Hugging Face Llama imported as a module tree, analyzed, a layer
## selected and compiled, the model run against PyTorch's logits.
demo-torch: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python examples/demo_torch.py

## ruff (lint + format) and mypy --strict; installs the [dev] extras.
lint: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	$(BIN)/ruff check tilefoundry tilefoundry_client examples benchmarks tests
	$(BIN)/ruff format --check tilefoundry tilefoundry_client examples benchmarks tests
	$(BIN)/mypy

## dialects/*.irdl.mlir (the dialects in IRDL, for upstream mlir-opt --irdl-file) and their
## reference docs/dialects/*.md, generated from tilefoundry/dialects, and the op catalogue
## docs/ops.md, generated from the op registry; tests fail when stale.
dialects: $(STAMP)
	$(BIN)/python -m tilefoundry.tools.generators.irdl_export
	$(BIN)/python -m tilefoundry.tools.generators.dialect_docs
	$(BIN)/python -m tilefoundry.tools.generators.op_docs
	$(BIN)/python -m tilefoundry.tools.generators.op_stubs

## Speed: the whole tool against xdsl-opt and mlir-opt, in-process scaling, the Python surface,
## bounded work on adversarial inputs, a lit RUN line's start-up (the tf-opt server), building,
## hashing and comparing next to TVM Relax (TVM from the [bench] extra; without it, ours alone).
bench: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/run.py
	cd benchmarks && ../$(BIN)/python inprocess.py
	cd benchmarks && ../$(BIN)/python object_limit.py
	$(BIN)/python benchmarks/surface.py
	$(BIN)/python benchmarks/build_hash_compare.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/bounded.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/lit_speed.py --lit-path tests/filecheck/transforms

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
	find tests -name Output -type d -prune -exec rm -rf {} +
