"""The SDK's public module paths (``lifeloop_callback.spec``, ``.hooks``, ``.commands``, ``.enums``,
``.wire``, ``.plans``, ``.runner_outcomes``) keep every public name of the generated modules behind
them, as they had before the generated files were renamed ``_gen_*`` (issue 26)."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = ["spec", "hooks", "enums", "wire", "plans", "runner_outcomes", "commands"]


def _public_names(module: object) -> set[str]:
    declared = getattr(module, "__all__", None)
    if declared is not None:
        return set(declared)
    return {n for n in vars(module) if not n.startswith("_")}


@pytest.mark.parametrize("name", PUBLIC)
def test_public_module_keeps_the_generated_names(name: str) -> None:
    public = importlib.import_module(f"lifeloop_callback.{name}")
    generated = importlib.import_module(f"lifeloop_callback._gen_{name}")
    missing = {n for n in _public_names(generated) if getattr(public, n, None) is not getattr(generated, n)}
    assert not missing, f"lifeloop_callback.{name} lacks {sorted(missing)}"


def test_the_readme_imports_work() -> None:
    from lifeloop_callback.commands import CommandError, Continuation
    from lifeloop_callback.spec import LIMIT_MAX_FRAME_BYTES, WIRE_VERSION

    assert WIRE_VERSION.startswith("lifeloop.v")
    assert LIMIT_MAX_FRAME_BYTES > 0
    assert issubclass(Continuation, object) and issubclass(CommandError, Exception)
