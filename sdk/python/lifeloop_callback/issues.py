"""The one shape every validation problem takes, in every layer and every binding.

See spec/wire-contract.md, "Three layers": the rule id and the pointer are stable and agree with
the TypeScript and Go bindings; the message is for humans and may differ between bindings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Tuple


@dataclass(frozen=True)
class ValidationIssue:
    """One validation problem.

    - ``rule``: stable rule id: ``json.*`` (parse layer), ``schema.*`` (schema layer) or a rule id
      of spec/tables/rules.json (e.g. ``non-empty-identifier``).
    - ``pointer``: RFC 6901 JSON pointer to the offending value (``""`` is the document root); for
      a missing member, the pointer of the member that should be there.
    - ``message``: human-readable explanation (not stable; do not parse it).
    """

    rule: str
    pointer: str
    message: str


class WireValidationError(ValueError):
    """A wire document or value is invalid. ``issues`` holds every issue found; the first is primary.

    Raised by :func:`lifeloop_callback.decode`, :func:`lifeloop_callback.encode` and
    :func:`lifeloop_callback.from_json_value`. ``type_name`` is the wire type being judged.
    """

    def __init__(self, type_name: str, issues: Iterable[ValidationIssue]) -> None:
        self.type_name = type_name
        self.issues: Tuple[ValidationIssue, ...] = tuple(issues)
        first = self.issues[0] if self.issues else None
        detail = f'{first.rule} at "{first.pointer}": {first.message}' if first else "unknown problem"
        super().__init__(f"{type_name} is invalid: {detail}")

    @property
    def rule(self) -> str:
        """Rule id of the primary issue."""
        return self.issues[0].rule if self.issues else ""

    @property
    def pointer(self) -> str:
        """JSON pointer of the primary issue."""
        return self.issues[0].pointer if self.issues else ""
