//! Parse benchmark of the reference implementation for the cross-binding benchmark
//! (tools/bench/wire-parsers.ts): `serde_json::from_slice::<DispatchEnvelope>` followed by the
//! type's `validate()`, against `serde_json::from_slice::<Value>` on the same bytes.
//!
//! ```text
//! lifeloop-reference-bench time <file> <inner> <samples>
//!     alternating samples of <inner> calls of each; prints
//!     {"ms": <median ms per call>, "baseline_ms": <median>, "ratio": <median of per-sample ratios>,
//!      "cpu_ratio": <the same ratio of process CPU time>}
//! lifeloop-reference-bench peak <ours|plain> <file>
//!     one parse; prints {"ms", "rss_before_kb", "peak_kb", "verdict"}; the peak is VmHWM from
//!     /proc/self/status after the high-water mark was reset (5 written to /proc/self/clear_refs)
//!     just before the parse
//! ```

use std::hint::black_box;
use std::process::exit;
use std::time::Instant;

use lifeloop::DispatchEnvelope;
use serde_json::Value;

/// The reference's own judgement; `Err` carries the stage and message.
fn reference(data: &[u8]) -> Result<(), String> {
    let envelope: DispatchEnvelope = serde_json::from_slice(data).map_err(|e| format!("deserialize: {e}"))?;
    envelope.validate().map_err(|e| format!("validate: {e}"))?;
    black_box(&envelope);
    Ok(())
}

/// The plain parser: an untyped `serde_json::Value`.
fn plain(data: &[u8]) -> Result<(), String> {
    let value: Value = serde_json::from_slice(data).map_err(|e| format!("deserialize: {e}"))?;
    black_box(&value);
    Ok(())
}

fn fail(message: &str) -> ! {
    eprintln!("lifeloop-reference-bench: {message}");
    exit(2)
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
}

/// CPU time of the whole process, in ms (CLOCK_PROCESS_CPUTIME_ID, Linux).
fn cpu_ms() -> f64 {
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into the valid, exclusively borrowed `ts`.
    if unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        fail("clock_gettime failed");
    }
    ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1e6
}

/// Wall and process CPU time per call of `f`, in ms.
fn per_call(f: fn(&[u8]) -> Result<(), String>, data: &[u8], inner: usize) -> (f64, f64) {
    let start = Instant::now();
    let cpu = cpu_ms();
    for _ in 0..inner {
        if let Err(e) = f(black_box(data)) {
            fail(&format!("document rejected while timing: {e}"));
        }
    }
    (start.elapsed().as_secs_f64() * 1000.0 / inner as f64, (cpu_ms() - cpu) / inner as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn status(field: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_else(|e| fail(&format!("read /proc/self/status: {e}")));
    text.lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':')?.trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or_else(|| fail(&format!("no {field} in /proc/self/status")))
}

fn count(arg: &str) -> usize {
    match arg.parse::<usize>() {
        Ok(n) if n > 0 => n,
        _ => fail(&format!("not a positive count: {arg:?}")),
    }
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| fail(&format!("read {path}: {e}")))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        fail("usage: lifeloop-reference-bench time <file> <inner> <samples> | peak <ours|plain> <file>");
    }
    match args[1].as_str() {
        "time" => {
            let data = read(&args[2]);
            let (inner, samples) = (count(&args[3]), count(args.get(4).map_or("", String::as_str)));
            for _ in 0..3 {
                per_call(reference, &data, inner);
                per_call(plain, &data, inner);
            }
            let (mut a, mut b, mut r, mut rc) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for _ in 0..samples {
                let (x, xc) = per_call(reference, &data, inner);
                let (y, yc) = per_call(plain, &data, inner);
                a.push(x);
                b.push(y);
                r.push(x / y);
                rc.push(xc / yc);
            }
            println!("{}", serde_json::json!({"ms": median(a), "baseline_ms": median(b), "ratio": median(r), "cpu_ratio": median(rc)}));
        }
        "peak" => {
            let f: fn(&[u8]) -> Result<(), String> = match args[2].as_str() {
                "ours" => reference,
                "plain" => plain,
                other => fail(&format!("peak wants ours or plain, not {other:?}")),
            };
            let data = read(&args[3]);
            std::fs::write("/proc/self/clear_refs", "5").unwrap_or_else(|e| fail(&format!("reset the RSS high-water mark: {e}")));
            let before = status("VmRSS");
            let start = Instant::now();
            let verdict = match f(&data) {
                Ok(()) => "valid".to_string(),
                Err(e) => e,
            };
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            println!("{}", serde_json::json!({"ms": ms, "rss_before_kb": before, "peak_kb": status("VmHWM"), "verdict": verdict}));
        }
        other => fail(&format!("unknown mode {other:?}")),
    }
}
