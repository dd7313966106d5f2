/**
 * Issue 16 items 13-18, through the built binary (the sources when it is
 * not current): literal text, help keys and -v, wait's capture groups,
 * colours, per-client read cursors, config defaults, ls without a server.
 * @module
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "../harness.ts";
import { DEFAULT_MAX_READ_BYTES } from "../../lib/service/text_files.ts";
import { DEFAULT_RESULT_LIMIT } from "../../lib/mcp/result_size.ts";
import { BINARY_CURRENT, inWorld } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";
const ESC = String.fromCharCode(0x1b);
/** Red text as SGR writes it: ESC [ ...31... m (built without a control character in a regex). */
const RED = new RegExp(`${ESC}\\[[0-9;]*31[0-9;]*mred-text`);

describe("session server: what tmux users reach for", () => {
  it("type takes text that starts with a dash after -- or with --literal", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "s"]);
      await world.ok(["type", "s", "--", "-n"]);
      await world.ok(["wait", "s", "regex", "[$#] -n$"]);
      await world.ok(["key", "s", "C-u"]);
      await world.ok(["type", "s", "--literal", "echo", "-e", "lit-$((2*3))\n"]);
      await world.ok(["wait", "s", "regex", "^lit-6$"]);
      const refused = await world.tb(["type", "s"]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /give the text/);
      // A user's report: text with a quote in it was typed shell-quoted, 'echo '\''a b'\'''.
      await world.ok(["type", "s", `echo 'quoted  text' "and $((6*7))"\n`]);
      await world.ok(["wait", "s", "regex", "^quoted  text and 42$"]);
      await world.ok(["type", "s", "--literal", "echo", `"it's"\n`]);
      await world.ok(["wait", "s", "regex", "^it's$"]);
    }));

  it("help keys lists the key names, -v is --version, wait --json has the capture groups", () =>
    inWorld(BUILD, async (world) => {
      const keys = await world.ok(["help", "keys"]);
      assert.match(keys, /ArrowUp/);
      assert.match(keys, /C-c/);
      assert.match(await world.ok(["-v"]), /^termbridge \d/);
      await world.ok(["new", "w"]);
      await world.ok(["exec", "w", "echo port=80$((40+40)) host=example"]);
      const waited = JSON.parse(
        await world.ok(["wait", "w", "regex", "^port=(\\d+) host=(?<host>\\w+)$", "--json"]),
      );
      assert.equal(waited.match, "port=8080 host=example");
      assert.deepEqual(waited.groups, ["8080", "example"]);
      assert.deepEqual(waited.namedGroups, { host: "example" });
    }));

  it("key's refusals name the command line's commands; its options go anywhere", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "k"]);
      // A user's report: 'Type "help keys"' and "Usage: key KEY..." are the REPL's words.
      const unknown = await world.tb(["key", "k", "f13"]);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /did you mean "F10"\? Type "termbridge help keys"/);
      assert.doesNotMatch(unknown.stderr, /Usage: key/);
      // --json after the keys was taken for a key, and the error was not JSON.
      const json = await world.tb(["key", "k", "f13", "--json"]);
      assert.equal(json.code, 2);
      assert.equal(JSON.parse(json.stdout).error.problem, "usage");
      assert.deepEqual(JSON.parse(await world.ok(["key", "k", "C-u", "--json"])), {});
      // A user's report: the examples were the REPL's ("e.g. key Enter", "e.g. type ls -la").
      const cases: [string[], RegExp][] = [
        [["key", "k"], /e\.g\. termbridge key NAME Enter/],
        [["type", "k", ""], /e\.g\. termbridge type NAME ls -la/],
        [["wait", "k", "text"], /e\.g\. termbridge wait NAME text ready/],
      ];
      for (const [args, example] of cases) {
        const run = await world.tb(args);
        assert.equal(run.code, 2, args.join(" "));
        assert.match(run.stderr, example, args.join(" "));
      }
      // A timeout longer than a timer can wait was an instant timeout ("Timed out after
      // 2147484000 ms"): it is refused.
      const forever = await world.tb(["wait", "k", "text", "NOPE", "--timeout", "2147484"]);
      assert.equal(forever.code, 2);
      assert.match(forever.stderr, /at most 2147483 s/);
    }));

  it("exec with no command and nothing running is a bad command line, not an unknown exit code", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "e"]);
      // A user's report: exit 120, "has no shell integration", in a bash session.
      for (const args of [["exec", "e"], ["exec", "e", ""]]) {
        const nothing = await world.tb(args);
        assert.equal(nothing.code, 2);
        assert.match(nothing.stderr, /nothing is running in session "e"/);
        assert.doesNotMatch(nothing.stderr, /shell integration/);
      }
      // A command still running after --timeout is collected, with its own exit code.
      assert.equal(
        (await world.tb(["exec", "e", "--timeout", "0.2", "sleep 1; (exit 3)"])).code,
        124,
      );
      assert.equal((await world.tb(["exec", "e", "--timeout", "5", ""])).code, 3);
    }));

  it("screen --ansi and shot --ansi keep the colours", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "c"]);
      await world.ok(["exec", "c", "printf '\\033[31mred-text\\033[0m\\n'"]);
      const plain = await world.ok(["screen", "c"]);
      assert.match(plain, /^red-text$/m);
      assert.equal(plain.includes(ESC), false);
      assert.match(await world.ok(["screen", "c", "--ansi"]), RED);
      const shot = JSON.parse(await world.ok(["shot", "c", "--ansi"]));
      assert.match(shot.content, RED);
      assert.equal((await world.tb(["screen", "c", "--ansi", "--all"])).code, 2);
    }));

  it("read --cursor NAME keeps each client's position; --since N reads from a position", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "r"]);
      await world.ok(["read", "r", "--cursor", "a"]);
      await world.ok(["read", "r", "--cursor", "b"]);
      await world.ok(["exec", "r", "echo first-$((1))"]);
      assert.match(await world.ok(["read", "r", "--cursor", "a"]), /^first-1$/m);
      await world.ok(["exec", "r", "echo second-$((2))"]);
      const b = await world.ok(["read", "r", "--cursor", "b"]);
      assert.match(b, /^first-1$/m, "a's read did not take b's output");
      assert.match(b, /^second-2$/m);
      const a = await world.ok(["read", "r", "--cursor", "a"]);
      assert.doesNotMatch(a, /first-1/);
      assert.match(a, /^second-2$/m);
      const { totalBytes } = JSON.parse(await world.ok(["read", "r", "--json"]));
      await world.ok(["exec", "r", "echo third-$((3))"]);
      const since = await world.ok(["read", "r", "--since", String(totalBytes)]);
      assert.match(since, /^third-3$/m);
      assert.doesNotMatch(since, /second-2/);
    }));

  it("read --follow prints output as it comes until the program exits", () =>
    inWorld(BUILD, async (world) => {
      await world.ok([
        "new",
        "f",
        "--",
        "sh",
        "-c",
        "read go; for i in 1 2 3; do echo tick-$i; sleep 0.2; done",
      ]);
      const following = world.tb(["read", "f", "--follow"]);
      await world.ok(["type", "f", "go\n"]);
      const run = await following;
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /tick-1\n[^]*tick-2\n[^]*tick-3\n/);
    }));

  it("config shows the real defaults; ls without a server says so and starts none", () =>
    inWorld(BUILD, async (world) => {
      const config = await world.ok(["config"]);
      assert.match(config, new RegExp(`^maxReadBytes\\s+${DEFAULT_MAX_READ_BYTES}\\s`, "m"));
      assert.match(config, new RegExp(`^mcpResultLimit\\s+${DEFAULT_RESULT_LIMIT}\\s`, "m"));
      const ls = await world.tb(["ls"]);
      assert.equal(ls.code, 0);
      assert.equal(ls.stdout, "");
      assert.match(ls.stderr, /no server is running on /);
      assert.equal(existsSync(world.socket), false, "ls started no server");
      assert.deepEqual(JSON.parse(await world.ok(["ls", "--json"])), {
        sessions: [],
        server: null,
      });
      const extra = await world.tb(["ls", "extra"]);
      assert.equal(extra.code, 2);
      assert.match(extra.stderr, /it takes no arguments/);
    }));
});
