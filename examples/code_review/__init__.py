"""Reflection reviews a Python function for time complexity, with a critic focus of your
choosing. Run ``python -m examples.code_review --demo``."""
