"""colmeia.tools.builtins."""
