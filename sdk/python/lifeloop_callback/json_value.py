"""The type of any JSON value as the SDK reads and writes it (open maps such as ``metadata``)."""

from __future__ import annotations

from typing import Dict, List, Union

#: Any JSON value: ``None``, ``bool``, ``int``, ``float``, ``str``, ``list`` or ``dict`` with ``str`` keys.
JsonValue = Union[None, bool, int, float, str, List["JsonValue"], Dict[str, "JsonValue"]]

#: A JSON object.
JsonObject = Dict[str, JsonValue]
