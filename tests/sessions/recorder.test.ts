/**
 * Recording a session as an asciicast v2 file, read back and checked.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TIMEOUT_MS, withSessions } from "./_kit.ts";

/** A parsed asciicast v2 file. */
function readCast(path: string): { header: Record<string, unknown>; events: unknown[][] } {
  const [head, ...rest] = readFileSync(path, "utf8").split("\n").filter((line) => line !== "");
  return { header: JSON.parse(head), events: rest.map((line) => JSON.parse(line)) };
}

describe("sessions: recording", () => {
  it("sessions: a recording is an asciicast v2 file with the command's output", async () => {
    await withSessions(async ({ open, home }) => {
      const path = join(home, "session.cast");
      const session = await open("cast", { cols: 100, rows: 30 });
      session.record(path, { input: true });
      assert.equal(session.info().recording, path);
      await session.exec("echo recorded-$((6 * 7))", TIMEOUT_MS);
      await session.wait({ prompt: true }, TIMEOUT_MS);
      session.resize(90, 25);
      session.record(null);
      assert.equal(session.info().recording, null);
      await session.exec("echo after-the-recording", TIMEOUT_MS);

      const { header, events } = readCast(path);
      assert.equal(header.version, 2);
      assert.equal(header.width, 100);
      assert.equal(header.height, 30);
      assert.equal(typeof header.timestamp, "number");
      let last = 0;
      for (const event of events) {
        assert.equal(event.length, 3, JSON.stringify(event));
        const [time, code, data] = event;
        assert.equal(typeof time, "number");
        assert.ok((time as number) >= last, `times never go back: ${JSON.stringify(event)}`);
        last = time as number;
        assert.ok(["o", "i", "r"].includes(code as string), JSON.stringify(event));
        assert.equal(typeof data, "string");
      }
      const output = events.filter(([, code]) => code === "o").map(([, , data]) => data).join("");
      assert.match(output, /recorded-42\r\n/);
      assert.doesNotMatch(output, /after-the-recording/);
      const input = events.filter(([, code]) => code === "i").map(([, , data]) => data).join("");
      assert.match(input, /echo recorded-\$\(\(6 \* 7\)\)/);
      assert.deepEqual(events.filter(([, code]) => code === "r").map(([, , data]) => data), [
        "90x25",
      ]);
    });
  });

  it("sessions: record given at open captures the first prompt too", async () => {
    await withSessions(async ({ manager, open, home }) => {
      const path = join(home, "from-open.cast");
      const session = await open("cast-open", { record: path });
      await session.exec("echo hello-cast", TIMEOUT_MS);
      await manager.close("cast-open"); // Ends the recording: the file is complete.
      const { header, events } = readCast(path);
      assert.equal(header.version, 2);
      const output = events.filter(([, code]) => code === "o").map(([, , data]) => data).join("");
      assert.match(output, /hello-cast/);
      assert.ok(events.length > 2);
    });
  });
});
