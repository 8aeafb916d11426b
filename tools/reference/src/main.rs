//! Differential oracle for the Lifeloop callback wire format.
//!
//! This binary judges wire documents with the public API of the reference
//! implementation (`lifeloop-cli`, library `lifeloop`) so that our own
//! schemas and validators can be compared against it case by case.
//!
//! Protocol (JSON Lines, one verdict per input line, same order):
//!
//! ```text
//! stdin   {"id": "<string>", "kind": "<kind>", "text": "<document>"}
//!         {"id": "<string>", "kind": "<kind>", "bytes_hex": "<hex of the raw document bytes>"}
//! stdout  {"id": "<same>", "accepted": true}
//!         {"id": "<same>", "accepted": false, "stage": "deserialize" | "validate" | "harness", "error": "<text>"}
//! ```
//!
//! The `render` kind runs the reference's hook renderer instead of judging a
//! wire document: its document is `{"adapter": "claude" | "codex", "request":
//! <render request>}` (the request as in
//! `schemas/hooks/hook-render-request.schema.json`). Its verdicts carry an
//! `output` member:
//!
//! ```text
//! {"id": ..., "accepted": true, "output": {"hook_event_name": ..., "body": <JSON>, "text": "<body_string()>"}}
//! {"id": ..., "accepted": false, "stage": "render", "error": "<Display>", "output": {"kind": ..., "detail": ...}}
//! ```
//!
//! * `deserialize`: `serde_json::from_slice::<T>` on the raw document bytes
//!   failed (this is exactly what a reader of those bytes would see: duplicate
//!   keys, trailing data, invalid UTF-8, number ranges, recursion limit, ...).
//! * `validate`: the document deserialized but the type's `validate()` failed.
//! * `harness`: the input line itself was unusable (bad JSON, unknown kind,
//!   bad hex, ...) or judging panicked. Such a verdict says nothing about the
//!   reference implementation.
//!
//! Output is flushed whenever the harness is about to block on stdin, and at
//! end of input, so a caller may either stream interactively or write
//! everything first while reading concurrently.
//!
//! Flags: `--version` prints `lifeloop::SCHEMA_VERSION`; `--list-kinds`
//! prints the supported kinds, one per line.
//!
//! To add a kind, add one row to [`KINDS`].

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use lifeloop::protocol::{
    render_hook_payload, FrameAdmissionDirective, ProtocolAdapter, ProtocolPayload, RenderRequest,
};
use lifeloop::{
    AcceptablePlacement, CallbackRequest, CallbackResponse, CapabilityDegradation,
    DispatchEnvelope, FrameContext, IntegrationMode, LifecycleEventKind, LifecycleReceipt,
    PayloadEnvelope, PayloadReceipt, PayloadRef, PlacementClass, ValidationError, Warning,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

// ============================================================================
// Verdicts
// ============================================================================

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Stage {
    Deserialize,
    Validate,
    Harness,
    /// The reference renderer refused a render request (kind `render`).
    Render,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Accepted,
    Rejected { stage: Stage, error: String },
    /// Accepted with a result (kind `render`: the rendered hook output).
    AcceptedWith(Value),
    /// Rejected with a structured result (kind `render`: the RenderError).
    RejectedWith {
        stage: Stage,
        error: String,
        output: Value,
    },
}

impl Verdict {
    fn rejected(stage: Stage, error: impl Into<String>) -> Self {
        Verdict::Rejected {
            stage,
            error: error.into(),
        }
    }

    fn harness(error: impl Into<String>) -> Self {
        Self::rejected(Stage::Harness, error)
    }
}

/// One output line.
#[derive(Serialize)]
struct VerdictLine<'a> {
    id: &'a str,
    accepted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<Stage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a Value>,
}

impl<'a> VerdictLine<'a> {
    fn new(id: &'a str, verdict: &'a Verdict) -> Self {
        match verdict {
            Verdict::Accepted => VerdictLine {
                id,
                accepted: true,
                stage: None,
                error: None,
                output: None,
            },
            Verdict::Rejected { stage, error } => VerdictLine {
                id,
                accepted: false,
                stage: Some(*stage),
                error: Some(error),
                output: None,
            },
            Verdict::AcceptedWith(output) => VerdictLine {
                id,
                accepted: true,
                stage: None,
                error: None,
                output: Some(output),
            },
            Verdict::RejectedWith {
                stage,
                error,
                output,
            } => VerdictLine {
                id,
                accepted: false,
                stage: Some(*stage),
                error: Some(error),
                output: Some(output),
            },
        }
    }
}

// ============================================================================
// Kinds
// ============================================================================

/// Deserialize `T` directly from the document bytes (never through
/// `serde_json::Value`), then apply `validate`.
fn deserialize_then<T: DeserializeOwned>(
    bytes: &[u8],
    validate: impl FnOnce(&T) -> Result<(), ValidationError>,
) -> Verdict {
    match serde_json::from_slice::<T>(bytes) {
        Err(err) => Verdict::rejected(Stage::Deserialize, err.to_string()),
        Ok(value) => match validate(&value) {
            Ok(()) => Verdict::Accepted,
            Err(err) => Verdict::rejected(Stage::Validate, err.to_string()),
        },
    }
}

/// For types that have no `validate()` of their own.
fn no_validation<T>(_: &T) -> Result<(), ValidationError> {
    Ok(())
}

// ---- kind `render`: the reference's hook renderer ---------------------------

/// The document of a `render` case.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenderCase {
    adapter: ProtocolAdapter,
    request: RenderRequestDoc,
}

/// Our render request (schemas/hooks/hook-render-request.schema.json).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenderRequestDoc {
    adapter_id: String,
    adapter_version: String,
    integration_mode: IntegrationMode,
    event: LifecycleEventKind,
    #[serde(default)]
    frame: Option<FrameContext>,
    #[serde(default)]
    payloads: Vec<RenderPayloadDoc>,
    #[serde(default)]
    directive: Option<FrameAdmissionDirective>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenderPayloadDoc {
    envelope: PayloadEnvelope,
    placement: PlacementClass,
}

/// Build the reference's `RenderRequest` from the case and run
/// `render_hook_payload`. An unreadable case is a harness problem.
fn render_case(bytes: &[u8]) -> Verdict {
    let case: RenderCase = match serde_json::from_slice(bytes) {
        Ok(case) => case,
        Err(err) => return Verdict::harness(format!("unreadable render case: {err}")),
    };
    let doc = &case.request;
    let payloads: Vec<ProtocolPayload<'_>> = doc
        .payloads
        .iter()
        .map(|p| ProtocolPayload::new(&p.envelope, p.placement))
        .collect();
    let request = RenderRequest {
        adapter: case.adapter,
        adapter_id: &doc.adapter_id,
        adapter_version: &doc.adapter_version,
        integration_mode: doc.integration_mode,
        event: doc.event,
        frame: doc.frame.as_ref(),
        payloads: &payloads,
        directive: doc.directive.as_ref(),
    };
    match render_hook_payload(&request) {
        Ok(rendered) => Verdict::AcceptedWith(serde_json::json!({
            "hook_event_name": rendered.hook_event_name,
            "text": rendered.body_string(),
            "body": rendered.body,
        })),
        Err(err) => match serde_json::to_value(&err) {
            Ok(output) => Verdict::RejectedWith {
                stage: Stage::Render,
                error: err.to_string(),
                output,
            },
            Err(ser) => Verdict::harness(format!("cannot serialize render error: {ser}")),
        },
    }
}

type Judge = fn(&[u8]) -> Verdict;

/// Every supported kind and how to judge it. Add new kinds here.
const KINDS: &[(&str, Judge)] = &[
    ("callback_request", |b| {
        deserialize_then(b, CallbackRequest::validate)
    }),
    ("callback_response", |b| {
        deserialize_then(b, CallbackResponse::validate)
    }),
    ("dispatch_envelope", |b| {
        deserialize_then(b, DispatchEnvelope::validate)
    }),
    ("payload_envelope", |b| {
        deserialize_then(b, PayloadEnvelope::validate)
    }),
    ("lifecycle_receipt", |b| {
        deserialize_then(b, LifecycleReceipt::validate)
    }),
    ("frame_context", |b| {
        deserialize_then(b, FrameContext::validate)
    }),
    ("payload_ref", |b| deserialize_then(b, PayloadRef::validate)),
    ("acceptable_placement", |b| {
        deserialize_then(b, no_validation::<AcceptablePlacement>)
    }),
    ("payload_receipt", |b| {
        deserialize_then(b, PayloadReceipt::validate)
    }),
    ("capability_degradation", |b| {
        deserialize_then(b, CapabilityDegradation::validate)
    }),
    ("warning", |b| deserialize_then(b, Warning::validate)),
    ("render", render_case),
];

/// Judge one document of the given kind.
fn judge(kind: &str, bytes: &[u8]) -> Verdict {
    let Some((_, judge_kind)) = KINDS.iter().find(|(name, _)| *name == kind) else {
        let known: Vec<&str> = KINDS.iter().map(|(name, _)| *name).collect();
        return Verdict::harness(format!(
            "unknown kind `{kind}` (known kinds: {})",
            known.join(", ")
        ));
    };
    // A panic inside the reference crate must not take the whole batch down.
    match panic::catch_unwind(AssertUnwindSafe(|| judge_kind(bytes))) {
        Ok(verdict) => verdict,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".to_string());
            Verdict::harness(format!("panic while judging kind `{kind}`: {detail}"))
        }
    }
}

// ============================================================================
// Input lines
// ============================================================================

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    bytes_hex: Option<String>,
}

/// Used only to echo the id of an input line that failed to parse as a
/// [`Case`]. Other members are skipped without being decoded.
#[derive(Deserialize)]
struct IdOnly {
    id: String,
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let digits = hex.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("bytes_hex has odd length {}", digits.len()));
    }
    digits
        .chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| match (nibble(pair[0]), nibble(pair[1])) {
            (Some(hi), Some(lo)) => Ok(hi << 4 | lo),
            _ => Err(format!(
                "bytes_hex has a non-hex digit near offset {}",
                i * 2
            )),
        })
        .collect()
}

/// Turn one raw input line into (id, verdict).
fn process_line(line: &[u8]) -> (String, Verdict) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return (String::new(), Verdict::harness("empty input line"));
    }
    let case: Case = match serde_json::from_slice(line) {
        Ok(case) => case,
        Err(err) => {
            let id = serde_json::from_slice::<IdOnly>(line)
                .map(|x| x.id)
                .unwrap_or_default();
            return (id, Verdict::harness(format!("malformed input line: {err}")));
        }
    };
    let verdict = match (&case.text, &case.bytes_hex) {
        (Some(text), None) => judge(&case.kind, text.as_bytes()),
        (None, Some(hex)) => match decode_hex(hex) {
            Ok(bytes) => judge(&case.kind, &bytes),
            Err(err) => Verdict::harness(err),
        },
        (Some(_), Some(_)) => {
            Verdict::harness("input line carries both `text` and `bytes_hex`; give exactly one")
        }
        (None, None) => {
            Verdict::harness("input line carries neither `text` nor `bytes_hex`; give exactly one")
        }
    };
    (case.id, verdict)
}

// ============================================================================
// Main loop
// ============================================================================

fn serve() -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 20, io::stdin().lock());
    let mut output = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::new();
    loop {
        // Flush before we might block on stdin, so an interactive caller
        // always sees every verdict for the lines it has sent.
        if input.buffer().is_empty() {
            output.flush()?;
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let (id, verdict) = process_line(&line);
        serde_json::to_writer(&mut output, &VerdictLine::new(&id, &verdict))?;
        output.write_all(b"\n")?;
    }
    output.flush()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => {}
        ["--version"] => {
            println!("{}", lifeloop::SCHEMA_VERSION);
            return ExitCode::SUCCESS;
        }
        ["--list-kinds"] => {
            for (name, _) in KINDS {
                println!("{name}");
            }
            return ExitCode::SUCCESS;
        }
        other => {
            eprintln!(
                "usage: lifeloop-reference-harness [--version | --list-kinds] < cases.jsonl\n\
                 unexpected arguments: {other:?}"
            );
            return ExitCode::from(2);
        }
    }

    // Generous stack: serde_json's recursion limit keeps nesting bounded, but
    // judging should never be the thing that overflows.
    let worker = std::thread::Builder::new()
        .name("judge".into())
        .stack_size(64 << 20)
        .spawn(serve);
    match worker.map(|handle| handle.join()) {
        Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
        Ok(Ok(Err(err))) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(3),
        Ok(Ok(Err(err))) => {
            eprintln!("lifeloop-reference-harness: I/O error: {err}");
            ExitCode::FAILURE
        }
        Ok(Err(_)) => {
            eprintln!("lifeloop-reference-harness: worker thread panicked");
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("lifeloop-reference-harness: cannot start worker thread: {err}");
            ExitCode::FAILURE
        }
    }
}
