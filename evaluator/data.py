"""The frozen venue data the checks compare against.

Always the task's own copy (task.json `data`: the starter's src/data/venues.json), never the
submission's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

TYPE_LABELS = {
    "studio": "Studio",
    "loft": "Loft",
    "garden": "Garden",
    "hall": "Hall",
    "warehouse": "Warehouse",
    "rooftop": "Rooftop",
}


@dataclass(frozen=True)
class Venue:
    slug: str
    name: str
    type: str
    area: str
    area_name: str
    capacity: int
    price_band: str
    summary: str
    description: str
    image: str | None

    @property
    def path(self) -> str:
        return f"/venues/{self.slug}"


@dataclass(frozen=True)
class VenueData:
    venues: list[Venue]

    def by_slug(self, slug: str) -> Venue:
        for venue in self.venues:
            if venue.slug == slug:
                return venue
        raise KeyError(slug)

    @property
    def areas(self) -> dict[str, str]:
        """Area slug -> display name, in order of first appearance."""
        areas: dict[str, str] = {}
        for venue in self.venues:
            areas.setdefault(venue.area, venue.area_name)
        return areas

    def matching(
        self, types: set[str] | None = None, area: str | None = None, guests: int | None = None
    ) -> list[Venue]:
        """The contract's filter: any checked type, the area, capacity >= guests; data order."""
        return [
            v
            for v in self.venues
            if (not types or v.type in types)
            and (not area or v.area == area)
            and (guests is None or v.capacity >= guests)
        ]

    @property
    def longest_name(self) -> Venue:
        return max(self.venues, key=lambda v: len(v.name))

    @property
    def longest_description(self) -> Venue:
        return max(self.venues, key=lambda v: len(v.description))

    @property
    def ordinary(self) -> Venue:
        """A venue with a plain image, a short name and a short description (the journeys' pick)."""
        short = [
            v for v in self.venues if v.image and len(v.name) <= 20 and len(v.description) < 800
        ]
        return short[0] if short else self.venues[0]


def load_venues(path: Path) -> VenueData:
    raw = json.loads(path.read_text(encoding="utf-8"))
    venues = [
        Venue(
            slug=item["slug"],
            name=item["name"],
            type=item["type"],
            area=item["area"],
            area_name=item["areaName"],
            capacity=int(item["capacity"]),
            price_band=item["priceBand"],
            summary=item.get("summary", ""),
            description=item["description"],
            image=item.get("image"),
        )
        for item in raw
    ]
    return VenueData(venues)
