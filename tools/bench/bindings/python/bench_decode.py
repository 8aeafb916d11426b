"""Times the generated Python SDK's strict decoder for the cross-binding parse benchmark
(tools/bench/wire-parsers.ts), against ``json.loads`` on the same bytes.

    bench_decode.py time <file> <inner> <samples>   alternating samples of <inner> calls of
        ``decode(DispatchEnvelope, data)`` and of ``json.loads(data)`` (the plain parser); prints
        {"ms": <median ms per call>, "baseline_ms": <median>, "ratio": <median of per-sample ratios>,
        "cpu_ratio": <the same ratio of process CPU time>}
    bench_decode.py peak <ours|plain> <file>        one parse; prints {"ms", "rss_before_kb",
        "peak_kb", "verdict"} (peak: VmHWM from /proc/self/status after the high-water mark was
        reset, just before the parse, by writing 5 to /proc/self/clear_refs)

The SDK is imported from sdk/python (no install needed).
"""

from __future__ import annotations

import gc
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "sdk" / "python"))

from lifeloop_callback import DispatchEnvelope, WireValidationError, decode  # noqa: E402


def ours(data: bytes) -> Any:
    return decode(DispatchEnvelope, data)


def plain(data: bytes) -> Any:
    return json.loads(data)


def per_call(f: Callable[[bytes], Any], data: bytes, inner: int) -> Tuple[float, float]:
    """Wall and process CPU time per call of ``f``, in ms."""
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(inner):
        f(data)
    return (time.perf_counter() - start) * 1000 / inner, (time.process_time() - cpu) * 1000 / inner


def median(v: List[float]) -> float:
    return sorted(v)[len(v) // 2]


def status(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    m = re.search(field + r":\s+(\d+)", text)
    if m is None:
        raise SystemExit(f"bench_decode: no {field} in /proc/self/status")
    return int(m.group(1))


def main(argv: List[str]) -> None:
    if len(argv) < 4:
        raise SystemExit("usage: bench_decode.py time <file> <inner> <samples> | peak <ours|plain> <file>")
    if argv[1] == "time":
        data = Path(argv[2]).read_bytes()
        inner, samples = int(argv[3]), int(argv[4])
        for _ in range(3):
            per_call(ours, data, inner)
            per_call(plain, data, inner)
        a: List[float] = []
        b: List[float] = []
        r: List[float] = []
        rc: List[float] = []
        for _ in range(samples):
            x, xc = per_call(ours, data, inner)
            y, yc = per_call(plain, data, inner)
            a.append(x)
            b.append(y)
            r.append(x / y)
            rc.append(xc / yc if yc > 0 else float("nan"))
        print(json.dumps({"ms": median(a), "baseline_ms": median(b), "ratio": median(r), "cpu_ratio": median(rc)}))
    elif argv[1] == "peak":
        f = {"ours": ours, "plain": plain}[argv[2]]
        data = Path(argv[3]).read_bytes()
        gc.collect()
        Path("/proc/self/clear_refs").write_text("5")
        before = status("VmRSS")
        start = time.perf_counter()
        verdict = "valid"
        try:
            f(data)
        except WireValidationError as e:
            verdict = f"{e.issues[0].rule} {e.issues[0].pointer}"
        ms = (time.perf_counter() - start) * 1000
        print(json.dumps({"ms": ms, "rss_before_kb": before, "peak_kb": status("VmHWM"), "verdict": verdict}))
    else:
        raise SystemExit(f"bench_decode: unknown mode {argv[1]!r}")


if __name__ == "__main__":
    main(sys.argv)
