"""Subcommands of `zuni`. Each module has ``register(subparsers)``, which adds its
parsers and sets ``func`` on them: ``func(args) -> int`` is the exit status."""
