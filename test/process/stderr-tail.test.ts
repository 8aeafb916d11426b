/** ByteTail (the bounded stderr tail) and previewBytes (the quoted stdout in failure details). */
import { describe, expect, it } from "vitest";
import { previewBytes } from "../../runtime/invoker/preview.js";
import { ByteTail } from "../../runtime/process/stderr-tail.js";

describe("ByteTail", () => {
  it("keeps everything below the capacity, and only the last bytes beyond it", () => {
    const tail = new ByteTail(8);
    expect(tail.text()).toBe("");
    tail.push(Buffer.from("abc"));
    tail.push(Buffer.from("def"));
    expect([tail.text(), tail.truncated, tail.totalBytes]).toEqual(["abcdef", false, 6]);
    tail.push(Buffer.from("ghij"));
    expect([tail.text(), tail.truncated, tail.totalBytes]).toEqual(["cdefghij", true, 10]);
    tail.push(Buffer.from("0123456789"));
    expect(tail.text()).toBe("23456789");
  });

  it("skips the continuation bytes of a character the cut split, and replaces invalid UTF-8", () => {
    const tail = new ByteTail(5);
    tail.push(Buffer.from("x€yz")); // € is E2 82 AC: the last five bytes (82 AC y z !) start inside it
    tail.push(Buffer.from("!"));
    expect(tail.text()).toBe("yz!");
    const bad = new ByteTail(16);
    bad.push(Buffer.from([0x61, 0xff, 0x62]));
    expect(bad.text()).toBe("a\ufffdb");
  });
});

describe("previewBytes", () => {
  it("quotes the first bytes, escaping what is not printable ASCII, and gives the total", () => {
    expect(previewBytes(Buffer.from(""), 8)).toBe('"" (0 bytes)');
    expect(previewBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x7b]), 8)).toBe('"\\xef\\xbb\\xbf{" (4 bytes)');
    expect(previewBytes(Buffer.from('log line\n{"a":1}'), 10)).toBe('"log line\\n{..." (16 bytes)');
    expect(previewBytes(Buffer.from("x"), 8)).toBe('"x" (1 byte)');
  });
});
