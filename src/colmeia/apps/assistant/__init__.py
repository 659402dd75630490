"""The institutional assistant: a coordinator, a RAG agent and a case-search agent.

See ``docs/assistant.md``. The case registry (``registry``), identifiers (``ids``) and case
lookups (``cases``) are usable on their own.
"""
