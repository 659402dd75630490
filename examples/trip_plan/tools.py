"""The trip planner's tools: flights, hotels (one neighbourhood is full that week), weather and
the calculator for the budget. Data are fixed so that the example behaves the same every run."""

from __future__ import annotations

from colmeia.errors import ToolError
from colmeia.tools import ToolRegistry
from colmeia.tools.builtins.calculator import calculator_tool

FLIGHTS = {("sao paulo", "lisboa"): 4200.0, ("sao paulo", "porto"): 3900.0}
# (city, neighbourhood) -> price per night; None: no rooms that week
HOTELS = {
    ("lisboa", "alfama"): None,
    ("lisboa", "belem"): 520.0,
    ("porto", "ribeira"): 450.0,
}


def _fold(text: str) -> str:
    return (
        text.strip()
        .lower()
        .replace("ã", "a")
        .replace("é", "e")
        .replace("á", "a")
        .replace("í", "i")
        .replace("ç", "c")
    )


def trip_tools() -> ToolRegistry:
    registry = ToolRegistry([calculator_tool()])

    @registry.tool
    def search_flights(origin: str, destination: str) -> str:
        """Round-trip economy fare between two cities, per person, in reais.

        Args:
            origin: City of departure, e.g. São Paulo.
            destination: City of arrival, e.g. Lisboa.
        """
        fare = FLIGHTS.get((_fold(origin), _fold(destination)))
        if fare is None:
            raise ToolError(f"no flights from {origin} to {destination}; try Lisboa or Porto")
        return f"round trip {origin} → {destination}: R$ {fare:.2f} per person"

    @registry.tool
    def search_hotels(city: str, neighbourhood: str) -> str:
        """A double room for the week of the trip: price per night in reais, or no rooms.

        Args:
            city: The city, e.g. Lisboa.
            neighbourhood: The neighbourhood, e.g. Alfama or Belém.
        """
        key = (_fold(city), _fold(neighbourhood))
        if key not in HOTELS:
            known = ", ".join(f"{n.title()} ({c.title()})" for c, n in HOTELS)
            raise ToolError(f"no hotels known in {neighbourhood}, {city}; known: {known}")
        price = HOTELS[key]
        if price is None:
            raise ToolError(
                f"no rooms left in {neighbourhood} that week; try another neighbourhood"
            )
        return f"hotel in {neighbourhood}, {city}: R$ {price:.2f} per night"

    @registry.tool
    def weather(city: str) -> str:
        """The usual weather of a city in the month of the trip.

        Args:
            city: The city.
        """
        return f"{city}: 18-24 °C, little rain"

    return registry
