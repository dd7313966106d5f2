/**
 * `sessions/record` and `record` on `sessions/open` through `termbridge
 * serve` (the built binary): a relative path is refused, an existing file
 * that is not a recording is kept unless `overwrite` is asked for.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inTempDir, termbridge } from "../script/_cli.ts";
import { RawRpc, request } from "./_kit.ts";

/** Runs `body` with a serve process and a temporary directory, both always cleaned up. */
async function withServe(body: (rpc: RawRpc, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tb-record-"));
  const rpc = RawRpc.start("serve");
  try {
    await body(rpc, dir);
  } finally {
    await rpc.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("serve recording", () => {
  it("serve: sessions/record keeps a file that is not a recording unless overwrite is asked", async () => {
    await withServe(async (rpc, dir) => {
      const notes = join(dir, "notes.txt");
      writeFileSync(notes, "precious\n");
      const cast = join(dir, "old.cast");
      writeFileSync(cast, `{"version":2,"width":80,"height":24}\n[0.1,"o","x"]\n`);
      await rpc.send(request("1", "sessions/open", { name: "a" }));
      await rpc.answer("1");
      const record = (id: string, params: Record<string, unknown>) =>
        rpc.send(request(id, "sessions/record", { name: "a", ...params }));

      await record("2", { path: notes });
      const refused = await rpc.answer("2");
      assert.equal(refused.error?.code, -32012, refused.raw);
      assert.match(refused.error!.message, /exists and is not an asciicast recording.*overwrite/);
      assert.equal(readFileSync(notes, "utf8"), "precious\n");

      await record("3", { path: "relative.cast" });
      const relative = await rpc.answer("3");
      assert.equal(relative.error?.code, -32602, relative.raw);
      assert.match(relative.error!.message, /"relative\.cast": the path must be absolute/);

      await record("4", { path: dir });
      assert.equal((await rpc.answer("4")).error?.code, -32012);

      await record("5", { path: cast }); // An older recording is replaced.
      assert.deepEqual((await rpc.answer("5")).result, { recording: cast });
      await record("6", { path: notes, overwrite: true });
      assert.deepEqual((await rpc.answer("6")).result, { recording: notes });
      await record("7", { path: null });
      await rpc.answer("7");
      assert.equal(JSON.parse(readFileSync(notes, "utf8").split("\n")[0]).version, 2);
    });
  });

  it("serve: sessions/open with record of a file that is not a recording opens nothing", async () => {
    await withServe(async (rpc, dir) => {
      const notes = join(dir, "notes.txt");
      writeFileSync(notes, "precious\n");
      await rpc.send(request("1", "sessions/open", { name: "a", record: notes }));
      const refused = await rpc.answer("1");
      assert.equal(refused.error?.code, -32012, refused.raw);
      await rpc.send(request("2", "sessions/list"));
      assert.deepEqual((await rpc.answer("2")).result, { sessions: [] });
      assert.equal(readFileSync(notes, "utf8"), "precious\n");
      await rpc.send(
        request("3", "sessions/open", { name: "a", record: notes, recordOverwrite: true }),
      );
      assert.equal((await rpc.answer("3")).result.recording, notes);
    });
  });
});

describe("run recording", () => {
  it("run: record keeps a file that is not a recording; record --overwrite replaces it; a relative FILE is the script's", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, "notes.txt"), "precious\n");
      const refused = await termbridge(["run", "-"], {
        cwd: dir,
        stdin: "open\nrecord notes.txt\n",
      });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr + refused.stdout, /not an asciicast recording.*--overwrite/s);
      assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "precious\n");
      const replaced = await termbridge(["run", "-"], {
        cwd: dir,
        stdin: "open\nrecord --overwrite notes.txt\nexec echo hi\nrecord stop\n",
      });
      assert.equal(replaced.code, 0, replaced.stderr);
      assert.equal(
        JSON.parse(readFileSync(join(dir, "notes.txt"), "utf8").split("\n")[0]).version,
        2,
      );
    });
  });
});
