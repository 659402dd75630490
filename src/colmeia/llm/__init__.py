"""colmeia.llm."""
