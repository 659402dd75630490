"""colmeia.store."""
