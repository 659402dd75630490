"""colmeia.agents."""
