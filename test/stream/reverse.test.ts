/**
 * Client → host request handling (runtime/stream/reverse.ts, spec/host-runtime.md §"Requests from
 * the client"): params checked against spec/tables/stream-v2.json before a handler runs, blobs as
 * base64 both ways, command errors mapped to their error-code rows, broken handlers to -32603.
 */
import { describe, expect, it } from "vitest";
import { STREAM_V2 } from "../../generated/ts/spec.js";
import { errorCode } from "../../runtime/rpc/error-codes.js";
import { ReverseRequestError, serveReverseRequest, type ReverseHandlers } from "../../runtime/stream/reverse.js";

const signal = new AbortController().signal;
const serve = (method: string, params: Record<string, unknown> | undefined, handlers: ReverseHandlers = {}) =>
  serveReverseRequest(method, 1, params, handlers, signal);
const json = (outcome: Awaited<ReturnType<typeof serve>>): unknown =>
  outcome.ok ? JSON.parse(outcome.resultJson.toString("utf8")) : outcome.error;

describe("client → host requests", () => {
  it("every method of the table answers not_available without a handler", async () => {
    for (const m of STREAM_V2.reverse_methods) {
      const params = Object.fromEntries(
        m.params.filter((p) => p.required).map((p) => [p.name, p.value === "base64" ? "aGk=" : "t1"]),
      );
      expect(json(await serve(m.method, params))).toEqual({
        code: -32000,
        message: expect.any(String),
        data: { error: "not_available", method: m.method },
      });
    }
  });

  it("put gets the decoded blob; get's blob goes back as base64 with the metadata", async () => {
    const store = new Map<string, Buffer>();
    const handlers: ReverseHandlers = {
      "continuation/put": (req) => {
        store.set(String(req.params.key), req.blob as Buffer);
        return { result: { status: "ok", written_at_epoch_s: 5 } };
      },
      "continuation/get": (req) => {
        const blob = store.get(String(req.params.key));
        if (blob === undefined) throw new ReverseRequestError("not_found", "no entry");
        return { result: { client_id: "unknown", ttl_s: null, written_at_epoch_s: 5 }, blob };
      },
    };
    expect(
      json(
        await serve(
          "continuation/put",
          { thread: "t", key: "k", blob_base64: Buffer.from("bytes\u0000\xff").toString("base64") },
          handlers,
        ),
      ),
    ).toEqual({ status: "ok", written_at_epoch_s: 5 });
    expect(json(await serve("continuation/get", { thread: "t", key: "k" }, handlers))).toEqual({
      blob_base64: Buffer.from("bytes\u0000\xff").toString("base64"),
      client_id: "unknown",
      ttl_s: null,
      written_at_epoch_s: 5,
    });
    expect(json(await serve("continuation/get", { thread: "t", key: "other" }, handlers))).toMatchObject({
      code: errorCode("not_found"),
      data: { error: "not_found" },
    });
  });

  it("refuses bad params before any handler runs", async () => {
    let called = 0;
    const handlers: ReverseHandlers = {
      "continuation/put": () => {
        called++;
        return { result: { status: "ok", written_at_epoch_s: 1 } };
      },
    };
    const cases: [Record<string, unknown> | undefined, string, number][] = [
      [undefined, "missing", -32602],
      [{ thread: "t", key: "k" }, "no blob", -32602],
      [{ thread: "t", key: "k", blob_base64: "not base64!" }, "bad base64", -32602],
      [{ thread: "t", key: "k", blob_base64: "aGk=", ttl_s: -1 }, "negative ttl", -32602],
      [{ thread: "t", key: "k", blob_base64: "aGk=", colour: "red" }, "unknown member", -32602],
      [{ thread: "a/b", key: "k", blob_base64: "aGk=" }, "bad identifier", -32023],
      [{ thread: "t", key: "k", blob_base64: "aGl=" }, "non-canonical base64 (stray bits)", -32602],
      [{ thread: "t", key: "k", blob_base64: "aGk" }, "base64 without padding", -32602],
      [{ thread: "t", key: "k", blob_base64: "aG k=" }, "base64 with a space", -32602],
      [{ thread: "t", key: "k", blob_base64: "a-_=" }, "url-safe base64", -32602],
    ];
    for (const [params, why, code] of cases)
      expect((json(await serve("continuation/put", params, handlers)) as { code: number }).code, why).toBe(code);
    expect(called).toBe(0);
  });

  it("a handler that throws or answers the wrong members is -32603; an unknown method -32601", async () => {
    const throws: ReverseHandlers = {
      "continuation/list": () => {
        throw new Error("disk on fire");
      },
    };
    expect(json(await serve("continuation/list", { thread: "t" }, throws))).toMatchObject({
      code: -32603,
      data: { error: "internal_error" },
    });
    const wrong: ReverseHandlers = { "continuation/list": () => ({ result: { keys: [] } }) };
    expect(json(await serve("continuation/list", { thread: "t" }, wrong))).toMatchObject({ code: -32603 });
    expect(json(await serve("continuation/frobnicate", {}))).toMatchObject({
      code: -32601,
      data: { method: "continuation/frobnicate" },
    });
  });

  it("a blob of 12 MB (near the frame bound) is checked in linear time: answered, never a stack overflow", async () => {
    const blob = Buffer.alloc(12_000_000, 0x61);
    let got = -1;
    const handlers: ReverseHandlers = {
      "continuation/put": (req) => {
        got = (req.blob as Buffer).length;
        return { result: { status: "ok", written_at_epoch_s: 1 } };
      },
    };
    expect(
      json(await serve("continuation/put", { thread: "t", key: "k", blob_base64: blob.toString("base64") }, handlers)),
    ).toEqual({ status: "ok", written_at_epoch_s: 1 });
    expect(got).toBe(blob.length);
  });
});
