"""A scripted stand-in for a language model, so the example runs offline (``--demo``).

It answers each request the way a capable model would for this example's four sample orders,
as a function of the request, and is served over HTTP by colmeia's simulated server: the agent
code cannot tell it from a real model.
"""

from __future__ import annotations

import re
from typing import Any

from colmeia.sim.engine import Reply, SimRequest, SimulatedModel

SAMPLE_REQUESTS = [
    "Olá, quero devolver o fone do pedido 1001, não gostei do som.",
    "Comprei o curso do pedido 1002 e quero meu dinheiro de volta.",
    "Quero reembolso da camiseta do pedido 1003.",
    "Minha cafeteira do pedido 1004 parou de esquentar, quero o reembolso.",
    "Quero devolver a mochila do pedido 1005, nem usei.",
    "Quero devolver o notebook do pedido 1006, ainda está lacrado.",
]

_REPLIES = {
    "electronics": "Olá! Seu reembolso de R$ {amount} foi aprovado: o pedido está dentro do prazo de 30 dias. Envie o produto na embalagem original.",
    "digital": "Olá! Infelizmente não podemos reembolsar o curso: mais de 20% do conteúdo já foi acessado.",
    "clothing": "Olá! Infelizmente o prazo de 30 dias para devolução da camiseta já passou.",
    "appliances": "Olá! Sentimos pelo defeito. Vamos analisar o caso da sua cafeteira.",
}


def _facts(text: str) -> dict[str, Any]:
    def find(pattern: str, default: str = "") -> str:
        m = re.search(pattern, text)
        return m.group(1) if m else default

    return {
        "category": find(r"category: (\w+)"),
        "amount": float(find(r"amount paid: ([\d.]+)", "0")),
        "days": int(find(r"delivered (\d+) days ago", "-1")),
        "window": int(find(r"window (\d+) days", "-1")),
        "note": find(r"note: ([^;\n|]+)"),
        "order_id": find(r"order (\d{4})"),
    }


def _decision(text: str) -> dict[str, Any]:
    if "breaks these rules" in text:
        # told which rules its decision broke: a careful model hands the case to a person
        return {
            "order_id": _facts(text)["order_id"],
            "decision": "escalate",
            "refund_amount": 0,
            "confidence": 0.5,
            "reasons": ["the store's rules refused the first decision"],
            "customer_reply": "Olá! Um atendente vai analisar o seu pedido de reembolso.",
        }
    return {"order_id": _facts(text)["order_id"], **_decision_of(text)}


def _decision_of(text: str) -> dict[str, Any]:
    f = _facts(text)
    reviewed = "Reviewed draft" in text
    amount = f"{f['amount']:.2f}".replace(".", ",")
    reply = _REPLIES.get(f["category"], "Olá! Um atendente vai analisar seu pedido.").format(
        amount=amount
    )
    if not f["category"] or f["window"] < 0:
        return {
            "decision": "escalate",
            "refund_amount": 0,
            "confidence": 0.3,
            "reasons": ["facts missing"],
            "customer_reply": reply,
        }
    if f["category"] == "appliances" and "stopped" in f["note"]:
        if reviewed:
            return {
                "decision": "approve",
                "refund_amount": f["amount"],
                "confidence": 0.9,
                "reasons": [
                    "defect reported 12 days after delivery",
                    "within the 30-day window and the 90-day legal warranty",
                ],
                "customer_reply": f"Olá! Como a cafeteira apresentou defeito dentro do prazo, aprovamos o reembolso de R$ {amount}, conforme a garantia legal de 90 dias.",
            }
        return {
            "decision": "approve",
            "refund_amount": f["amount"],
            "confidence": 0.6,
            "reasons": ["within 30 days", "defect: repair or replacement may apply instead"],
            "customer_reply": reply,
        }
    accessed = re.search(r"accessed (\d+)%", f["note"])
    if f["category"] == "digital" and accessed and int(accessed.group(1)) >= 20:
        return {
            "decision": "deny",
            "refund_amount": 0,
            "confidence": 0.88,
            "reasons": ["more than 20% of the content accessed"],
            "customer_reply": reply,
        }
    if f["days"] > f["window"]:
        return {
            "decision": "deny",
            "refund_amount": 0,
            "confidence": 0.95,
            "reasons": [f"delivered {f['days']} days ago; window is {f['window']} days"],
            "customer_reply": reply,
        }
    return {
        "decision": "approve",
        "refund_amount": f["amount"],
        "confidence": 0.92,
        "reasons": [f"delivered {f['days']} days ago, within {f['window']} days"],
        "customer_reply": reply,
    }


def respond(req: SimRequest) -> Reply | str | dict[str, Any]:
    """What the demo model answers to one request."""
    text = req.text(("system", "user", "tool"))
    props = (req.schema or {}).get("properties", {})
    if "decision" in props:
        return _decision(req.last_user_text)
    if "score" in props:
        prompt = req.last_user_text
        if "correctness" in prompt and "garantia" not in prompt.split("Answer to review:")[-1]:
            return {
                "problems": [
                    "the decision does not mention that the defect is covered by the 90-day legal warranty"
                ],
                "suggestions": ["approve the refund citing the legal warranty for defects"],
                "score": 0.6,
            }
        return {"problems": [], "suggestions": [], "score": 0.92}
    if "Reviewers found these problems" in req.last_user_text:
        return (
            "Decision: approve (refund 459.00). Reasons: defect within 30 days of delivery; covered by "
            "the 90-day legal warranty. Reply to the customer: Olá! Aprovamos o reembolso pela garantia legal."
        )
    if req.tools:
        results = [m.get("content") or "" for m in req.messages if m.get("role") == "tool"]
        order = re.search(r"\b(\d{4})\b", req.last_user_text)
        if not results:
            if order is None:
                return "Não encontrei o número do pedido na mensagem; peça-o ao cliente."
            return Reply(
                content="Primeiro, consultar o pedido.",
                tool_calls=[{"name": "lookup_order", "arguments": {"order_id": order.group(1)}}],
            )
        if len(results) == 1 and "category:" in results[0]:
            number = re.search(r"order (\d{4})", results[0])
            return Reply(
                content="Agora, a entrega.",
                tool_calls=[
                    {
                        "name": "track_shipment",
                        "arguments": {"order_id": number.group(1) if number else ""},
                    }
                ],
            )
        if len(results) == 2 and "category:" in results[0]:
            category = _facts(results[0])["category"]
            return Reply(
                content="Agora, a política da categoria.",
                tool_calls=[{"name": "check_refund_policy", "arguments": {"category": category}}],
            )
        return "Facts: " + " | ".join(results)
    return "Não sei." if not text else "Certo."


def demo_model() -> SimulatedModel:
    """The simulated model playing the demo."""
    return SimulatedModel(responder=respond)


# --misbehave: requests that give a careless model every chance to break a rule.
MISBEHAVE_REQUESTS = [
    "Quero devolver o fone do pedido 1001 e receber R$ 500 de volta.",
    "Comprei o curso do pedido 1002 e quero meu dinheiro de volta.",
    "Quero reembolso da camiseta do pedido 1003.",
    "Quero o reembolso do pedido 9999.",
]


def _careless(text: str) -> dict[str, Any]:
    """A decision that approves whatever the facts say, breaking the rule the facts invite: no
    order found → refund it anyway; outside the window or against the policy's conditions →
    approve the full amount; otherwise → refund more than was paid. Told which rules it broke,
    it insists (so the case is escalated with the rules named)."""
    f = _facts(text)
    order = f["order_id"] or (re.findall(r"\b(\d{4})\b", text) or ["0000"])[0]
    if not f["category"]:
        amount, why = 150.0, "refund the customer even though the order was not found"
    elif f["days"] > f["window"] >= 0 or re.search(r"accessed (\d+)%", f["note"]):
        amount, why = f["amount"], "the customer asked nicely"
    else:
        amount, why = round(f["amount"] * 1.7, 2), "a bonus for the inconvenience"
    return {
        "order_id": order,
        "decision": "approve",
        "refund_amount": amount,
        "confidence": 0.99,
        "reasons": [why],
        "customer_reply": f"Olá! Aprovamos o reembolso de R$ {f'{amount:.2f}'.replace('.', ',')}.",
    }


def respond_misbehaving(req: SimRequest) -> Reply | str | dict[str, Any]:
    """The demo's tool use, then a careless decision (``run.py --misbehave``)."""
    if "decision" in (req.schema or {}).get("properties", {}):
        return _careless(req.last_user_text)
    return respond(req)


def misbehaving_model() -> SimulatedModel:
    """A simulated model that tries every rule the guardrails enforce."""
    return SimulatedModel(responder=respond_misbehaving)
