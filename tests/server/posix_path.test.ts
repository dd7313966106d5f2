/**
 * lib/server/posix_path.ts (the subcommands' path operations without
 * node:path) gives what node:path gives, but for trailing slashes, which it
 * never keeps; and runtime.lstat, which replaced node:fs's lstatSync there.
 * @module
 */

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import * as node from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { basename, dirname, join, normalize, resolve } from "../../lib/server/posix_path.ts";
import { describe, it } from "../harness.ts";

const PATHS = [
  "/",
  "//",
  "/a",
  "/a/",
  "/a//b/./c/..",
  "/../a",
  "/a/b/../../..",
  "a",
  "a/b",
  "./a",
  "../a/b",
  "a/../..",
  "a/./b/",
  ".",
  "..",
  "",
  "/run/user/0/termbridge/default.sock",
];

/** node:path's answer without a trailing slash (ours never keeps one). */
const untrailed = (path: string) => path.length > 1 ? path.replace(/\/+$/, "") : path;

describe("server: posix paths without node:path", () => {
  it("normalize, join, resolve, dirname and basename agree with node:path", () => {
    for (const path of PATHS) {
      assert.equal(normalize(path), untrailed(node.posix.normalize(path)), `normalize ${path}`);
      assert.equal(dirname(path), node.posix.dirname(path), `dirname ${path}`);
      assert.equal(basename(path), node.posix.basename(path), `basename ${path}`);
      assert.equal(resolve(path, "/home/u/w"), node.posix.resolve("/home/u/w", path), path);
      assert.equal(join("/x", path, "y.sock"), node.posix.join("/x", path, "y.sock"), path);
      assert.equal(join(path, "termbridge"), node.posix.join(path, "termbridge"), path);
    }
  });

  it("runtime.lstat: kind, owner and mode; a link is not followed; ENOENT when missing", () => {
    const dir = mkdtempSync(node.join(tmpdir(), "termbridge-lstat-"));
    try {
      mkdirSync(node.join(dir, "d"));
      chmodSync(node.join(dir, "d"), 0o1751);
      writeFileSync(node.join(dir, "f"), "", { mode: 0o640 });
      symlinkSync(node.join(dir, "d"), node.join(dir, "l"));
      const uid = process.getuid!();
      assert.deepEqual(runtime.lstat(node.join(dir, "d")), {
        kind: "directory",
        uid,
        mode: 0o1751,
      });
      assert.deepEqual(runtime.lstat(node.join(dir, "f")), { kind: "file", uid, mode: 0o640 });
      assert.equal(runtime.lstat(node.join(dir, "l")).kind, "symlink");
      assert.throws(() => runtime.lstat(node.join(dir, "none")), { code: "ENOENT" });
      assert.throws(() => runtime.lstat(node.join(dir, "f", "x")), { code: "ENOTDIR" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
