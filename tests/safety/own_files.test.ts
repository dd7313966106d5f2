/**
 * termbridge's own files through `serve`'s fs/write_text_file (the built
 * binary, or main.ts): a hard link (or, as root, a bind mount) of the user's
 * config is refused as the config itself, so is a file with another name;
 * the audit log's rotated files are the log's; a termbridge.jsonc anywhere
 * in a trusted directory's tree is refused (an untrusted one's may only
 * tighten, so it is written); `LINK/..` is the kernel's file; a name with a
 * newline is judged by the globs.
 * @module
 */

import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { removeDir, termbridgeCommand } from "../mcp/_kit.ts";
import { markerWorkspace } from "./_workspace.ts";
import { Serve } from "./_serve.ts";

const S = "s1";

/** Whether this process may bind-mount in a mount namespace of its own (root, unshare). */
function canBindMount(): boolean {
  return process.getuid?.() === 0 && spawnSync("unshare", ["-m", "true"]).status === 0;
}

/** A test with a generous timeout (child processes' pipes, as guard_e2e's). */
function it(name: string, fn: () => Promise<void> | void): void {
  nodeIt(name, { timeout: 120_000 }, fn);
}

interface Refusal {
  code: number;
  data: { message: string };
}

/** Runs `body` with serve in a fresh workspace whose termbridge.jsonc is `config`. */
async function withWorkspace(
  config: unknown,
  body: (serve: Serve, dir: string) => Promise<void>,
  prepare?: (dir: string) => void,
): Promise<void> {
  const { dir, env } = markerWorkspace(config, "termbridge-own-");
  prepare?.(dir);
  const serve = new Serve([], { cwd: dir, env });
  try {
    await body(serve, dir);
  } finally {
    await serve.close();
    removeDir(dir);
  }
}

function write(serve: Serve, path: string, content = "x") {
  return serve.request("fs/write_text_file", { sessionId: S, path, content });
}

describe("own files", () => {
  it("own files: a hard link to the user's config, or to a file outside the write globs, is not written", async () => {
    const user = '{ "policy": { "deny": ["curl"] } }\n';
    await withWorkspace({ policy: { write: ["${cwd}/ws/**"] } }, async (serve, dir) => {
      const config = join(dir, "config", "termbridge", "termbridge.jsonc");
      const linked = await write(serve, join(dir, "ws", "notes.txt"), '{ "trust": ["/"] }');
      const error = linked.error as Refusal;
      assert.equal(error?.code, -32003, JSON.stringify(linked));
      assert.match(
        error.data.message,
        /another name \(a hard link or a bind mount\) of termbridge's own/,
      );
      assert.equal(readFileSync(config, "utf8"), user);

      const other = await write(serve, join(dir, "ws", "other.txt"), "changed");
      assert.equal((other.error as Refusal)?.code, -32003, JSON.stringify(other));
      assert.match((other.error as Refusal).data.message, /has 2 names \(hard links\)/);
      assert.equal(readFileSync(join(dir, "outside.txt"), "utf8"), "mine");

      const plain = await write(serve, join(dir, "ws", "plain.txt"), "fine");
      assert.deepEqual(plain.result, {}, JSON.stringify(plain));
    }, (dir) => {
      mkdirSync(join(dir, "config", "termbridge"), { recursive: true });
      mkdirSync(join(dir, "ws"));
      const config = join(dir, "config", "termbridge", "termbridge.jsonc");
      writeFileSync(config, user);
      linkSync(config, join(dir, "ws", "notes.txt"));
      writeFileSync(join(dir, "outside.txt"), "mine");
      linkSync(join(dir, "outside.txt"), join(dir, "ws", "other.txt"));
    });
  });

  nodeIt(
    "own files: a bind mount of the user's config is refused as the config (by device and inode)",
    { timeout: 120_000, skip: canBindMount() ? false : "needs root and unshare -m" },
    () => {
      const { dir, env } = markerWorkspace({}, "termbridge-own-");
      try {
        const config = join(dir, "config", "termbridge", "termbridge.jsonc");
        mkdirSync(join(dir, "config", "termbridge"), { recursive: true });
        writeFileSync(config, "{}\n");
        const bound = join(dir, "bound.txt");
        writeFileSync(bound, "");
        const { command, args } = termbridgeCommand();
        const request = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "fs/write_text_file",
          params: { sessionId: S, path: bound, content: '{ "trust": ["/"] }' },
        });
        const run = spawnSync("unshare", [
          "-m",
          "sh",
          "-c",
          'mount --bind "$1" "$2" && shift 2 && exec "$@"',
          "sh",
          config,
          bound,
          command,
          ...args,
          "serve",
        ], { cwd: dir, env, input: `${request}\n`, encoding: "utf8", timeout: 60_000 });
        const answer = JSON.parse(run.stdout.split("\n")[0] || "{}");
        assert.equal(answer.error?.code, -32003, run.stdout + run.stderr);
        assert.match(answer.error.data.message, /a bind mount\) of termbridge's own/);
        assert.equal(readFileSync(config, "utf8"), "{}\n");
      } finally {
        removeDir(dir);
      }
    },
  );

  it("own files: the audit log's rotated files are refused as the log is", async () => {
    await withWorkspace({}, async (serve, dir) => {
      const logs = join(dir, "state", "termbridge");
      for (const name of ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.3", "audit.jsonl.12"]) {
        const answer = await write(
          serve,
          join(logs, name),
          '{"event":"command","line":"forged"}\n',
        );
        const error = answer.error as Refusal;
        assert.equal(error?.code, -32003, `${name}: ${JSON.stringify(answer)}`);
        assert.match(error.data.message, /termbridge's own configuration or audit log/);
      }
      assert.equal(readFileSync(join(logs, "audit.jsonl.1"), "utf8"), "old\n");
      assert.equal(existsSync(join(logs, "audit.jsonl.12")), false);
      // Not a rotation: an ordinary file beside the log.
      assert.deepEqual((await write(serve, join(logs, "audit.jsonl.txt"))).result, {});
    }, (dir) => {
      mkdirSync(join(dir, "state", "termbridge"), { recursive: true });
      writeFileSync(join(dir, "state", "termbridge", "audit.jsonl.1"), "old\n");
    });
  });

  it("own files: a termbridge.jsonc anywhere below a trusted directory is refused; an untrusted one's is written", async () => {
    await withWorkspace({}, async (serve, dir) => {
      const loosen = '{ "sandbox": { "mode": "off" }, "policy": { "default": "allow" } }';
      for (const sub of ["trusted/sub", "trusted/sub/deeper", "trusted"]) {
        const path = join(dir, sub, "termbridge.jsonc");
        const answer = await write(serve, path, loosen);
        const error = answer.error as Refusal;
        assert.equal(error?.code, -32003, `${sub}: ${JSON.stringify(answer)}`);
        assert.match(error.data.message, /configuration of a trusted directory/);
        assert.equal(existsSync(path), false);
      }
      // An untrusted directory's config may only tighten what is in force: nothing to guard.
      const untrusted = join(dir, "untrusted", "termbridge.jsonc");
      assert.deepEqual((await write(serve, untrusted, loosen)).result, {});
    }, (dir) => {
      mkdirSync(join(dir, "config", "termbridge"), { recursive: true });
      writeFileSync(
        join(dir, "config", "termbridge", "termbridge.jsonc"),
        JSON.stringify({ trust: [join(dir, "trusted")] }),
      );
      mkdirSync(join(dir, "trusted", "sub", "deeper"), { recursive: true });
      mkdirSync(join(dir, "untrusted"));
    });
  });

  it("own files: LINK/.. is the kernel's directory (the link target's parent), not the text's", async () => {
    await withWorkspace({}, async (serve, dir) => {
      const answer = await write(serve, `${dir}/ws/outlink/../ws/f`, "kernel");
      assert.deepEqual(answer.result, {}, JSON.stringify(answer));
      assert.equal(readFileSync(join(dir, "ws", "f"), "utf8"), "kernel");
      assert.equal(existsSync(join(dir, "ws", "ws", "f")), false);
      const read = await serve.request("fs/read_text_file", {
        sessionId: S,
        path: `${dir}/ws/outlink/../ws/f`,
      });
      assert.deepEqual(read.result, { content: "kernel" });
    }, (dir) => {
      mkdirSync(join(dir, "ws", "ws"), { recursive: true });
      mkdirSync(join(dir, "out"));
      symlinkSync(join(dir, "out"), join(dir, "ws", "outlink"));
    });
  });

  it("own files: a name with a newline is read and written under the globs; a refusal says the real reason", async () => {
    await withWorkspace({ policy: { write: ["${cwd}/ws/**"] } }, async (serve, dir) => {
      const odd = join(dir, "ws", "a\nb.txt");
      const read = await serve.request("fs/read_text_file", { sessionId: S, path: odd });
      assert.deepEqual(read.result, { content: "hi\n" }, JSON.stringify(read));
      assert.deepEqual((await write(serve, odd, "new")).result, {});
      assert.equal(readFileSync(odd, "utf8"), "new");
      const outside = await write(serve, join(dir, "c\nd.txt"));
      const error = outside.error as Refusal;
      assert.equal(error?.code, -32003, JSON.stringify(outside));
      assert.ok(error.data.message.includes(`c\\nd.txt" matches none of the write globs`));
    }, (dir) => {
      mkdirSync(join(dir, "ws"));
      writeFileSync(join(dir, "ws", "a\nb.txt"), "hi\n");
    });
  });
});
