"""The agents chapter's own three tasks: a search question (ReAct), the apples (Plan-and-Solve),
primes (Reflection)."""
