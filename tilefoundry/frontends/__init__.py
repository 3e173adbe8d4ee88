"""Frontends: other frameworks' programs as TileFoundry module trees (`frontends.torch`)."""
