"""Rebuild ``sample_items.json`` so every answer belongs to its question (run from the repo root).

    python data/moderation/build_sample.py            # rewrites data/moderation/sample_items.json

Each record keeps its id, locale, intent, category, product context, label and metadata; its
question is written for its intent from its own product context, and its answer answers that
question. An answer labelled correct states what the context says (a few give the store's support
link that the record's metadata provides, which the policy allows). An answer labelled incorrect
has one fault, and its ``feedback`` is the merchant's correction: a wrong value, an answer about
something else, a vague answer, the wrong language, or a phone number / foreign link / invented
warranty that the store policy forbids. Deterministic (``random.Random(22)``).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILE = HERE / "sample_items.json"

NAMES = {
    "pt": {
        "MATERIAL": "o material", "COR": "a cor", "TENSAO": "a tensão", "ALTURA": "a altura",
        "TIPO": "o tipo", "POSICAO": "a posição", "INTERFACE": "a interface",
        "LEITURA": "a velocidade de leitura", "FORMATO": "o formato", "POTENCIA": "a potência",
        "ACABAMENTO": "o acabamento", "CONEXAO": "a conexão", "PILHA": "a pilha",
        "DPI": "a resolução em DPI", "CAPACIDADE": "a capacidade", "TAMANHOS": "os tamanhos",
        "MANDRIL": "o mandril", "LARGURA": "a largura", "SOQUETE": "o soquete",
        "MEDIDAS": "as medidas", "ALIMENTACAO": "a alimentação", "GARANTIA": "a garantia",
        "INDUCAO": "a compatibilidade com indução", "ITENS": "os itens inclusos",
    },
    "es": {
        "MATERIAL": "el material", "COR": "el color", "TENSAO": "el voltaje", "ALTURA": "la altura",
        "TIPO": "el tipo", "POSICAO": "la posición", "INTERFACE": "la interfaz",
        "LEITURA": "la velocidad de lectura", "FORMATO": "el formato", "POTENCIA": "la potencia",
        "ACABAMENTO": "el acabado", "CONEXAO": "la conexión", "PILHA": "la pila",
        "DPI": "la resolución en DPI", "CAPACIDADE": "la capacidad", "TAMANHOS": "las medidas",
        "MANDRIL": "el mandril", "LARGURA": "el ancho", "SOQUETE": "el casquillo",
        "MEDIDAS": "las medidas", "ALIMENTACAO": "la alimentación", "GARANTIA": "la garantía",
        "INDUCAO": "la compatibilidad con inducción", "ITENS": "los ítems incluidos",
    },
}  # fmt: skip
GROUP = {
    "Compatibilidade": "compat", "Compatibilidad": "compat",
    "Especificação de Produto": "spec", "Especificación de Producto": "spec",
    "Itens Inclusos": "items", "Ítems Incluidos": "items",
    "Disponibilidade": "stock", "Disponibilidad": "stock",
    "Frete": "shipping", "Envío": "shipping", "Garantia": "warranty", "Garantía": "warranty",
    "Problema": "problem", "Outros": "other", "Otros": "other",
}  # fmt: skip
OTHER_COLOURS = ["Azul", "Vermelho", "Verde", "Rosa"]
CITIES = {"pt": ["Curitiba", "Recife", "Belo Horizonte"], "es": ["Monterrey", "Bogotá", "Lima"]}
SKIP = {"title", "BRAND", "DESCRIPTION", "COMPATIBILIDADE", "GARANTIA", "ITENS"}


def wrap(locale: str, brand: str, core: str) -> str:
    if locale == "es":
        return f"Hola, gracias por contactarnos. {core} Saludos de {brand}."
    return f"Olá, obrigado pelo contato! {core} Atenciosamente, equipe {brand}."


def spec_attr(ctx: dict[str, Any], rng: random.Random) -> str | None:
    keys = [k for k in ctx if k not in SKIP and k in NAMES["pt"]]
    return rng.choice(keys) if keys else None


def first_model(compat: str) -> tuple[str, str]:
    entry = compat.split(",")[0].strip()
    m = re.match(r"(.+?)\s+((?:19|20)\d\d)-((?:19|20)\d\d)$", entry)
    if not m:
        return entry, entry
    year = (int(m.group(2)) + int(m.group(3))) // 2
    return f"{m.group(1)} {year}", entry


def question_and_answer(
    r: dict[str, Any], rng: random.Random
) -> tuple[str, str, str, str | None]:
    """(question, correct core answer, what a correction names, the attribute asked about)."""
    loc, ctx, group = r["locale"], r["context"], GROUP[r["intent"]["name"]]
    es = loc == "es"
    names = NAMES[loc]
    if group == "compat" and "COMPATIBILIDADE" in ctx:
        car, entry = first_model(ctx["COMPATIBILIDADE"])
        q = f"¿Sirve para mi {car}?" if es else f"Serve no meu {car}?"
        a = (f"Sí, es compatible con {entry}, según la descripción." if es
             else f"Sim, é compatível com {entry}, conforme a descrição do anúncio.")  # fmt: skip
        return q, a, (f"compatible con {entry}" if es else f"compatível com {entry}"), (
            "COMPATIBILIDADE"
        )
    if group in ("compat", "spec", "other"):
        usable = [k for k in ("TENSAO", "CONEXAO", "INTERFACE", "SOQUETE", "MANDRIL") if k in ctx]
        if group == "compat" and not usable:
            group = "spec"  # nothing to be compatible with: ask what the listing says
        attr = rng.choice(usable) if group == "compat" else spec_attr(ctx, rng)
        if attr is None:
            q = "¿Cuál es la marca?" if es else "Qual é a marca?"
            return q, (f"La marca es {ctx['BRAND']}." if es else f"A marca é {ctx['BRAND']}."), (
                f"marca {ctx['BRAND']}"
            ), "BRAND"
        name = names[attr]
        plural = name.split(" ", 1)[0] in ("os", "as", "los", "las")
        verb = ("son" if plural else "es") if es else ("são" if plural else "é")
        q = f"¿Cuál{'es' if plural else ''} {verb} {name}?" if es else f"Qua{'is' if plural else 'l'} {verb} {name}?"
        if group == "compat":
            q = (f"¿Funciona con {ctx[attr]}?" if es else f"Funciona com {ctx[attr]}?")
            a = (f"Sí, {name} {verb} {ctx[attr]}, según la descripción." if es
                 else f"Sim, {name} {verb} {ctx[attr]}, conforme a descrição do anúncio.")  # fmt: skip
        else:
            a = (f"{name.capitalize()} {verb} {ctx[attr]}, según la descripción." if es
                 else f"{name.capitalize()} {verb} {ctx[attr]}, conforme a descrição do anúncio.")  # fmt: skip
        return q, a, f"{name.split(' ', 1)[1]} {ctx[attr]}", attr
    if group == "items":
        what = ctx.get("ITENS") or ctx.get("PILHA") or f"1 {ctx['title']}"
        q = "¿Qué incluye la caja?" if es else "O que vem na caixa?"
        a = (f"La caja incluye: {what}, según la descripción." if es
             else f"Vem na caixa: {what}, conforme a descrição do anúncio.")  # fmt: skip
        return q, a, (f"ítems {what}" if es else f"itens {what}"), "ITENS"
    if group == "stock":
        if "COR" in ctx:
            other = next(c for c in OTHER_COLOURS if c != ctx["COR"])
            q = f"¿Lo tienen en color {other}?" if es else f"Vocês têm na cor {other}?"
            a = (f"Por ahora solo lo tenemos en color {ctx['COR']}." if es
                 else f"No momento temos apenas na cor {ctx['COR']}.")  # fmt: skip
            return q, a, (f"color {ctx['COR']}" if es else f"cor {ctx['COR']}"), "COR"
        q = "¿Tienen stock para envío inmediato?" if es else "Tem disponível para envio imediato?"
        a = ("Sí, tenemos stock y el envío es inmediato." if es
             else "Sim, temos em estoque, com envio imediato.")  # fmt: skip
        return q, a, ("disponible en stock" if es else "disponível em estoque"), None
    if group == "shipping":
        city = rng.choice(CITIES[loc])
        q = f"¿Cuánto tarda el envío a {city}?" if es else f"Quanto tempo demora a entrega para {city}?"
        a = ("El plazo y el costo aparecen en el anuncio al ingresar su código postal." if es
             else "O prazo e o valor aparecem no anúncio ao informar o seu CEP.")  # fmt: skip
        return q, a, ("el plazo que indica el anuncio con el código postal" if es
                      else "o prazo informado no anúncio pelo CEP"), None  # fmt: skip
    if group == "warranty":
        q = "¿Cuál es la garantía?" if es else "Qual é a garantia?"
        if "GARANTIA" in ctx:
            a = (f"La garantía es de {ctx['GARANTIA']}." if es
                 else f"A garantia é de {ctx['GARANTIA']}.")  # fmt: skip
            return q, a, (f"garantía {ctx['GARANTIA']}" if es else f"garantia {ctx['GARANTIA']}"), (
                "GARANTIA"
            )
        a = ("Tiene la garantía legal contra defectos de fábrica." if es
             else "Tem a garantia legal contra defeitos de fabricação.")  # fmt: skip
        return q, a, ("la garantía legal" if es else "a garantia legal"), None
    q = "Me llegó con falla, ¿qué hago?" if es else "Chegou com defeito, o que eu faço?"
    a = ("Lo sentimos. Abra una solicitud de cambio en Mis compras y lo atendemos enseguida." if es
         else "Sentimos muito! Abra uma solicitação de troca em Minhas Compras que atendemos em "
         "seguida.")  # fmt: skip
    return q, a, ("abrir el cambio en Mis compras" if es
                  else "abrir a troca em Minhas Compras"), None  # fmt: skip


FAULTS = ["wrong_value", "off_topic", "vague", "wrong_language", "phone", "link", "warranty"]


def incorrect(
    r: dict[str, Any], core: str, attr: str | None, rng: random.Random, fault: str
) -> str:
    loc, ctx = r["locale"], r["context"]
    es = loc == "es"
    if fault == "wrong_value" and attr and attr in ctx and attr != "BRAND":
        wrong = {"COMPATIBILIDADE": "não"}.get(attr)
        if wrong:
            return ("No, no es compatible con ese modelo." if es
                    else "Não, não é compatível com esse modelo.")  # fmt: skip
        value = str(ctx[attr])
        digits = re.search(r"\d+", value)
        changed = (value.replace(digits.group(0), str(int(digits.group(0)) * 2), 1)
                   if digits else ("Preto" if value != "Preto" else "Branco"))  # fmt: skip
        return core.replace(value, changed)
    if fault in ("wrong_value", "off_topic"):
        others = [k for k in ctx if k not in SKIP and k != attr and k in NAMES[loc]]
        if others:
            k = rng.choice(others)
            name = NAMES[loc][k]
            return (f"{name.capitalize()} es {ctx[k]}, según la descripción." if es
                    else f"{name.capitalize()} é {ctx[k]}, conforme a descrição do anúncio.")  # fmt: skip
        fault = "vague"
    if fault == "vague":
        return ("Depende, consulte la descripción del anuncio." if es
                else "Depende, consulte a descrição do anúncio.")  # fmt: skip
    if fault == "wrong_language":
        return ("Sim, confira as informações no anúncio, obrigado." if es
                else "Sí, revise la información del anuncio, gracias.")  # fmt: skip
    if fault == "phone":
        return core + (" Dudas: WhatsApp (11) 98765-4321." if es
                       else " Dúvidas? Chame no WhatsApp (11) 98765-4321.")  # fmt: skip
    if fault == "link":
        slug = re.sub(r"[^a-z]", "", ctx["BRAND"].lower())
        return core + (f" Más ofertas en www.ofertas-{slug}.com." if es
                       else f" Mais ofertas em www.ofertas-{slug}.com.br.")  # fmt: skip
    return core + (" ¡Y tiene garantía de por vida!" if es else " E tem garantia vitalícia!")


def main() -> None:
    rng = random.Random(22)
    records = json.loads(FILE.read_text(encoding="utf-8"))
    fault_cycle = 0
    support = 0
    for r in records:
        q, core, correction, attr = question_and_answer(r, rng)
        brand = r["context"]["BRAND"]
        r["metadata"] = [m for m in r["metadata"] if "support_url" not in m]
        if r["correct"]:
            text = core
            if support < 8 and GROUP[r["intent"]["name"]] in ("problem", "warranty"):
                # The store's metadata gives a support page; the answer may (and does) cite it.
                url = f"https://www.loja-exemplo.com.br/suporte/{r['id']}"
                r["metadata"].append({"support_url": url})
                more = "El paso a paso está en" if r["locale"] == "es" else "O passo a passo está em"
                text = f"{core} {more} {url}"
                support += 1
            r["feedback"] = None
        else:
            fault = FAULTS[fault_cycle % len(FAULTS)]
            fault_cycle += 1
            text = incorrect(r, core, attr, rng, fault)
            why = {
                "phone": ("no se informan teléfonos; ", "não se informa telefone; "),
                "link": ("no se envían enlaces externos; ", "não se enviam links externos; "),
                "warranty": ("el anuncio no ofrece esa garantía; ", "o anúncio não oferece essa garantia; "),
                "wrong_language": ("la respuesta debe estar en español; ", "a resposta deve ser em português; "),
            }.get(fault, ("", ""))  # fmt: skip
            r["feedback"] = (f"Respuesta incorrecta: {why[0]}lo correcto es {correction}."
                             if r["locale"] == "es"
                             else f"Resposta incorreta: {why[1]}o correto é {correction}.")  # fmt: skip
        r["question"] = q
        r["answer"] = wrap(r["locale"], brand, text)
        for m in r["metadata"]:
            if "inference" in m:
                m["inference"] = f"<answer>{text}</answer>"
    FILE.write_text(json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
