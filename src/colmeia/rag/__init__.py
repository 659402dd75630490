"""colmeia.rag."""
