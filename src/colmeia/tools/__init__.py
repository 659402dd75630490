"""colmeia.tools."""
