/**
 * The pieces of the JSON-RPC framing: exact ids, line splitting with a
 * ceiling, and replies that cannot be serialized.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { parseMessage, stringifyMessage } from "../../lib/jsonrpc/exact_ids.ts";
import { LineSplitter } from "../../lib/jsonrpc/lines.ts";
import { rejectValue, serializeOrExplain } from "../../lib/jsonrpc/ndjson.ts";

describe("jsonrpc pieces", () => {
  for (
    const text of [
      `{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}`,
      `{"jsonrpc":"2.0","id":-9007199254740993,"result":{}}`,
      `{"jsonrpc":"2.0","id":1.0,"result":{}}`,
      `{"jsonrpc":"2.0","id":1e3,"result":{}}`,
      `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":9007199254740993}}`,
      `{"jsonrpc":"2.0","id":7,"result":{"n":123456789012345678}}`,
    ]
  ) {
    it(`exact ids: ${text} round-trips to the same ids`, () => {
      const again = stringifyMessage(parseMessage(text));
      const ids = (s: string) => s.match(/"(id|requestId)":[^,}]+/g);
      assert.deepEqual(ids(again), ids(text));
    });
  }

  it("exact ids: a string id that looks like a number stays a string", () => {
    assert.equal(
      stringifyMessage(parseMessage(`{"id":"18446744073709551616"}`)),
      `{"id":"18446744073709551616"}`,
    );
  });

  it("lines: a line above the ceiling is reported once and the next line is read", () => {
    const splitter = new LineSplitter(10);
    const encode = (s: string) => new TextEncoder().encode(s);
    assert.deepEqual(splitter.push(encode("short\n0123456789")), [{ kind: "line", text: "short" }]);
    assert.deepEqual(splitter.push(encode("abc\nnext")), [{ kind: "too-long", bytes: 13 }]);
    assert.deepEqual(splitter.push(encode("\n")), [{ kind: "line", text: "next" }]);
    assert.equal(splitter.flush(), undefined);
  });

  it("lines: a character split across chunks is decoded whole", () => {
    const splitter = new LineSplitter(100);
    const bytes = new TextEncoder().encode("é\n");
    assert.deepEqual(splitter.push(bytes.subarray(0, 1)), []);
    assert.deepEqual(splitter.push(bytes.subarray(1)), [{ kind: "line", text: "é" }]);
  });

  it("values: null, numbers, strings, arrays and a null id are not messages", () => {
    for (const value of [null, 5, "x", true, [], [{}], { jsonrpc: "2.0", id: null, method: "m" }]) {
      assert.notEqual(rejectValue(value), undefined, JSON.stringify(value));
    }
    assert.equal(rejectValue({ jsonrpc: "2.0", id: 1, method: "m" }), undefined);
    assert.equal(rejectValue({ jsonrpc: "2.0", id: null, error: {} }), undefined); // A response.
  });

  it("replies: one too large for a string becomes an error reply for the same id", () => {
    // What JSON.stringify throws past the longest string (~512 MiB), without building one.
    const huge = {
      toJSON: () => {
        throw new RangeError("Invalid string length");
      },
    };
    const reply = JSON.parse(serializeOrExplain({ jsonrpc: "2.0", id: 4, result: huge }));
    assert.equal(reply.id, 4);
    assert.equal(reply.error.code, -32015);
    assert.match(
      reply.error.message,
      /Cannot send the answer to request 4: it is too large to send/,
    );
  });

  it("replies: one that cannot be serialized becomes an error reply for the same id", () => {
    const reply = JSON.parse(serializeOrExplain({ jsonrpc: "2.0", id: 5, result: { n: 1n } }));
    assert.equal(reply.id, 5);
    assert.equal(reply.error.code, -32603);
    assert.match(
      reply.error.message,
      /Cannot send the answer to request 5: it cannot be serialized/,
    );
  });
});
