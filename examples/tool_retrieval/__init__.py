"""Tool retrieval over an e-commerce catalogue of 64 tools: each step is offered the few that
matter. Run ``python -m examples.tool_retrieval --demo``."""
