/**
 * `sessions/record` and `record` on `sessions/open` through `termbridge
 * serve` (the built binary): a relative path is refused, an existing file
 * that is not a recording is kept unless `overwrite` is asked for; the file
 * is checked as fs/write_text_file's (write globs, sandbox, termbridge's own
 * files, recorded in the audit log); a FIFO is refused, never waited on.
 * `run`'s record and pipe likewise.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inTempDir, termbridge } from "../script/_cli.ts";
import { RawRpc, request } from "./_kit.ts";
import { markerWorkspace } from "../safety/_workspace.ts";
import { Serve } from "../safety/_serve.ts";

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

describe("serve recording: where it may go", () => {
  it("serve: a recording goes only where fs/write_text_file may write, never to termbridge's own files", async () => {
    const { dir, env } = markerWorkspace({ policy: { write: ["${cwd}/ws/**"] } }, "tb-record-");
    mkdirSync(join(dir, "ws"));
    const bashrc = join(dir, ".bashrc");
    writeFileSync(bashrc, "# mine\n");
    const audit = join(dir, "ws", "audit.jsonl");
    const serve = new Serve(["--audit", audit], { cwd: dir, env });
    try {
      const opened = await serve.request("sessions/open", {
        name: "a",
        record: bashrc,
        recordOverwrite: true,
      });
      const refused = opened.error as { code: number; data: { message: string } };
      assert.equal(refused?.code, -32003, JSON.stringify(opened));
      assert.match(refused.data.message, /\.bashrc" matches none of the write globs/);
      assert.deepEqual((await serve.request("sessions/list", {})).result, { sessions: [] });
      assert.equal(readFileSync(bashrc, "utf8"), "# mine\n");

      assert.equal((await serve.request("sessions/open", { name: "a" })).error, undefined);
      const own = await serve.request("sessions/record", {
        name: "a",
        path: audit,
        overwrite: true,
      });
      const ownError = own.error as { code: number; data: { message: string } };
      assert.equal(ownError?.code, -32003, JSON.stringify(own));
      assert.match(ownError.data.message, /termbridge's own configuration or audit log/);
      const cast = join(dir, "ws", "ok.cast");
      assert.deepEqual(
        (await serve.request("sessions/record", { name: "a", path: cast })).result,
        { recording: cast },
      );
      assert.equal(JSON.parse(readFileSync(cast, "utf8").split("\n")[0]).version, 2);
      const events = readFileSync(audit, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.ok(
        events.some((e) => e.event === "command" && e.origin === "open"),
        "the log was not replaced",
      );
      assert.ok(
        events.some((e) => e.event === "write" && e.path === bashrc && e.decision === "deny"),
        "the refused recording is in the audit log",
      );
    } finally {
      await serve.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serve: under a sandbox, a recording goes only where the sandbox lets the session write", async () => {
    const { dir, env } = markerWorkspace({ sandbox: { mode: "read-only" } }, "tb-record-");
    const serve = new Serve([], { cwd: dir, env });
    try {
      const cast = join(dir, "in-the-globs.cast");
      const opened = await serve.request("sessions/open", { name: "a", record: cast });
      const refused = opened.error as { code: number; data: { message: string } };
      assert.equal(refused?.code, -32003, JSON.stringify(opened));
      assert.match(refused.data.message, /the sandbox makes only nothing writable/);
      assert.equal(existsSync(cast), false);
    } finally {
      await serve.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serve: a FIFO as the recording is refused at once (-32012) and serve keeps answering", async () => {
    await withServe(async (rpc, dir) => {
      const fifo = join(dir, "fifo");
      assert.equal(spawnSync("mkfifo", [fifo]).status, 0);
      for (const [id, overwrite] of [["1", false], ["2", true]] as const) {
        await rpc.send(
          request(id, "sessions/open", { name: "a", record: fifo, recordOverwrite: overwrite }),
        );
        const refused = await rpc.answer(id, 10_000);
        assert.equal(refused.error?.code, -32012, refused.raw);
        assert.match(refused.error!.message, /it is a FIFO \(named pipe\), not a file/);
      }
      await rpc.send(request("3", "sessions/open", { name: "a" }));
      assert.equal((await rpc.answer("3")).error, undefined);
      await rpc.send(request("4", "sessions/record", { name: "a", path: fifo, overwrite: true }));
      assert.equal((await rpc.answer("4", 10_000)).error?.code, -32012);
      await rpc.send(request("5", "sessions/list"));
      assert.equal((await rpc.answer("5", 10_000)).result.sessions[0].recording, null);
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

  it("run: record and pipe go only where the write globs allow, and never to a FIFO", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, "termbridge.jsonc"), '{ "policy": { "write": ["${cwd}/ok/**"] } }');
      mkdirSync(join(dir, "ok"));
      assert.equal(spawnSync("mkfifo", [join(dir, "ok", "fifo")]).status, 0);
      for (
        const [line, refusal] of [
          ["record out.cast", /out\.cast" matches none of the write globs/],
          ["pipe out.txt", /out\.txt" matches none of the write globs/],
          ["record --overwrite ok/fifo", /it is a FIFO \(named pipe\), not a file/],
          ["pipe ok/fifo", /it is a FIFO \(named pipe\), not a file/],
        ] as const
      ) {
        const refused = await termbridge(["run", "-"], { cwd: dir, stdin: `open\n${line}\n` });
        assert.notEqual(refused.code, 0, line);
        assert.match(refused.stderr + refused.stdout, refusal);
      }
      assert.equal(existsSync(join(dir, "out.cast")), false);
      assert.equal(existsSync(join(dir, "out.txt")), false);
      const allowed = await termbridge(["run", "-"], {
        cwd: dir,
        stdin: "open\nrecord ok/x.cast\npipe ok/x.txt\nexec echo hi\nrecord stop\n",
      });
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.match(readFileSync(join(dir, "ok", "x.txt"), "utf8"), /hi/);
    });
  });
});
