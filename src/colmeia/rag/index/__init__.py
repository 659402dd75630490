"""colmeia.rag.index."""
