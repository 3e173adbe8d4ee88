"""Says where `tilefoundry` and the test plugins are imported from, against the checkout root
given as the argument (tools/lit-builtins-env.test)."""

import sys
from pathlib import Path

import custom_metadata  # noqa: F401 - found only through the test's PYTHONPATH

import tilefoundry

root = Path(sys.argv[1]).resolve()
where = Path(tilefoundry.__file__).resolve().parents[1]
if where == root:
    print("tilefoundry and the test plugins imported from this checkout")
else:
    print(f"tilefoundry imported from {where}, not {root}")
