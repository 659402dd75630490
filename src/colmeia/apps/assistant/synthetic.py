"""A synthetic case registry of a court of accounts, for the demo, tests and benchmarks.

Every name, number and event is invented (seeded, reproducible): rapporteurs, municipalities
and companies are drawn from lists of common Brazilian name parts, never from real people.
Each process gets a plausible life: filed at a technical unit, instructed, sent to the
prosecutor's office (MPC), to the rapporteur, judged, maybe appealed or archived; its current
location and status are those of its last movement.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from colmeia.apps.assistant.ids import CaseId
from colmeia.apps.assistant.registry_records import (
    CaseDocument,
    Expediente,
    Movement,
    Party,
    Process,
    RegistryBatch,
)

__all__ = ["SyntheticRegistry", "generate_registry"]

_FIRST = (
    "Ana",
    "Bruno",
    "Carla",
    "Daniel",
    "Eduarda",
    "Felipe",
    "Gabriela",
    "Henrique",
    "Isabela",
    "João",
    "Larissa",
    "Marcos",
    "Natália",
    "Otávio",
    "Paula",
    "Rafael",
    "Sandra",
    "Tiago",
    "Vanessa",
    "Wagner",
    "Yara",
    "Renato",
    "Lúcia",
    "Sérgio",
    "Helena",
    "Márcio",
    "Cecília",
)
_LAST = (
    "Almeida",
    "Barros",
    "Cardoso",
    "Duarte",
    "Esteves",
    "Ferraz",
    "Gomes",
    "Henriques",
    "Leite",
    "Macedo",
    "Nogueira",
    "Oliveira",
    "Pacheco",
    "Queiroz",
    "Rocha",
    "Siqueira",
    "Teixeira",
    "Vasconcelos",
    "Xavier",
    "Monteiro",
    "Carvalho",
    "Bezerra",
    "Amaral",
)
_TOWNS = (
    "Águas Claras do Sul",
    "Boa Esperança do Norte",
    "Campo Alegre da Serra",
    "Dores do Rio Verde",
    "Esperança Nova",
    "Fazenda Velha",
    "Guaraciaba do Oeste",
    "Itapuã da Mata",
    "Jardim do Vale",
    "Lagoa Seca Alta",
    "Monte Azul Paulista",
    "Nova Aurora",
    "Ouro Branco do Leste",
    "Porto Belo Velho",
    "Quatro Pontes",
    "Riacho Fundo",
    "Santa Rita do Ribeirão",
    "São Bento do Planalto",
    "Três Barras",
    "Vila Rica do Sertão",
)
_COMPANY = (
    "Construtora",
    "Engenharia",
    "Serviços Médicos",
    "Transportes",
    "Tecnologia",
    "Alimentos",
    "Consultoria",
    "Saneamento",
    "Obras e Pavimentação",
    "Limpeza Urbana",
)
_RAPPORTEURS = tuple(
    f"Cons. {f} {s}"
    for f, s in (
        ("Helena", "Barros"),
        ("Otávio", "Ramos"),
        ("Marta", "Quintela"),
        ("Paulo", "Arantes"),
        ("Beatriz", "Lacerda"),
        ("Rodrigo", "Sampaio"),
        ("Clarice", "Fontes"),
    )
)
_UNITS = (
    "Secretaria de Controle Externo de Educação (SecexEducação)",
    "Secretaria de Controle Externo de Saúde (SecexSaúde)",
    "Secretaria de Controle Externo de Infraestrutura (SecexInfra)",
    "Secretaria de Controle Externo de Contas Municipais (SecexMunicípios)",
    "Secretaria de Controle Externo de Aquisições (SecexAquisições)",
)
_MPC = "Ministério Público de Contas (MPC)"
_SESSIONS = "Secretaria das Sessões"
_APPEALS = "Secretaria de Recursos (Serur)"
_ARCHIVE = "Serviço de Arquivo"
_PROTOCOL = "Protocolo Geral"
_CLASSES: dict[str, tuple[str, ...]] = {
    "Tomada de Contas Especial": ("Dano ao erário", "Omissão no dever de prestar contas"),
    "Prestação de Contas": ("Contas anuais de prefeito", "Contas de gestão", "Convênio"),
    "Representação": ("Licitação", "Contrato administrativo", "Pessoal"),
    "Denúncia": ("Licitação", "Nepotismo", "Acumulação de cargos"),
    "Auditoria": ("Conformidade", "Operacional"),
    "Consulta": ("Interpretação de norma",),
    "Recurso de Reconsideração": ("Acórdão condenatório",),
}
_SUBJECTS = (
    "irregularidades na execução do convênio de merenda escolar",
    "sobrepreço na pavimentação de vias urbanas",
    "ausência de prestação de contas de recursos do transporte escolar",
    "contratação direta sem licitação de serviços de limpeza urbana",
    "acúmulo irregular de cargos públicos na área da saúde",
    "superfaturamento na aquisição de medicamentos",
    "atraso na conclusão de unidade básica de saúde",
    "pagamentos sem cobertura contratual a empresa de transporte",
    "restrição à competitividade em pregão eletrônico de tecnologia",
    "contas anuais do exercício com déficit orçamentário",
)
_EXP_TYPES = (
    ("Ofício", "Resposta a diligência"),
    ("Requerimento", "Pedido de vista dos autos"),
    ("Requerimento", "Pedido de certidão"),
    ("Denúncia", "Comunicação de irregularidade"),
    ("Memorando", "Encaminhamento de documentos"),
    ("Petição", "Juntada de defesa"),
)
_DOC_KINDS = (
    ("Instrução técnica", 12),
    ("Parecer do MPC", 6),
    ("Voto do relator", 9),
    ("Acórdão", 4),
    ("Ofício de citação", 2),
    ("Defesa", 18),
    ("Relatório de auditoria", 30),
    ("Despacho", 1),
)


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)} {rng.choice(_LAST)}"


def _company(rng: random.Random) -> str:
    return f"{rng.choice(_COMPANY)} {rng.choice(_LAST)} Ltda."


def _town(rng: random.Random) -> str:
    return f"Prefeitura Municipal de {rng.choice(_TOWNS)}"


@dataclass(slots=True)
class _Step:
    unit: str
    description: str
    status: str


def _life(rng: random.Random, unit: str, case_class: str) -> list[_Step]:
    """A plausible sequence of movements; it may stop at any stage (the case is still open)."""
    steps = [
        _Step(_PROTOCOL, "Autuação do processo", "Autuado"),
        _Step(unit, "Encaminhado para instrução técnica", "Em instrução"),
    ]
    if rng.random() < 0.5:
        steps.append(_Step(unit, "Diligência enviada ao responsável", "Aguardando resposta"))
        steps.append(_Step(unit, "Resposta à diligência juntada aos autos", "Em instrução"))
    if case_class in ("Tomada de Contas Especial", "Denúncia", "Representação"):
        steps.append(_Step(unit, "Citação dos responsáveis", "Aguardando defesa"))
    steps.append(
        _Step(_MPC, "Encaminhado para parecer do Ministério Público", "Aguardando parecer")
    )
    steps.append(_Step("Gabinete do Relator", "Concluso ao relator", "Concluso ao relator"))
    steps.append(_Step(_SESSIONS, "Incluído em pauta de julgamento", "Em pauta"))
    steps.append(_Step(_SESSIONS, "Julgado em sessão plenária", "Julgado"))
    if rng.random() < 0.25:
        steps.append(_Step(_APPEALS, "Recurso interposto pelo responsável", "Em recurso"))
    else:
        steps.append(_Step(_ARCHIVE, "Arquivamento após trânsito em julgado", "Arquivado"))
    stop = rng.randint(2, len(steps))
    return steps[:stop]


class SyntheticRegistry:
    """Generates cases; :meth:`batch` gives them ready to write to a registry."""

    def __init__(self, seed: int = 7, as_of: dt.date | None = None) -> None:
        self.seed = seed
        self.as_of = as_of or dt.date(2026, 11, 1)

    def batch(self, processes: int = 5000, expedientes: int = 3000) -> RegistryBatch:
        rng = random.Random(self.seed)
        out = RegistryBatch()
        numbers_by_year: dict[int, int] = {}
        first_year = self.as_of.year - 6
        for _ in range(processes):
            year = rng.randint(first_year, self.as_of.year)
            numbers_by_year[year] = numbers_by_year.get(year, 0) + rng.randint(1, 40)
            case = CaseId("process", numbers_by_year[year], year)
            self._process(rng, case, out)
        exp_by_year: dict[int, int] = {}
        process_numbers = [p.number for p in out.processes]
        for _ in range(expedientes):
            year = rng.randint(first_year, self.as_of.year)
            exp_by_year[year] = exp_by_year.get(year, 0) + rng.randint(1, 9)
            case = CaseId("expediente", exp_by_year[year], year)
            self._expediente(rng, case, process_numbers, out)
        return out

    def _day(self, rng: random.Random, year: int) -> dt.date:
        start = dt.date(year, 1, 2)
        end = min(dt.date(year, 12, 20), self.as_of - dt.timedelta(days=1))
        span = max((end - start).days, 1)
        return start + dt.timedelta(days=rng.randint(0, span))

    def _process(self, rng: random.Random, case: CaseId, out: RegistryBatch) -> None:
        case_class = rng.choice(tuple(_CLASSES))
        subclass = rng.choice(_CLASSES[case_class])
        unit = rng.choice(_UNITS)
        filed = self._day(rng, case.year)
        steps = _life(rng, unit, case_class)
        day = filed
        for seq, step in enumerate(steps, start=1):
            if seq > 1:
                day = min(day + dt.timedelta(days=rng.randint(5, 120)), self.as_of)
            previous = steps[seq - 2].unit if seq > 1 else "—"
            out.movements.append(
                (
                    case.canonical,
                    Movement(
                        seq, day.isoformat(), previous, step.unit, step.description, step.status
                    ),
                )
            )
            if step.description.startswith(("Julgado", "Encaminhado para parecer", "Concluso")):
                kind, pages = rng.choice(_DOC_KINDS)
                out.documents.append(
                    (
                        case.canonical,
                        CaseDocument(
                            seq, kind, f"{kind} — {case.canonical}", day.isoformat(), pages
                        ),
                    )
                )
        last = steps[-1]
        town = _town(rng)
        out.processes.append(
            Process(
                number=case.canonical,
                filed_on=filed.isoformat(),
                unit=unit,
                case_class=case_class,
                subclass=subclass,
                rapporteur=rng.choice(_RAPPORTEURS),
                status=last.status,
                location=last.unit,
                subject=f"{rng.choice(_SUBJECTS).capitalize()} — {town}",
            )
        )
        out.parties.append((case.canonical, Party(town, "Interessado")))
        for _ in range(rng.randint(1, 3)):
            out.parties.append((case.canonical, Party(_person(rng), "Responsável")))
        if rng.random() < 0.4:
            out.parties.append((case.canonical, Party(_company(rng), "Responsável")))

    def _expediente(
        self, rng: random.Random, case: CaseId, processes: list[str], out: RegistryBatch
    ) -> None:
        kind, subject = rng.choice(_EXP_TYPES)
        opened = self._day(rng, case.year)
        linked = rng.choice(processes) if processes and rng.random() < 0.6 else ""
        status = rng.choice(
            ("Recebido", "Em análise", "Juntado ao processo", "Respondido", "Arquivado")
        )
        location = (
            _PROTOCOL if status == "Recebido" else rng.choice((*_UNITS, "Gabinete do Relator"))
        )
        out.expedientes.append(
            Expediente(
                number=case.canonical,
                opened_on=opened.isoformat(),
                type=kind,
                origin_unit=rng.choice((_town(rng), _company(rng), _person(rng))),
                subject=subject + (f" (processo {linked})" if linked else ""),
                status=status,
                location=location,
                process=linked,
            )
        )
        out.movements.append(
            (
                case.canonical,
                Movement(1, opened.isoformat(), "—", _PROTOCOL, "Expediente recebido", "Recebido"),
            )
        )
        if location != _PROTOCOL:
            moved = min(opened + dt.timedelta(days=rng.randint(1, 60)), self.as_of)
            out.movements.append(
                (
                    case.canonical,
                    Movement(
                        2,
                        moved.isoformat(),
                        _PROTOCOL,
                        location,
                        "Encaminhado para análise",
                        status,
                    ),
                )
            )


def generate_registry(
    registry: object,
    *,
    processes: int = 5000,
    expedientes: int = 3000,
    seed: int = 7,
    as_of: dt.date | None = None,
) -> RegistryBatch:
    """Fill a :class:`~colmeia.apps.assistant.registry.SQLiteCaseRegistry` with synthetic cases."""
    from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry

    if not isinstance(registry, SQLiteCaseRegistry):
        raise TypeError("synthetic cases are written to a SQLiteCaseRegistry")
    batch = SyntheticRegistry(seed, as_of).batch(processes, expedientes)
    registry.write(batch)
    return batch
