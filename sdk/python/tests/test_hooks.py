"""The harness hook mapping constants (lifeloop_callback._gen_hooks) against spec/tables/harness-hook-mapping.json.

The expectation is read from the JSON table itself (json.load), never from the generated module.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

import lifeloop_callback
from lifeloop_callback import (
    HOOK_ADAPTER_IDS,
    HOOK_ADAPTER_INFO,
    HOOK_ADAPTERS,
    HOOK_EVENTS,
    HookEventInfo,
    LifecycleEventKind,
    PlacementClass,
    hook_adapter_for,
    hook_event_for,
    hook_event_info_for,
)
from lifeloop_callback import _gen_hooks as hooks_module

from conftest import REPO_ROOT

TABLE_PATH = REPO_ROOT / "spec" / "tables" / "harness-hook-mapping.json"


@pytest.fixture(scope="module")
def table() -> Dict[str, Any]:
    doc: Dict[str, Any] = json.loads(TABLE_PATH.read_text("utf-8"))
    assert doc["adapters"], "the table lists no adapters"
    return doc


def _row(adapter: Dict[str, Any], hook_event: str) -> Dict[str, Any]:
    rows: List[Dict[str, Any]] = [h for h in adapter["hook_events"] if h["hook_event"] == hook_event]
    assert len(rows) == 1, f"{adapter['adapter']}: {hook_event} is not exactly one of its hook_events"
    return rows[0]


def _check_info(info: HookEventInfo, adapter: Dict[str, Any], row: Dict[str, Any]) -> None:
    assert info.adapter == adapter["adapter"]
    assert info.hook_event == row["hook_event"]
    assert info.output_schema == row["output_schema"]
    assert info.context_slot == row["context_slot"]
    assert [p.value for p in info.context_placements] == row["context_placements"]
    assert all(isinstance(p, PlacementClass) for p in info.context_placements)
    assert info.block == row["block"]
    assert info.block_applies is (row["block"] in ("block_prompt", "request_continuation"))


def test_every_adapter_id_and_every_event_against_the_table(table: Dict[str, Any]) -> None:
    checked = 0
    for adapter in table["adapters"]:
        expected = {e["event"]: e["hook_event"] for e in adapter["events"]}
        assert sorted(expected) == sorted(k.value for k in LifecycleEventKind)
        assert set(HOOK_EVENTS[adapter["adapter"]]) == set(LifecycleEventKind)
        for adapter_id in adapter["adapter_ids"]:
            assert hook_adapter_for(adapter_id) == adapter["adapter"]
            for kind in LifecycleEventKind:
                want = expected[kind.value]
                got = hook_event_for(adapter_id, kind)
                info = hook_event_info_for(adapter_id, kind)
                if want == "unsupported":
                    assert got is None, (adapter_id, kind)
                    assert info is None, (adapter_id, kind)
                    assert HOOK_EVENTS[adapter["adapter"]][kind] is None
                else:
                    assert got == want, (adapter_id, kind)
                    assert HOOK_EVENTS[adapter["adapter"]][kind] == want
                    assert info is not None, (adapter_id, kind)
                    _check_info(info, adapter, _row(adapter, want))
                checked += 1
    assert checked == sum(len(a["adapter_ids"]) for a in table["adapters"]) * len(LifecycleEventKind)


def test_adapters_ids_and_infos_against_the_table(table: Dict[str, Any]) -> None:
    adapters = table["adapters"]
    assert HOOK_ADAPTERS == tuple(a["adapter"] for a in adapters)
    assert list(HOOK_ADAPTER_INFO) == list(HOOK_ADAPTERS)
    assert list(HOOK_EVENTS) == list(HOOK_ADAPTERS)
    assert HOOK_ADAPTER_IDS == {i: a["adapter"] for a in adapters for i in a["adapter_ids"]}
    for adapter in adapters:
        info = HOOK_ADAPTER_INFO[adapter["adapter"]]
        assert info.harness == adapter["harness"]
        assert list(info.adapter_ids) == adapter["adapter_ids"]
        limit = adapter["harness_context_limit"]
        if limit is None:
            assert info.context_limit is None
        else:
            assert info.context_limit is not None
            assert (info.context_limit.length, info.context_limit.unit) == (limit["length"], limit["unit"])
            assert (info.context_limit.on_exceed, info.context_limit.fact) == (limit["on_exceed"], limit["fact"])
        assert [h.hook_event for h in info.hook_events] == [h["hook_event"] for h in adapter["hook_events"]]
        for h in info.hook_events:
            _check_info(h, adapter, _row(adapter, h.hook_event))


def test_name_constants_against_the_table(table: Dict[str, Any]) -> None:
    for adapter in table["adapters"]:
        prefix = adapter["adapter"].upper()
        assert getattr(hooks_module, f"HOOK_ADAPTER_{prefix}") == adapter["adapter"]
        constants: List[str] = sorted(
            getattr(hooks_module, name) for name in dir(hooks_module) if name.startswith(f"{prefix}_HOOK_EVENT_")
        )
        assert constants == sorted(h["hook_event"] for h in adapter["hook_events"])
        for name in dir(hooks_module):
            if name.startswith(f"{prefix}_HOOK_EVENT_"):
                assert name in lifeloop_callback.__all__, name


def test_unknown_names_are_refused() -> None:
    for adapter_id in ("", "Claude", "claude ", "claude_code", "no-such-harness"):
        assert hook_adapter_for(adapter_id) is None
        assert hook_event_for(adapter_id, LifecycleEventKind.SESSION_STARTING) is None
        assert hook_event_info_for(adapter_id, LifecycleEventKind.SESSION_STARTING) is None
    for adapter in HOOK_ADAPTERS:
        assert hook_event_for(adapter, "session.unknown") is None  # type: ignore[arg-type]
        # A plain string equal to a LifecycleEventKind value is accepted too.
        assert hook_event_for(adapter, "session.starting") == hook_event_for(  # type: ignore[arg-type]
            adapter, LifecycleEventKind.SESSION_STARTING
        )


def test_infos_are_frozen() -> None:
    info = next(iter(HOOK_ADAPTER_INFO.values())).hook_events[0]
    with pytest.raises(AttributeError):
        info.block_applies = not info.block_applies  # type: ignore[misc]
