"""The Python surface over the IR: `Module` (`module`), the `hir.Function` and
`tir.PrimFunction` views (`hir`, `tir`), text (`text`), selection, running
(`runtime`), passes (`pipeline`), analysis, and the compile stages (`compiler`,
`compiled`). Users import `tilefoundry`; this file re-exports nothing.
"""
