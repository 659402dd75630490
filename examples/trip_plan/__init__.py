"""Plan-and-Solve for a trip: a plan, tools per step, and a replan when a step fails.
Run ``python -m examples.trip_plan --demo``."""
