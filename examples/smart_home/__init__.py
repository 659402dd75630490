"""A smart-home assistant: ReAct, Plan-and-Solve and Reflection on the same tasks, side by side.
Run ``python -m examples.smart_home --demo``."""
