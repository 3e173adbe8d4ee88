"""Test support that ships with the package: the seeded program generator of translation
validation (`tilefoundry.testing.program_generator`) and its checker
(`tilefoundry.testing.validation`)."""

from __future__ import annotations
