"""A customer-service agent for refund requests, built from colmeia's agent paradigms.

ReAct gathers the facts with local tools (the order, the refund policy), a structured decision
follows, and when the decision's confidence is low a Reflection pass reviews it. The tools read a
small SQLite file that the example creates itself. Run ``python -m examples.refund_agent --demo``.
"""
