"""The house: lights, a thermostat, doors and an energy meter, as tools over one state object.
Each task is checked against the house's state after the run (or the number in the answer), not
against what the agent says it did."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from colmeia.agents.numbers import read_numbers
from colmeia.errors import ToolError
from colmeia.tools import ToolRegistry
from colmeia.tools.builtins.calculator import calculator_tool

ROOMS = ("sala", "quarto", "cozinha")
DOORS = ("frente", "fundos")


@dataclass
class House:
    lights: dict[str, int] = field(default_factory=lambda: {"sala": 80, "quarto": 0, "cozinha": 60})
    thermostat: float = 22.0
    room_temperature: dict[str, float] = field(
        default_factory=lambda: {"sala": 23.5, "quarto": 19.0, "cozinha": 24.0}
    )
    locked: dict[str, bool] = field(default_factory=lambda: {"frente": False, "fundos": True})
    #: kWh per day
    energy: dict[str, float] = field(
        default_factory=lambda: {"segunda": 11.2, "terça": 9.8, "quarta": 12.5}
    )


def _room(name: str) -> str:
    key = name.strip().lower()
    if key not in ROOMS:
        raise ToolError(f"no room {name!r}; rooms: {', '.join(ROOMS)}")
    return key


def house_tools(house: House) -> ToolRegistry:
    registry = ToolRegistry([calculator_tool()])

    @registry.tool
    def set_light(room: str, brightness: int) -> str:
        """Turn a room's light on at a brightness from 1 to 100, or off with 0.

        Args:
            room: sala, quarto or cozinha.
            brightness: 0 (off) to 100.
        """
        if not 0 <= brightness <= 100:
            raise ToolError("brightness goes from 0 (off) to 100")
        house.lights[_room(room)] = brightness
        return f"light in {room}: {'off' if brightness == 0 else f'{brightness}%'}"

    @registry.tool
    def get_temperature(room: str) -> str:
        """The temperature a room's sensor reads now, in °C.

        Args:
            room: sala, quarto or cozinha.
        """
        return f"{room}: {house.room_temperature[_room(room)]} °C"

    @registry.tool
    def set_thermostat(celsius: float) -> str:
        """Set the house thermostat, in °C (16 to 28).

        Args:
            celsius: The target temperature.
        """
        if not 16 <= celsius <= 28:
            raise ToolError("the thermostat goes from 16 to 28 °C")
        house.thermostat = celsius
        return f"thermostat set to {celsius} °C"

    @registry.tool
    def lock_door(door: str) -> str:
        """Lock a door.

        Args:
            door: frente or fundos.
        """
        key = door.strip().lower()
        if key not in DOORS:
            raise ToolError(f"no door {door!r}; doors: {', '.join(DOORS)}")
        house.locked[key] = True
        return f"door {key}: locked"

    @registry.tool
    def energy_used(day: str) -> str:
        """Electricity the house used on a day of this week, in kWh.

        Args:
            day: segunda, terça or quarta.
        """
        key = day.strip().lower().replace("terca", "terça")
        if key not in house.energy:
            raise ToolError(f"no reading for {day!r}; days: {', '.join(house.energy)}")
        return f"{key}: {house.energy[key]} kWh"

    return registry


def says(number: float) -> Callable[[House, str], bool]:
    return lambda _house, answer: any(abs(n - number) < 0.011 for n in read_numbers(answer))


@dataclass(frozen=True)
class Task:
    id: str
    text: str
    check: Callable[[House, str], bool]


TASKS = [
    Task("light-off", "Apague a luz da sala.", lambda h, _a: h.lights["sala"] == 0),
    Task(
        "thermostat-plus-2",
        "Coloque o termostato 2 graus acima da temperatura atual do quarto.",
        lambda h, _a: abs(h.thermostat - 21.0) < 0.01,
    ),
    Task(
        "energy-sum",
        "Quanto de energia a casa gastou na segunda e na terça, somados, em kWh?",
        says(21.0),
    ),
    Task(
        "night",
        "Boa noite: tranque a porta da frente e apague a luz da cozinha.",
        lambda h, _a: h.locked["frente"] and h.lights["cozinha"] == 0,
    ),
    Task(
        "energy-cost",
        "Quanto custou a energia de quarta, a R$ 0,85 por kWh?",
        lambda h, a: says(10.63)(h, a) or says(10.625)(h, a),  # rounded to the cent or not
    ),
]
