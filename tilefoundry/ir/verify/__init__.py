"""Verification: the verifier (`verifier.py`) and per-op verification memoization
(`op_verification.py`)."""
