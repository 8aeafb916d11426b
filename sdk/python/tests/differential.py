"""Differential check helper run by test/sdk/python.test.ts: judge a corpus with the Python SDK.

Input: a JSON-lines file, one case per line: ``{"id", "type", "b64", "ok", "rule", "pointer"}``
where ``ok``/``rule``/``pointer`` are the TypeScript validator's verdict on the bytes. Output (stdout):
one JSON object ``{"total": N, "mismatch_count": M, "mismatches": [...]}`` (the first 50 disagreements).
Usage: ``python3 sdk/python/tests/differential.py CORPUS.jsonl``.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "sdk" / "python"))

from lifeloop_callback import check  # noqa: E402 - after the sys.path setup above


def main(path: str) -> int:
    total = 0
    count = 0
    mismatches = []
    with open(path, encoding="utf-8") as corpus:
        for line in corpus:
            if not line.strip():
                continue
            case = json.loads(line)
            total += 1
            issues = check(case["type"], base64.b64decode(case["b64"]))
            got = {
                "ok": not issues,
                "rule": issues[0].rule if issues else None,
                "pointer": issues[0].pointer if issues else None,
            }
            want = {"ok": case["ok"], "rule": case["rule"], "pointer": case["pointer"]}
            if got != want:
                count += 1
                if len(mismatches) < 50:
                    mismatches.append({"id": case["id"], "type": case["type"], "want": want, "got": got})
    json.dump({"total": total, "mismatch_count": count, "mismatches": mismatches}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
