"""colmeia.apps."""
