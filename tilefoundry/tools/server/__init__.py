"""The resident fork server that serves tf-opt and tf-run to lit (its own user only)."""
