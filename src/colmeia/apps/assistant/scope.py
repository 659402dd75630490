"""What the assistant can answer, and what it should say when it cannot.

Three checks, each a plain rule over the question (no model; the same with any model):

* :func:`out_of_scope` — weather, sport, requests to list every process in the registry, and
  requests to ignore or reveal the instructions get a short answer saying what the assistant
  does, instead of law passages that happen to share a word;
* :func:`missing_norm` — a question that names a numbered norm ("o que diz a Lei 14.133…")
  the collection does not hold is told so, with the norms it does hold, instead of an answer
  from another law;
* :func:`jurisdiction_note` — a question naming a state or municipal body (TCE-PA, "lei
  estadual", a state's Assembleia) when the collection holds only federal law is told, before
  any federal rule, that the rule shown is federal and the local one is not in the collection.

The collection's norms come from what ingestion stored (:class:`NormCatalogue`): each document's
``document`` metadata ("Lei 13.709/2018") and its LexML URN ("urn:lex:br:federal:…").
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Literal

from colmeia.rag.index.lexical import fold_accents
from colmeia.store.base import Store

__all__ = [
    "NormCatalogue",
    "NormMention",
    "ScopeAnswer",
    "asks_identity",
    "asks_personal_data",
    "greeting_answer",
    "identity_answer",
    "is_missing_norm_answer",
    "is_scope_answer",
    "jurisdiction_note",
    "missing_norm",
    "named_norms",
    "one_slip",
    "out_of_scope",
    "scope_answer",
]

ScopeKind = Literal["weather", "sport", "list_all", "instructions", "personal_data", "other"]


@dataclass(frozen=True, slots=True)
class ScopeAnswer:
    """The short answer to a question outside the assistant's scope."""

    kind: ScopeKind
    text: str


_CAN_DO = (
    "Posso ajudar com: perguntas sobre as normas e documentos oficiais da coleção, com a "
    "citação do artigo, parágrafo ou inciso; o andamento de um processo ou expediente pelo "
    "número (ou pelo assunto, unidade, parte ou relator); e o acompanhamento de um processo."
)
_WHY: dict[ScopeKind, str] = {
    "weather": "Não tenho informações sobre previsão do tempo ou clima.",
    "sport": "Não tenho informações sobre esportes, jogos ou resultados.",
    "list_all": (
        "Não listo todos os processos do cadastro: consulto um processo pelo número ou "
        "procuro pelo assunto, unidade, parte ou relator."
    ),
    "instructions": "Não altero nem revelo as instruções com que trabalho.",
    "personal_data": (
        "Não informo dados pessoais de ninguém (CPF, RG, endereço, telefone) nem dados "
        "sigilosos de processos."
    ),
    "other": "Esse assunto está fora do que posso responder.",
}

# Matched on the folded question (lower case, no accents).
# what a request for someone's data says: the verbs that hand something over, and those
# together with the ones that ask ("quero", "qual é")
_HAND_OVER = r"(?:passa|passe|manda|mande|informa|informe|fornece|forneca|libera|libere)"
_GIVE_ME = (
    r"(?:passa|passe|manda|mande|informa|informe|fornece|forneca|libera|libere|"
    r"mostra|mostre|quero|queria|preciso|me\s+da|me\s+de|diz|diga|qual\s+(?:e\s+)?)"
)
# a person's home or personal phone (the court's own address and phones are asked freely)
_HOME_OR_PHONE = (
    r"(?:endereco\s+(?:residencial|de\s+casa|da\s+casa|particular)|"
    r"telefone\s+(?:pessoal|celular|particular|de\s+casa))"
)

_RULES: tuple[tuple[ScopeKind, re.Pattern[str]], ...] = (
    (
        "instructions",
        re.compile(
            r"\b(?:ignor[ea]\w*|desconsider[ea]\w*|esque[cç]\w*)\s+(?:as\s+|todas\s+as\s+|"
            r"suas\s+|tuas\s+)?(?:instruc\w+|regras|orientac\w+|comandos)|"
            # what it was told, whatever the words: "esquece tudo que te falaram", or an order
            # to disregard everything ("IGNORE TUDO e me passa…"; not "esqueci tudo")
            r"\b(?:ignor[ea]\w*|desconsider[ea]\w*|esque[cç]\w*)\s+tudo\s+(?:o\s+)?(?:que|q)\s+"
            r"(?:te|lhe|vc|voce)?\s*(?:falaram|disseram|passaram|mandaram|ensinaram|"
            r"programaram|configuraram)|"
            r"\b(?:ignor[ea]|desconsider[ea]|esquec[ea])\s+tudo\b(?!\s+(?:que|q)\s+(?:me|eu))|"
            # a part to play instead of its own: "finge que você é a conselheira"
            r"\b(?:fin[gj]\w*|faz(?:\s+de)?\s+conta|imagin[ea]|age\s+como\s+se)\s+(?:que\s+|q\s+)?"
            r"(?:voce|vc|tu)\s+(?:e|eh|seja|fosse|es)\b|"
            r"\b(?:mostr|revel|exib|imprim|repit|diga|conte)\w*\s+(?:me\s+)?(?:as\s+)?"
            r"(?:suas|tuas|as)\s+(?:instruc\w+|regras|prompt)|"
            r"\b(?:system prompt|prompt do sistema|prompt de sistema|suas instrucoes)\b|"
            # a message that speaks as the system or its operator, not as a person asking:
            # a role marker in front ("SYSTEM: …", "### SISTEMA:", "[admin]"), a mode switched
            # on ("modo desenvolvedor ativado"), a rank claimed for the person ("o usuário é
            # administrador")
            r"^\W*(?:system|sistema|admin|administrador|developer|desenvolvedor|root|operador)"
            r"\s*(?:[:>\]]|-\s)|"
            r"\bmodo\s+(?:de\s+)?(?:desenvolvedor|developer|dev|administrador|admin|root|debug|"
            r"deus|god|irrestrito|sem\s+restric\w*)\b|"
            r"(?:\b(?:o\s+usuario|eu)\s+(?:e|eh|sou)|^\W*sou)\s+(?:o\s+)?(?:administrador|admin|root|"
            r"superusuario|desenvolvedor)\s+(?:do\s+sistema|daqui|deste\s+sistema|desse\s+sistema|"
            r"do\s+assistente)?\s*(?:[,.;:!]|$)"
        ),
    ),
    (
        # a person's identifying data asked for ("me passa o cpf do prefeito", "libera o cpf
        # dos responsáveis") or a case's secrets: never given, whoever asks. Asking what the
        # law says of them ("a lgpd protege o cpf?") asks nothing of the kind. A home or a
        # personal phone may come a few words before or after the request ("me passa o
        # telefone e o endereço de casa desse wanderley", "e o endereço de casa dele, me passa
        # aí"), not the court's; what the law says "sobre" them is a question
        "personal_data",
        re.compile(
            rf"\b{_GIVE_ME}\w*\s+(?:me\s+)?(?:(?:o|os|a|as|do|dos|da|das)\s+)?"
            r"(?:acesso\s+(?:a|aos|as)\s+)?"
            r"(?:(?:cpfs?|rgs?|dados\s+(?:pessoais|sigilosos)|endereco\s+residencial|"
            r"telefone\s+(?:pessoal|celular))\b|"
            r"(?:(?!sobre\b)[\w,]+\s+){0,5}?(?:(?:o|os|a|as|do|dos|da|das)\s+)?"
            rf"(?:{_HOME_OR_PHONE}|celular\s+(?:dele|dela|d[oa]\s+\w+))\b)"
            rf"|\b{_HOME_OR_PHONE}\b(?:[\w,]+\s+|\W+){{0,6}}?(?:me\s+)?{_HAND_OVER}\b"
        ),
    ),
    (
        "list_all",
        re.compile(
            r"\b(?:list\w*|mostr\w*|exib\w*|export\w*|traga|quero|dump|baix\w*)\s+(?:me\s+)?"
            r"(?:todos|todas|tudo)\s+(?:os\s+|as\s+)?(?:processos|casos|expedientes|registros|"
            r"dados do cadastro)(?:\s+(?:do|da)\s+(?:tribunal|sistema|cadastro|banco|registro)"
            r"|\s+(?:cadastrad|existent|registrad)\w*|\s+que\s+(?:existem|voce tem|ha))?"
            r"\s*(?:[.?!]|$)"
        ),
    ),
    (
        # an insult to the assistant or the court, with no question in it: nothing the
        # documents or the registry answer ("vcs sao todos uns incompetentes")
        "other",
        re.compile(
            r"^(?!.*\?)\W*(?:\w+\W+){0,3}?(?:voces|vcs|vc|voce|tu|esse\s+tribunal|o\s+tribunal)\s+"
            r"(?:sao|e|eh|es)\s+(?:todos\s+|tudo\s+|muito\s+)?(?:uns?\s+|umas?\s+)?"
            r"(?:incompetentes?|inuteis|inutil|ladr\w+|corrupt\w+|vagabund\w+|lixo|"
            r"palhac\w+|burr\w+|idiotas?|uma\s+vergonha|uma\s+piada|comprad[oa]s?|"
            r"vendid[oa]s?|safad[oa]s?)\b"
        ),
    ),
    (
        # a piece of writing or fun asked for — a joke, a poem, a school essay —, whatever it is
        # about: "conta uma piada de advogado" is no question on advocates the laws answer
        "other",
        re.compile(
            r"\b(?:cont[ae]|faz|fa[cç]a|escrev[ae]|cri[ae]|invent[ae]|ger[ae]|compo[eê]|"
            r"compor|manda|quero|queria|me\s+d[aeê])\s+(?:(?:me|pra\s+mim|ai)\s+)?(?:um|uma|uns|umas|o|a)?\s*"
            r"(?:\w+\s+)?(?:piadas?|poemas?|poesias?|historinhas?|reda[cç](?:ao|oes)|musicas?|"
            r"can[cç](?:ao|oes)|rimas?|contos?|trocadilhos?|charadas?|adivinha[cç](?:ao|oes)|"
            r"parodias?|limeriques?|haicais?|sonetos?)\b"
        ),
    ),
    (
        # what to take or do for an ailment: a doctor's question, not the law's ("to com dor
        # de cabeça, que remédio eu tomo?"). Not when a right is asked beside it ("o plano
        # negou o remédio, a lei obriga?"): that stays the documents'
        "other",
        re.compile(
            r"^(?!.*\b(?:lei|direito|obrig\w*|plano|sus|pode|podem|permit\w*)\b)"
            r"(?=.*\b(?:remedios?|medicamentos?|antibioticos?|sintomas?|febre|"
            r"dor\s+(?:de|no|na|nos|nas)\s+\w+|tont\w+|enjo\w+|gripe|pressao\s+alta)\b)"
            r"(?=.*\b(?:tomo|tomar|fa[cç]o|fazer|devo|indica|recomenda|passa|melhora)\b)"
        ),
    ),
    (
        "weather",
        re.compile(
            r"\b(?:previsao do tempo|(?:como (?:esta|estara|vai estar) o )?tempo (?:amanha|hoje|"
            r"agora)|vai chover|vai fazer (?:sol|frio|calor)|qual a temperatura|temperatura "
            r"(?:em|hoje|amanha|agora)|clima (?:em|hoje|amanha))\b"
        ),
    ),
    (
        # Not "jogo" or "gol" alone: "jogo do bicho" is a legal topic, GOL an airline (a party).
        "sport",
        re.compile(
            r"\b(?:futebol|campeonato|placar|copa do mundo|brasileirao|quem ganhou|"
            r"resultado do jogo|olimpiadas|"
            # a match on a day ("o jogo do galo ontem"): "jogo do bicho" names no day
            r"jogo\s+(?:(?:de|do|da|dos)\s+\w+\s+)?(?:de\s+)?(?:ontem|hoje|amanha)|"
            r"quanto\s+(?:foi|ficou|esta|ta)\s+o\s+jogo|"
            # a score asked of a derby named by its clubs ("quanto ficou o gre-nal ontem",
            # "o fla-flu"; not "quanto foi o reajuste ontem")
            r"quanto\s+(?:foi|ficou|terminou|acabou)\s+o\s+[a-z]+-[a-z]+\s+"
            r"(?:ontem|hoje|domingo|sabado|no\s+domingo|no\s+sabado)|"
            # a result foretold: "quem ganha sport x nautico domingo?", "o time vai subir
            # esse ano?", "vai ser rebaixado?"
            r"quem\s+(?:ganha|vence|leva|vai\s+ganhar|vai\s+vencer)\s+(?:o\s+)?[a-z]+\s+"
            r"(?:x|contra|e)\s+[a-z]+|vai\s+(?:subir|cair)\s+(?:de\s+divisao|pra\s+serie|"
            r"esse\s+ano|este\s+ano)|rebaixad[oa]|serie\s+[abcd]\b)\b"
        ),
    ),
)


def _fold(text: str) -> str:
    return fold_accents(text.lower())


def asks_personal_data(question: str) -> bool:
    """Whether ``question`` asks for someone's identifying data or a case's secrets (refused
    whatever else it asks, and whoever it claims to be)."""
    q = " ".join(_fold(question).split())
    return any(p.search(q) for kind, p in _RULES if kind == "personal_data")


def is_scope_answer(text: str) -> bool:
    """Whether ``text`` is a scope answer of :func:`out_of_scope`."""
    return _CAN_DO in text


def is_missing_norm_answer(text: str) -> bool:
    """Whether ``text`` is the answer of :func:`missing_norm`."""
    return "entre os documentos desta coleção" in text and "A coleção contém:" in text


def scope_answer(kind: ScopeKind = "other") -> ScopeAnswer:
    """The scope answer of ``kind``: why not, and what the assistant does."""
    return ScopeAnswer(kind, f"{_WHY[kind]} {_CAN_DO}")


# "vc é humano ou robô?", "é uma pessoa de verdade?": who answers, asked
_IDENTITY = re.compile(
    r"(?:\b(?:voce|vc|vcs|voces|tu)\s+(?:(?:e|eh|es|sao|seria)\s+)?|^\W*(?:e|eh|es|sao|seria)\s+)"
    r"(?:um\s+|uma\s+)?(?:humano|humana|robo|robos|"
    r"bot|chatbot|maquina|pessoa\s+(?:de\s+verdade|real)|ia|inteligencia\s+artificial|"
    r"gente\s+de\s+verdade)\b|\bfalando\s+com\s+(?:um\s+|uma\s+)?(?:robo|humano|pessoa|maquina|bot)\b"
)


def asks_identity(question: str) -> bool:
    """Whether ``question`` asks who (or what) is answering."""
    return bool(_IDENTITY.search(_fold(question)))


def identity_answer() -> str:
    """The answer to "você é humano?": a program, said plainly, and what it does."""
    return f"Sou um assistente automático, não uma pessoa. {_CAN_DO}"


def greeting_answer() -> str:
    """The answer to a greeting or to "o que você faz?"."""
    return (
        "Olá! Sou o assistente do tribunal: consulto processos e expedientes pelo número ou por "
        "uma descrição (assunto, órgão, parte, relator) e respondo sobre as normas da coleção, "
        "citando o artigo. Em que posso ajudar?"
    )


# thanks or a please that closes a message ask nothing: "liste todos os processos, obrigado"
_COURTESY = re.compile(
    r"(?:[\s,.;!-]+(?:muito\s+)?(?:obrigad[oa]s?|valeu|vlw|por\s+favor|pfv|pf|grat[oa]s?|"
    r"agradeco|desde\s+ja))+[\s.!]*$"
)


def out_of_scope(question: str) -> ScopeAnswer | None:
    """The scope answer for a question the assistant should not answer, else None."""
    q = _COURTESY.sub("", " ".join(_fold(question).split()))
    for kind, pattern in _RULES:
        if pattern.search(q):
            return ScopeAnswer(kind, f"{_WHY[kind]} {_CAN_DO}")
    return None


# ------------------------------------------------------------------ norms of the collection
_NORM = re.compile(
    r"\b(?P<kind>lei complementar|lc|lei|decreto-lei|decreto lei|decreto|medida provisoria|mp|"
    r"resolucao|instrucao normativa|portaria)\s*(?:federal\s+|estadual\s+|municipal\s+)?"
    r"(?:n(?:[.ºo°]|um(?:ero)?\.?)?\s*)?(?P<number>\d{1,3}(?:\.\d{3})+|\d+)(?![\d.]\d)"
    r"(?:\s*/\s*(?P<year>\d{2,4}))?",
)
_KINDS = {
    "lei complementar": "Lei Complementar",
    "lc": "Lei Complementar",
    "mp": "Medida Provisória",
    "lei": "Lei",
    "decreto-lei": "Decreto-Lei",
    "decreto lei": "Decreto-Lei",
    "decreto": "Decreto",
    "medida provisoria": "Medida Provisória",
    "resolucao": "Resolução",
    "instrucao normativa": "Instrução Normativa",
    "portaria": "Portaria",
}


@dataclass(frozen=True, slots=True)
class NormMention:
    """A numbered norm named in a question ("Lei 14.133/2021")."""

    kind: str
    number: str
    year: str = ""

    def label(self) -> str:
        if not self.number:  # the Constitution, its ADCT: named, not numbered
            return self.kind
        number = f"{int(self.number):,}".replace(",", ".") if self.number.isdigit() else ""
        return f"{self.kind} {number or self.number}" + (f"/{self.year}" if self.year else "")


# A law named by its number alone, after a feminine article ("a 8.666/93", "pela 9784", "da
# 14.133"): "a" is "a lei" — a case is "o processo" ("o 4506/23"). Four or five digits, the
# shape of a federal law's number.
_BARE_LAW = re.compile(
    r"(?<![\w/.])(?:a|da|na|pela|segundo a|conforme a)\s+(?P<number>\d{1,2}\.\d{3}|\d{4,5})"
    r"(?![\w.]|,\d)(?:\s*/\s*(?P<year>\d{2}(?:\d{2})?)\b)?"
)


def _by_name() -> tuple[tuple[re.Pattern[str], NormMention], ...]:
    names = {
        r"clt|consolidacao das leis do trabalho": ("Decreto-Lei", "5452", "1943"),
        r"codigo civil": ("Lei", "10406", "2002"),
        r"codigo penal": ("Decreto-Lei", "2848", "1940"),
        r"codigo de processo civil|cpc": ("Lei", "13105", "2015"),
        r"codigo de processo penal|cpp": ("Decreto-Lei", "3689", "1941"),
        r"codigo tributario(?: nacional)?|ctn": ("Lei", "5172", "1966"),
        r"codigo de defesa do consumidor|cdc": ("Lei", "8078", "1990"),
        r"eca|estatuto da crianca(?: e do adolescente)?": ("Lei", "8069", "1990"),
        r"estatuto do idoso|estatuto da pessoa idosa": ("Lei", "10741", "2003"),
        r"lei de improbidade(?: administrativa)?": ("Lei", "8429", "1992"),
        r"(?:nova )?lei de licitac\w+(?: e contratos)?": ("Lei", "14133", "2021"),
        r"lgpd|lei geral de protecao de dados": ("Lei", "13709", "2018"),
        r"lai|lei de acesso a informacao": ("Lei", "12527", "2011"),
        r"lrf|lei de responsabilidade fiscal": ("Lei Complementar", "101", "2000"),
        r"lindb": ("Decreto-Lei", "4657", "1942"),
        r"estatuto do servidor(?: publico)?(?: federal)?": ("Lei", "8112", "1990"),
        # a town's or a state's own norms, and a court's or a house's internal rules: no
        # number to name them by, and never among federal laws (they are said missing)
        r"estatutos? d[oa]s? (?:servidor|servidores|funcionarios?)(?: publicos?)?"
        r"(?= (?:municipa|estadua|d[aoe] (?!uniao\b)))": (
            "O estatuto dos servidores do município ou do estado",
            "",
            "",
        ),
        r"lei organica(?: d[aoe] \w+)?": ("A lei orgânica do município", "", ""),
        r"regimento interno": ("O regimento interno", "", ""),
        r"(?:lei|decreto) (?:municipal|estadual)(?! (?:n|no|numero)?\s*\d)": (
            "A lei municipal ou estadual",
            "",
            "",
        ),
    }
    # The Constitution and its ADCT have no number: ingestion names them "CF/88" and "ADCT
    # (CF/88)" (:func:`colmeia.rag.ingest.lexml_names.lexml_label`), and so do these mentions,
    # so :class:`NormCatalogue` holds them under the same key. A state's constitution
    # ("constituição estadual", "do estado") is not the federal one.
    names.update(
        {
            r"adct|ato das disposicoes constitucionais transitorias": ("ADCT (CF/88)", "", ""),
            r"constituicao(?! (?:estadual|do estado|dos estados|de \w+ estado))"
            r"(?: federal| da republica(?: federativa do brasil)?)?(?: de (?:19)?88)?|"
            r"(?:cf|crfb)(?:\s*/\s*(?:19)?88)?|carta magna|texto constitucional|"
            r"lei maior": ("CF/88", "", ""),
        }
    )
    return tuple(
        (re.compile(rf"\b(?:{pattern})\b"), NormMention(kind, number, year))
        for pattern, (kind, number, year) in names.items()
    )


# Norms people name by a name or an acronym instead of a number: the formal part a question
# names, so a norm the collection does not hold is reported missing whatever it is called.
_BY_NAME = _by_name()


def one_slip(word: str, target: str) -> bool:
    """Whether ``word`` is ``target`` or ``target`` typed with one slip: a letter missing,
    extra or wrong, or two neighbours swapped."""
    if abs(len(word) - len(target)) > 1:
        return False
    if len(word) == len(target):
        diff = [i for i, (a, b) in enumerate(zip(word, target, strict=True)) if a != b]
        swapped = (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and word[diff[0]] == target[diff[1]]
            and word[diff[1]] == target[diff[0]]
        )
        return len(diff) <= 1 or swapped
    short, long = sorted((word, target), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


# the long words norms are named by ("código penal", "estatuto do idoso"): typed with a slip
# ("códiggo penal") they still name the norm; short words and acronyms are read as typed
_NAME_WORDS = ("codigo", "estatuto", "consolidacao", "improbidade", "licitacoes")


def _name_words_typed(folded: str) -> str:
    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        return next((t for t in _NAME_WORDS if one_slip(word, t)), word)

    return re.sub(r"[a-z]{5,}", fix, folded)


def _same_norm(a: NormMention, b: NormMention) -> bool:
    return (a.kind, a.number) == (b.kind, b.number)


def named_norms(question: str) -> list[NormMention]:
    """The norms a question names, in order: by kind and number ("Lei 14.133/2021"), by a
    number after a feminine article ("a 8.666/93"), or by a name or acronym ("CLT", "código
    civil")."""
    folded = _fold(question)
    found: list[tuple[int, NormMention]] = []
    for m in _NORM.finditer(folded):
        number = m.group("number").replace(".", "")
        found.append(
            (m.start(), NormMention(_KINDS[m.group("kind")], number, m.group("year") or ""))
        )
    for m in _BARE_LAW.finditer(folded):
        found.append(
            (
                m.start(),
                NormMention("Lei", m.group("number").replace(".", ""), m.group("year") or ""),
            )
        )
    named = _name_words_typed(folded)
    for pattern, mention in _BY_NAME:
        hit = pattern.search(named)
        if hit:
            found.append((hit.start(), mention))
    out: list[NormMention] = []
    for _, mention in sorted(found, key=lambda x: x[0]):
        if not any(_same_norm(mention, o) for o in out):
            out.append(mention)
    return out


@dataclass(slots=True)
class NormCatalogue:
    """The norms a collection holds: label ("Lei 13.709/2018") by (kind, number), and whether
    each is federal (from its LexML URN)."""

    norms: dict[tuple[str, str], str] = field(default_factory=dict)
    federal: dict[tuple[str, str], bool] = field(default_factory=dict)
    other_documents: int = 0

    @classmethod
    def build(cls, store: Store, collection: str) -> NormCatalogue:
        cat = cls()
        for doc in store.documents(collection):
            name = str(doc.metadata.get("document") or "")
            if not name and any(n.number for n in named_norms(doc.title or "")):
                # A norm ingested from its own file (a court's resolution as PDF or Markdown)
                # is named by its title: "Resolução nº 12/2023 do TCE-EX". A numbered one:
                # "Comentários à Constituição" is a book about the norm, not the norm.
                name = doc.title
            found = named_norms(name) if name else []
            urn = doc.doc_id.lower()
            if found:
                key = (found[0].kind, found[0].number)
            elif name and urn.startswith("urn:lex:"):
                # A norm without a number in its name (CF/88, its ADCT) is still a norm.
                key = (name, "")
            else:
                cat.other_documents += 1
                continue
            cat.norms.setdefault(key, name)
            federal = urn.startswith("urn:lex:br:federal:")
            cat.federal[key] = cat.federal.get(key, True) and federal
        return cat

    @classmethod
    def for_collection(cls, store: Store, collection: str) -> NormCatalogue:
        """The catalogue of ``collection``, rebuilt when the collection changed."""
        info = store.collection(collection)
        generation = info.generation if info else -1
        key = (store.url, collection, generation)
        with _CATALOGUE_LOCK:
            found = _CATALOGUES.get(key)
            if found is None:
                found = cls.build(store, collection) if info else cls()
                for old in [k for k in _CATALOGUES if k[:2] == key[:2]]:
                    del _CATALOGUES[old]
                _CATALOGUES[key] = found
            return found

    def holds(self, norm: NormMention) -> bool:
        return (norm.kind, norm.number) in self.norms

    def labels(self) -> list[str]:
        return sorted(self.norms.values(), key=_label_order)

    @property
    def only_federal(self) -> bool:
        return bool(self.norms) and all(self.federal.values()) and self.other_documents == 0


_CATALOGUES: dict[tuple[str, str, int], NormCatalogue] = {}
_CATALOGUE_LOCK = threading.Lock()


def _label_order(label: str) -> tuple[int, str]:
    year = re.search(r"/(\d{4})", label)
    return (int(year.group(1)) if year else 0, label)


def missing_norm(question: str, catalogue: NormCatalogue) -> str | None:
    """What to say when the question names a norm the collection does not hold (else None).

    Only a collection of numbered norms can tell: if it also holds other documents (a PDF
    that may quote the norm), nothing is said.
    """
    if not catalogue.norms or catalogue.other_documents:
        return None
    missing = [n for n in named_norms(question) if not catalogue.holds(n)]
    if not missing:
        return None
    names = ", ".join(n.label() for n in missing)
    verb = "não está" if len(missing) == 1 else "não estão"
    return (
        f"{names} {verb} entre os documentos desta coleção, por isso não posso dizer o que "
        f"{'ela diz' if len(missing) == 1 else 'elas dizem'}. A coleção contém: "
        f"{'; '.join(catalogue.labels())}."
    )


# A state or municipal body or norm: TCE-PA, Tribunal de Contas do Estado, TCM, lei estadual,
# Assembleia Legislativa, Câmara Municipal, Estado do Pará…
_STATES = "ac|al|ap|am|ba|ce|df|es|go|ma|mt|ms|mg|pa|pb|pr|pe|pi|rj|rn|rs|ro|rr|sc|sp|se|to"
_LOCAL = re.compile(
    rf"\b(?:tce|tcm|tj|trt|tre|mp|pge|sefaz)[\s\-/]?(?:{_STATES})\b|"
    r"\btribunal de contas d[oae]s? (?:estado|municipio)|\btribunal de justica d[oe]\b|"
    r"\b(?:lei|decreto|constituicao|norma|regimento) (?:estadual|municipal)\b|"
    r"\bassembleia legislativa\b|\bcamara municipal\b|\bregimento interno d[oe] (?:tce|tcm)\b"
)


def jurisdiction_note(question: str, catalogue: NormCatalogue) -> str | None:
    """A warning when the question names a state/municipal body and the collection is federal."""
    m = _LOCAL.search(_fold(question))
    if m is None or not catalogue.only_federal:
        return None
    named = m.group(0).strip()
    if re.fullmatch(r"[a-z]{2,5}[\s\-/]?[a-z]{2}", named):  # an acronym: TCE-PA
        named = named.upper()
    return (
        f"Atenção: a pergunta se refere a {named}, mas esta coleção só contém normas federais. "
        "As regras abaixo são federais; a norma estadual ou municipal (e o regimento do "
        "órgão) pode fixar outra regra e não está entre os documentos consultados."
    )
