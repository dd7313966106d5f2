/**
 * File access rules: paths normalised, symlinks resolved (as far as they
 * exist; a new file by its parent), `..` cannot escape, `~` and `${cwd}`
 * expand in globs.
 * @module
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPolicy } from "../../lib/policy/mod.ts";
import type { PolicyContext } from "../../lib/policy/mod.ts";

let root = "";
let work = "";
let outside = "";
let context: PolicyContext;

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "tb-paths-")));
  work = join(root, "work");
  outside = join(root, "outside");
  mkdirSync(join(work, "src"), { recursive: true });
  mkdirSync(outside);
  mkdirSync(join(root, "home"));
  writeFileSync(join(work, "src", "a.txt"), "a");
  writeFileSync(join(outside, "secret"), "s");
  symlinkSync(outside, join(work, "escape")); // A directory link out of the workspace.
  symlinkSync(join(outside, "secret"), join(work, "secret-link")); // A file link out.
  symlinkSync(join(work, "src"), join(root, "home", "into-work")); // A link into it.
  context = { cwd: work, env: { HOME: join(root, "home") } };
});
after(() => rmSync(root, { recursive: true, force: true }));

describe("policy: paths", () => {
  const rules = () =>
    createPolicy({ read: ["${cwd}/**", "~/notes/*.md"], write: ["${cwd}/src/**"] });

  const reads: [string, () => string, "allow" | "deny"][] = [
    ["a file in the workspace", () => join(work, "src", "a.txt"), "allow"],
    ["relative to the cwd", () => "src/a.txt", "allow"],
    ["the workspace itself", () => work, "allow"],
    ["outside", () => join(outside, "secret"), "deny"],
    [".. out of the workspace", () => join(work, "..", "outside", "secret"), "deny"],
    ["relative .. out", () => "../outside/secret", "deny"],
    ["many .. past the root", () => "../../../../../../etc/passwd", "deny"],
    ["a directory link out", () => join(work, "escape", "secret"), "deny"],
    ["a file link out", () => join(work, "secret-link"), "deny"],
    [
      ".. through a link goes up from its target",
      () => join(work, "escape", "..", "work", "src", "a.txt"),
      "allow",
    ],
    // Lexically work/outside/secret (inside); the kernel goes up from escape's target, root.
    [".. after a directory link out", () => `${work}/escape/../outside/secret`, "deny"],
    ["relative .. after a directory link out", () => "escape/../outside/secret", "deny"],
    [
      "a link from outside into the workspace",
      () => join(root, "home", "into-work", "a.txt"),
      "allow",
    ],
    ["~ in the path and the glob", () => "~/notes/todo.md", "allow"],
    ["a glob is not a prefix", () => "~/notes/todo.txt", "deny"],
    ["a file that does not exist yet", () => join(work, "src", "new", "b.txt"), "allow"],
    ["a new file below a link out", () => join(work, "escape", "new.txt"), "deny"],
  ];
  for (const [name, path, decision] of reads) {
    test(`read: ${name}`, () => {
      const verdict = rules().checkRead(path(), context);
      assert.equal(verdict.decision, decision, verdict.reason);
      if (decision === "deny") assert.equal(verdict.rule, null);
      else assert.notEqual(verdict.rule, null);
    });
  }

  test("the verdict gives the path as opened: links resolved, .. applied", () => {
    const verdict = rules().checkRead(join(work, "escape", "secret"), context);
    assert.equal(verdict.path, join(outside, "secret"));
    assert.match(
      verdict.reason,
      /matches none of the read globs: "\$\{cwd\}\/\*\*", "~\/notes\/\*\.md"/,
    );
  });

  test("write globs are their own list", () => {
    assert.equal(rules().checkWrite(join(work, "src", "a.txt"), context).decision, "allow");
    const verdict = rules().checkWrite(join(work, "README"), context);
    assert.equal(verdict.decision, "deny");
    assert.match(verdict.reason, /write globs/);
  });

  test("a ${cwd} with glob characters in its name is taken literally", () => {
    const odd = join(root, "odd [dir] (1)");
    mkdirSync(odd);
    const policy = createPolicy({ write: ["${cwd}/**"] });
    const inside = policy.checkWrite("f.txt", { cwd: odd, env: {} });
    assert.equal(inside.decision, "allow", inside.reason);
    const sibling = policy.checkWrite(join(root, "odd d (1)", "f.txt"), { cwd: odd, env: {} });
    assert.equal(sibling.decision, "deny");
  });

  test("LINK/.. is the parent of the link's target, as the kernel opens it, not text removed", () => {
    // escape -> outside, so escape/.. is root (the kernel's), not work (path.resolve's).
    const through = rules().checkRead(`${work}/escape/../work/src/a.txt`, context);
    assert.equal(through.path, join(work, "src", "a.txt"));
    assert.equal(through.decision, "allow", through.reason);
    const relative = rules().checkRead("escape/../outside/secret", context);
    assert.equal(relative.path, join(outside, "secret"));
    assert.equal(relative.decision, "deny", relative.reason);
    // A link whose target does not exist yet: its own `..` is taken from where it points.
    symlinkSync("../../outside/later/deeper", join(work, "src", "dangling"));
    const dangling = rules().checkWrite(`${work}/src/dangling/../x.txt`, context);
    assert.equal(dangling.path, `${outside}/later/deeper/../x.txt`);
    assert.equal(dangling.decision, "deny", dangling.reason);
  });

  test("after a directory that is not there, .. stays in the path (opening it fails, as the kernel's)", () => {
    const verdict = rules().checkWrite(`${work}/src/missing/../b.txt`, context);
    assert.equal(verdict.path, `${work}/src/missing/../b.txt`);
    assert.equal(verdict.decision, "allow", verdict.reason); // Judged where it would lead.
    const file = rules().checkWrite(`${work}/src/a.txt/../b.txt`, context);
    assert.equal(file.path, `${work}/src/a.txt/../b.txt`, "a file is no directory to leave");
  });

  test("a newline (or any control character) in a name is a name character to the globs", () => {
    const odd = join(work, "src", "a\nb\tc\x1b.txt");
    writeFileSync(odd, "odd");
    const everywhere = createPolicy({ read: ["/**"], write: ["${cwd}/src/*"] });
    const read = everywhere.checkRead(odd, context);
    assert.equal(read.decision, "allow", read.reason);
    assert.equal(read.path, odd);
    assert.equal(everywhere.checkWrite(odd, context).decision, "allow");
    assert.equal(rules().checkRead(odd, context).decision, "allow");
    const refused = everywhere.checkWrite(join(work, "x\ny"), context);
    assert.equal(refused.decision, "deny");
    assert.ok(
      !refused.reason.includes("\n"),
      `the reason shows the name escaped: ${refused.reason}`,
    );
    assert.match(refused.reason, /x\\ny" matches none of the write globs/);
  });

  test("no globs configured: everything allowed, and said so", () => {
    const verdict = createPolicy({}).checkWrite("/etc/passwd", context);
    assert.equal(verdict.decision, "allow");
    assert.match(verdict.reason, /no write globs/);
  });
});
