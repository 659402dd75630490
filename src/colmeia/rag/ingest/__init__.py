"""colmeia.rag.ingest."""
