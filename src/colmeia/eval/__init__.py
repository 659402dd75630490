"""colmeia.eval."""
