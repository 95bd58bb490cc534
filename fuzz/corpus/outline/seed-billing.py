"""Invoices and the ledger they are posted to."""

import dataclasses
import functools
from typing import Iterable, Optional

# Rounding used for every monetary amount.
CENTS = 100


def to_cents(amount: float) -> int:
    """Converts an amount in euros to whole cents."""
    return round(amount * CENTS)


# A comment above a decorator is not part of the definition.
@dataclasses.dataclass(frozen=True)
class Line:
    """One line of an invoice."""

    label: str
    quantity: int
    unit_cents: int

    @property
    def total(self) -> int:
        return self.quantity * self.unit_cents

    def describe(self, currency: str = "EUR") -> str:
        return f"{self.label}: {self.total / CENTS:.2f} {currency}"
        # trailing comment inside the body


class Invoice:
    class Status:
        DRAFT = "draft"
        SENT = "sent"

        @staticmethod
        def parse(raw: str) -> "Invoice.Status":
            return raw.strip().lower()

    def __init__(self, number: str, lines: Iterable[Line] = ()):
        self.number = number
        self.lines = list(lines)
        self.status = Invoice.Status.DRAFT

    @functools.cached_property
    @staticmethod
    def _cache():
        return {}

    def total(self) -> int:
        def line_total(line: Line) -> int:
            return line.total

        return sum(line_total(l) for l in self.lines)

    async def send(self, mailer) -> None:
        await mailer.send(self.number, self.total())
        self.status = Invoice.Status.SENT


if True:
    def fallback_rate() -> Optional[float]:
        return None


class Ledger(dict):
    def post(self, invoice: Invoice) -> None:
        self[invoice.number] = invoice.total()

    def total(self) -> int:
        return sum(self.values())
