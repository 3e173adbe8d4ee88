"""Support: what every layer uses and that uses nothing of TileFoundry's own: argument
wording (`arguments`), diagnostics (`diagnostics`), caches (`caches`), attribute <->
Python values (`values`), the IRDL parameter syntax (`irdl_syntax`).
"""
