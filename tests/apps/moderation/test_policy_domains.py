"""The allow-list of a store policy: the store's own domain and its subdomains, nothing that
merely ends with the same letters.

``loja.com.br`` allowed means ``loja.com.br``, ``www.loja.com.br``, ``sac.loja.com.br`` and
addresses ``@loja.com.br`` are fine in an answer; ``outraloja.com.br`` (another shop whose name
ends the same way) is a link to a competitor and must be flagged.
"""

from __future__ import annotations

import pytest

from colmeia.apps.moderation.policy import Policy, PolicyFile, PolicyRules, PolicySet

CONTEXT = "title: Mouse Sem Fio\nGARANTIA: 1 ano contra defeitos de fabricação"


def policy(allow: list[str]) -> Policy:
    spec = PolicyFile(default=PolicyRules(allow=allow))
    return PolicySet(spec).resolve(
        category="Informática", store="", locale="pt", question="?", threshold=8, max_rewrites=3
    )


def flagged(text: str, allow: list[str]) -> list[tuple[str, str]]:
    return sorted((v.rule, v.found) for v in policy(allow).check(text, CONTEXT))


@pytest.mark.parametrize(
    "text",
    [
        "Compre em loja.com.br.",
        "Compre em https://www.loja.com.br/mouse",
        "Veja sac.loja.com.br/ajuda",
        "Escreva para sac@loja.com.br.",
        "Escreva para atendimento@sac.loja.com.br.",
        "Compre em LOJA.COM.BR",
    ],
)
def test_the_allowed_domain_its_subdomains_and_its_addresses_pass(text: str) -> None:
    assert flagged(text, ["loja.com.br"]) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Compre em outraloja.com.br.", ("link", "outraloja.com.br")),
        (
            "Compre em https://www.outraloja.com.br/mouse",
            ("link", "https://www.outraloja.com.br/mouse"),
        ),
        ("Escreva para sac@outraloja.com.br.", ("email", "sac@outraloja.com.br")),
        ("Veja loja.com.br.golpe.net", ("link", "loja.com.br.golpe.net")),
        ("Veja loja.com", ("link", "loja.com")),
    ],
)
def test_a_look_alike_domain_is_flagged(text: str, found: tuple[str, str]) -> None:
    assert flagged(text, ["loja.com.br"]) == [found]


def test_an_allowed_address_allows_only_itself_not_its_whole_domain() -> None:
    allow = ["sac@loja.com.br"]
    assert flagged("Escreva para sac@loja.com.br.", allow) == []
    assert flagged("Escreva para vendas@loja.com.br.", allow) == [("email", "vendas@loja.com.br")]
    assert flagged("Escreva para sac@outraloja.com.br.", allow) == [
        ("email", "sac@outraloja.com.br")
    ]


def test_the_violation_tells_the_rewriter_what_to_remove() -> None:
    [violation] = policy(["loja.com.br"]).check("Veja outraloja.com.br", CONTEXT)
    assert violation.rule == "link"
    assert violation.found == "outraloja.com.br"
    assert violation.message == "remove the link outraloja.com.br"
