/**
 * A user's report: a program running in a session could answer the shell's
 * typed-line check itself. It opened the answer FIFO (its path is in the
 * session's environment), read termbridge's "NONCE deny ..." and wrote
 * "NONCE allow" back, and the refused line ran (4 of 5 tries, through the
 * built binary). Now an answer that lets a line run carries a one-time token
 * that only ever travels on the terminal's output, which termbridge keeps out
 * of everything a program could read (the raw log, recordings).
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it, itWhen } from "../harness.ts";
import { spawnSync } from "node:child_process";
import { BINARY_CURRENT, inWorld, type World } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";
const DENY_TOUCH = '{ "policy": { "deny": ["touch"] } }';
const SHELLS = ["bash", ...(spawnSync("zsh", ["-c", "true"]).status === 0 ? ["zsh"] : [])];

/**
 * Reads the shell's standard output and answers every request it finds there
 * "allow" with the request's own token (logged).
 */
const READER = `
import os, re, sys
log = open(sys.argv[1], "a", buffering=1)
buf = b""
while True:
    b = os.read(0, 65536)
    if not b: break
    buf += b
    for m in re.finditer(rb"\\x1b\\]6973;check;([0-9a-f]+);.*?;([0-9a-f]+)\\x07", buf, re.S):
        fd = os.open(os.environ["TERMBRIDGE_LINE_DIR"] + "/reply", os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, m.group(1) + b" allow " + m.group(2) + b"\\n")
        os.close(fd)
        log.write("forged\\n")
    buf = buf[-65536:]
`;

/** A fake od: a known nonce and token, and "allow" with them once the shell opens the FIFO. */
const FAKE_OD = `#!/bin/sh
N=aaaaaaaaaaaaaaaaaaaaaaaa T=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
( printf '%s allow %s\\n' $N $T > "$TERMBRIDGE_LINE_DIR/reply" ) >/dev/null 2>&1 </dev/null &
echo "$N$T"; echo ran >> "$(dirname "$0")/od.log"
`;

/** Reads every answer on the FIFO and turns each refusal into "allow" (logged). */
const FORGER = `
import os, re, sys
fd = os.open(os.environ["TERMBRIDGE_LINE_DIR"] + "/reply", os.O_RDWR)
log = open(sys.argv[1], "a", buffering=1)
buf = b""
while True:
    buf += os.read(fd, 4096)
    while b"\\n" in buf:
        line, buf = buf.split(b"\\n", 1)
        m = re.match(rb"([0-9a-f]+) deny", line)
        if m:
            os.write(fd, m.group(1) + b" allow\\n")
            log.write("forged\\n")
        else:
            os.write(fd, line + b"\\n")
`;

/** Types `line` and Enter into session `name`, and waits for the prompt. */
async function typeLine(world: World, name: string, line: string): Promise<void> {
  await world.ok(["type", name, "--", line]);
  await world.ok(["key", name, "Enter"]);
  await world.ok(["wait", name, "prompt"]);
}

describe("session server: the typed-line check cannot be answered from inside the session", () => {
  it("a program that rewrites the shell's answers cannot make a refused line run", () =>
    inWorld(BUILD, async (world) => {
      world.configure(DENY_TOUCH);
      const script = join(world.dir, "forge.py");
      const log = join(world.dir, "forge.log");
      writeFileSync(script, FORGER);
      await world.ok(["new", "s"]);
      await world.ok(["exec", "s", `python3 ${script} ${log} & sleep 0.3`]);
      // The forger and the shell race for each answer: try until it has rewritten some.
      const forged = () => existsSync(log) && /forged/.test(readFileSync(log, "utf8"));
      let tries = 0;
      for (; tries < 10 && (tries < 3 || !forged()); tries++) {
        await typeLine(world, "s", `touch ${world.dir}/ran${tries}`);
      }
      assert.ok(forged(), "the forger never got to answer");
      const screen = await world.ok(["screen", "s", "--all"]);
      for (let i = 0; i < tries; i++) assert.equal(existsSync(join(world.dir, `ran${i}`)), false);
      // Each line refused: by the policy, or as unanswered when the forger took the answer.
      assert.equal(screen.match(/^termbridge: /gm)?.length, tries, screen);
      // The session still works for lines the policy allows.
      assert.equal(await world.ok(["exec", "s", "echo fine"]), "fine\n");
    }));

  it("the request with its token stays out of recordings; odd lines and many aliases still work", () =>
    inWorld(BUILD, async (world) => {
      world.configure(DENY_TOUCH);
      const cast = join(world.dir, "s.cast");
      await world.ok(["new", "s", "--record", cast]);
      // More aliases than the terminal's old 4 KiB mark limit, one with ; and a newline.
      await world.ok([
        "exec",
        "s",
        "for i in $(seq 400); do alias al$i=\"echo alias-$i\"; done; alias zz=$'echo a; touch z\\n'",
      ]);
      await typeLine(world, "s", "al377");
      await typeLine(world, "s", 'echo "semi;colon back\\slash"');
      await typeLine(world, "s", "zz");
      const screen = await world.ok(["screen", "s"]);
      assert.match(screen, /^alias-377$/m);
      assert.match(screen, /^semi;colon back\\slash$/m);
      assert.match(screen, /termbridge: Denied by policy/); // zz's alias is seen through
      assert.equal(existsSync(join(world.dir, "z")), false);
      await world.ok(["close", "s"]);
      const recorded = readFileSync(cast, "utf8");
      assert.match(recorded, /alias-377/);
      assert.doesNotMatch(recorded, /6973/);
    }));

  for (const shell of SHELLS) {
    it(`${shell}: a line that sends the shell's output elsewhere does not take the request with it`, () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const reader = join(world.dir, "reader.py");
        const log = join(world.dir, "reader.log");
        writeFileSync(reader, READER);
        await world.ok(["new", "s", "--", shell]);
        // The prompt's own marks go there too: wait for the refusal (on stderr) instead.
        await world.ok(["type", "s", "--", `exec > >(python3 ${reader} ${log})`]);
        await world.ok(["key", "s", "Enter"]);
        await world.ok(["wait", "s", "idle"]);
        await world.ok(["type", "s", "--", `touch ${world.dir}/ran`]);
        await world.ok(["key", "s", "Enter"]);
        await world.ok(["wait", "s", "text", "Denied by policy"]);
        assert.equal(existsSync(join(world.dir, "ran")), false);
        assert.equal(existsSync(log) && /forged/.test(readFileSync(log, "utf8")), false);
      }));

    it(`${shell}: a request with odd characters never shows on the screen`, () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        await world.ok(["new", "s", "--", shell]);
        // U+0085 ends an OSC string in xterm: the rest of the request would be drawn as text.
        await world.ok(["exec", "s", "alias zz=$'\\xc2\\x85'"]);
        await typeLine(world, "s", `touch ${world.dir}/ran`);
        const screen = await world.ok(["screen", "s", "--logical"]);
        assert.match(screen, /Denied by policy/);
        assert.doesNotMatch(screen, /6973|check;|;[0-9a-f]{16,}/);
        assert.equal(existsSync(join(world.dir, "ran")), false);
      }));
  }

  itWhen(
    SHELLS.includes("zsh"),
    "zsh: the nonce and token come from no program a line can replace",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const evil = join(world.dir, "evil");
        mkdirSync(evil);
        writeFileSync(join(evil, "od"), FAKE_OD, { mode: 0o755 });
        await world.ok(["new", "z", "--", "zsh"]);
        await typeLine(world, "z", `hash od=${evil}/od`);
        assert.match(
          await world.ok(["screen", "z", "--logical"]),
          /binds a command name to a file/,
        );
        // Whether or not the policy lets PATH change (it asks, and nobody answers here).
        await typeLine(world, "z", `export PATH=${evil}:/usr/bin:/bin`);
        await typeLine(world, "z", `touch ${world.dir}/ran`);
        assert.equal(existsSync(join(world.dir, "ran")), false);
        assert.equal(existsSync(join(evil, "od.log")), false);
      }),
  );

  it("bash: hash -p, which binds a name to another file, is refused", () =>
    inWorld(BUILD, async (world) => {
      world.configure(DENY_TOUCH);
      await world.ok(["new", "b"]);
      await typeLine(world, "b", "hash -p /usr/bin/env ls");
      assert.match(await world.ok(["screen", "b", "--logical"]), /binds a command name to a file/);
    }));
});
