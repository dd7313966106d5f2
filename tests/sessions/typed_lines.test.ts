/**
 * Typed lines: in a real bash and a real zsh, a line the policy refuses is not
 * run however it reaches the shell (exec, type + Enter, Up-arrow history
 * recall, arrow-key editing, bracketed paste, keys one by one, a command
 * continued over lines, an alias); the shell says why and stays usable. The
 * marker file the refused command would create must not exist.
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { createPolicy } from "../../lib/policy/mod.ts";
import { Guard } from "../../lib/safety/guard.ts";
import { shellParses } from "../../lib/policy/parser.ts";
import type { ApprovalRequest } from "../../lib/safety/types.ts";
import type { Session } from "../../lib/sessions/session.ts";
import type { TypedLine, TypedLineCheck } from "../../lib/sessions/typed_lines.ts";
import { TIMEOUT_MS, withSessions } from "./_kit.ts";

const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);

/** `touch` is the marker program the policy denies. */
function denyTouch(seen: TypedLine[] = []): TypedLineCheck {
  const policy = createPolicy({ deny: ["touch"] });
  return async (typed) => {
    seen.push(typed);
    const verdict = await policy.checkLine(typed.line, {
      cwd: typed.cwd,
      env: { PATH: typed.path, HOME: typed.cwd },
      aliases: typed.aliases,
      globalAliases: typed.globalAliases,
    });
    return {
      allowed: verdict.decision === "allow",
      message: `Denied by policy: ${verdict.reason}`,
    };
  };
}

const SHELLS = ["bash", ...(spawnSync("zsh", ["-c", "true"]).status === 0 ? ["zsh"] : [])];

/** Waits until the refusal for the `count`-th time is on the screen and the prompt is back. */
async function refused(session: Session, count = 1): Promise<void> {
  await session.wait(
    { regex: `(termbridge: Denied by policy[^]*){${count}}`, scope: "all" },
    TIMEOUT_MS,
  );
  await session.wait({ prompt: true }, TIMEOUT_MS);
}

for (const shell of SHELLS) {
  describe(`sessions: typed lines in ${shell}`, () => {
    const open = async (
      kit: { open: (name: string, options: object) => Promise<Session>; home: string },
      seen?: TypedLine[],
    ) => await kit.open(shell, { program: [shell], lineCheck: denyTouch(seen) });

    it(`${shell}: exec of a denied line does not run it; the reason comes back, exit 126`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m1");
        const result = await session.exec(`echo before; touch ${marker}`, TIMEOUT_MS);
        assert.equal(result.exitCode, 126);
        assert.match(
          result.output,
          /termbridge: Denied by policy: "touch .*m1" matches deny rule "touch"/,
        );
        assert.equal(existsSync(marker), false);
        const after = await session.exec("echo still usable", TIMEOUT_MS);
        assert.equal(after.output, "still usable\n");
      });
    });

    it(`${shell}: a checked line is parsed once (tamper, completeness and policy checks share it)`, async () => {
      await withSessions(async (kit) => {
        const seen: TypedLine[] = [];
        const session = await open(kit, seen);
        await session.exec("echo warm", TIMEOUT_MS); // Loads the parser.
        const before = shellParses();
        const checked = seen.length;
        const result = await session.exec(`echo parsed once in ${shell}`, TIMEOUT_MS);
        assert.equal(result.output, `parsed once in ${shell}\n`);
        assert.equal(seen.length, checked + 1, "the line was checked");
        assert.equal(shellParses() - before, 1);
        // Still refused: sharing the tree keeps every check.
        const denied = await session.exec(`touch ${join(kit.home, "m0")}`, TIMEOUT_MS);
        assert.equal(denied.exitCode, 126);
      });
    });

    it(`${shell}: type + Enter, then Up-arrow recall + Enter: refused both times`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m2");
        session.type(`touch ${marker}`);
        session.keys(["Enter"]);
        await refused(session);
        session.keys(["ArrowUp"]);
        await session.wait({ text: `touch ${marker}`, scope: "all" }, TIMEOUT_MS);
        session.keys(["Enter"]);
        await refused(session, 2);
        assert.equal(existsSync(marker), false);
      });
    });

    it(`${shell}: Ctrl+O (which also runs the line) is checked too`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m9");
        session.type(`touch ${marker}`);
        session.keys(["C-o"]);
        // bash no longer binds it (nothing runs); zsh runs it through the check.
        await session.wait({ idleMs: 300 }, TIMEOUT_MS);
        session.keys(["C-u"]);
        assert.equal(existsSync(marker), false);
        const after = await session.exec("echo ok", TIMEOUT_MS);
        assert.equal(after.output, "ok\n");
      });
    });

    it(`${shell}: keys that run a line without Enter (a widget by name, the old private key) do not skip the check`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m12");
        session.type(`touch ${marker}`);
        // zsh: Esc-x runs a widget by name; bash: the fixed key an older hook used to accept.
        if (shell === "zsh") {
          session.keys(["Escape", "x"]);
          session.type(".accept-line");
          session.keys(["Enter"]);
        } else {
          session.type("\x18\x1f\x01");
        }
        await session.wait({ idleMs: 300 }, TIMEOUT_MS);
        assert.equal(existsSync(marker), false);
        session.keys(["C-u"]);
        const after = await session.exec("echo ok", TIMEOUT_MS);
        assert.equal(after.output, "ok\n");
      });
    });

    it(`${shell}: a line made with arrow-key editing is checked as it ends up`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m3");
        // "ouch ..." is no command; moving to the start and typing "t" makes it a touch.
        const rest = `ouch ${marker}`;
        session.type(rest);
        session.keys(Array(rest.length).fill("ArrowLeft"));
        session.type("t");
        session.keys(["Enter"]);
        await refused(session);
        assert.equal(existsSync(marker), false);
      });
    });

    it(`${shell}: a bracketed paste of several lines is checked whole`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m4");
        session.type(`echo pasted\ntouch ${marker}\n`);
        session.keys(["Enter"]);
        await refused(session);
        assert.equal(existsSync(marker), false);
      });
    });

    it(`${shell}: keys sent one by one, Enter last`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m5");
        for (const char of `touch ${marker}`) session.keys([char === " " ? "Space" : char]);
        session.keys(["Enter"]);
        await refused(session);
        assert.equal(existsSync(marker), false);
      });
    });

    it(`${shell}: a command continued over lines is checked whole when it is complete`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m6");
        session.type("tou\\");
        session.keys(["Enter"]);
        session.type(`ch ${marker}`);
        session.keys(["Enter"]);
        await refused(session);
        assert.equal(existsSync(marker), false);
        // bash abandons the command as Ctrl+C would, and draws its prompt twice: let it settle.
        await session.wait({ idleMs: 300 }, TIMEOUT_MS);
        const after = await session.exec("echo ok", TIMEOUT_MS);
        assert.equal(after.output, "ok\n");
      });
    });

    it(`${shell}: exec right after a refused typed line runs itself and reports its own end`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m12");
        session.type(`touch ${marker}\r`);
        // No wait in between: exec must not take the refused line's end (126) as its own.
        const after = await session.exec("echo after", TIMEOUT_MS);
        assert.deepEqual([after.exitCode, after.output], [0, "after\n"]);
        assert.equal(existsSync(marker), false);
      });
    });

    it(`${shell}: the prompt is not back while the shell asks for the rest of a command`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        // The check answers "more": the line stays in the shell's editor with a newline (the
        // shell never reads it: no PS2) and a prompt wait begun now must end only at the prompt
        // after the whole command.
        session.type('echo "first\r');
        await session.wait({ regex: 'echo "first' }, TIMEOUT_MS);
        await session.wait({ idleMs: 300 }, TIMEOUT_MS);
        const prompt = session.wait({ prompt: true }, TIMEOUT_MS);
        session.type('second"\r');
        assert.match((await prompt).screen, /^first\nsecond$/m);
      });
    });

    it(`${shell}: a here-document typed line by line runs once complete, checked whole`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        const marker = join(kit.home, "m11");
        for (const line of ["sh <<'END'", `touch ${marker}`, "END"]) {
          session.type(line);
          session.keys(["Enter"]);
        }
        await refused(session);
        assert.equal(existsSync(marker), false);
        await session.wait({ idleMs: 300 }, TIMEOUT_MS);
        for (const line of ["cat <<'END'", "fine", "END"]) {
          session.type(line);
          session.keys(["Enter"]);
        }
        await session.wait({ regex: "\\nfine\\n", scope: "all" }, TIMEOUT_MS);
      });
    });

    itWhen(
      shell === "bash",
      `${shell}: a line the check took for complete that bash continues is checked with the rest`,
      async () => {
        await withSessions(async (kit) => {
          const seen: TypedLine[] = [];
          const allowAll: TypedLineCheck = (typed) => {
            seen.push(typed);
            return Promise.resolve({ allowed: true, message: "" });
          };
          const session = await kit.open(shell, { program: [shell], lineCheck: allowAll });
          await session.exec("shopt -s extglob", TIMEOUT_MS);
          // Without extglob (the check's parser) "@(a" is an error, not unfinished; bash with
          // extglob asks for the rest of the pattern, and gets "x)" with the line before it.
          session.type("echo @(a\r");
          await session.wait({ regex: "> ?$" }, TIMEOUT_MS);
          const prompt = session.wait({ prompt: true }, TIMEOUT_MS);
          session.type("x)\r");
          await prompt;
          assert.equal(seen.at(-1)?.line, "echo @(a\nx)");
        });
      },
      "bash only: extglob's unfinished pattern is bash's",
    );

    it(`${shell}: an alias that hides the program is seen through`, async () => {
      await withSessions(async (kit) => {
        const seen: TypedLine[] = [];
        // Defined where the user's own aliases are: an alias typed in the session is itself
        // checked (its text is run later), and "alias harmless=touch" is refused.
        writeFileSync(
          join(kit.home, shell === "zsh" ? ".zshrc" : ".bashrc"),
          "alias harmless=touch\n",
        );
        const session = await open(kit, seen);
        const marker = join(kit.home, "m7");
        const result = await session.exec(`harmless ${marker}`, TIMEOUT_MS);
        assert.equal(result.exitCode, 126, result.output);
        assert.equal(existsSync(marker), false);
        assert.equal(seen.at(-1)?.aliases.harmless, "touch");
      });
    });

    it(`${shell}: an alias ending in a blank, and (zsh) a global alias, are seen through`, async () => {
      await withSessions(async (kit) => {
        const marker = join(kit.home, "m8");
        // A user report: `e sneaky` and zsh's `echo GG` ran the touch the policy refuses.
        writeFileSync(
          join(kit.home, shell === "zsh" ? ".zshrc" : ".bashrc"),
          `alias e='echo '\nalias sneaky='; touch ${marker}'\nalias hh=touch\n` +
            (shell === "zsh" ? `alias -g GG='; touch ${marker}'\nalias -s txt=touch\n` : ""),
        );
        const session = await open(kit);
        // zsh's suffix alias: `./m8.txt` runs `touch ./m8.txt`.
        const lines = shell === "zsh" ? ["e sneaky", "echo GG", `${marker}.txt`] : ["e sneaky"];
        for (const line of lines) {
          const result = await session.exec(line, TIMEOUT_MS);
          assert.equal(result.exitCode, 126, `${line}: ${result.output}`);
        }
        // Nor can a line hide the aliases from the check by unsetting the shell's table.
        const table = shell === "zsh" ? "aliases galiases" : "BASH_ALIASES";
        await session.exec(`unset ${table}`, TIMEOUT_MS);
        const hidden = await session.exec(`hh ${marker}`, TIMEOUT_MS);
        assert.equal(hidden.exitCode, 126, hidden.output);
        assert.equal(existsSync(marker), false);
        assert.equal(existsSync(`${marker}.txt`), false);
        assert.equal((await session.exec("e plain", TIMEOUT_MS)).output, "plain\n");
      });
    });

    it(`${shell}: a line that would switch the check off is refused`, async () => {
      await withSessions(async (kit) => {
        const session = await open(kit);
        for (
          const line of [
            "unset TERMBRIDGE_LINE_CHECK __tb_fd",
            "history() { echo ls; }",
            "builtin() { :; }",
            "bind -r '\\C-m'",
          ]
        ) {
          const result = await session.exec(line, TIMEOUT_MS);
          assert.equal(result.exitCode, 126, line);
          assert.match(result.output, /typed-line check/);
        }
      });
    });
  });
}

describe("sessions: typed lines in a sandbox", () => {
  itWhen(
    hasBwrap,
    "bash in a read-only sandbox: the check still works (its directory is writable inside)",
    async () => {
      await withSessions(async (kit) => {
        const session = await kit.open("boxed", {
          program: ["bash"],
          lineCheck: denyTouch(),
          sandbox: { mode: "read-only", network: false },
        });
        const allowed = await session.exec("echo $((6*7))", 10_000);
        assert.equal(allowed.output, "42\n");
        const refused = await session.exec("touch /tmp/m8", 10_000);
        assert.equal(refused.exitCode, 126, refused.output);
        assert.match(refused.output, /Denied by policy/);
      });
    },
    "bubblewrap is not installed",
  );
});

/**
 * The kit's sessions have a HOME of their own, not termbridge's: opening one
 * is asked about (its start-up files come from there), and approved here.
 */
const OPENING = "bash";

describe("sessions: typed lines through the guard", () => {
  it("exec of a line the policy asks about asks once, not again when the shell checks it", async () => {
    await withSessions(async (kit) => {
      const asked: ApprovalRequest[] = [];
      const guard = new Guard({
        mode: "cli",
        policy: createPolicy({ ask: ["echo"], deny: ["touch"] }),
        approver: (request) => {
          if (request.subject !== OPENING) asked.push(request);
          return Promise.resolve({ approved: true, by: "test" });
        },
        audit: { enabled: false, record() {} },
      });
      const session = await kit.open("guarded", { program: ["bash"], guard });
      const result = await session.exec("echo approved once", TIMEOUT_MS);
      assert.equal(result.output, "approved once\n");
      assert.equal(asked.length, 1, JSON.stringify(asked.map((r) => r.subject)));
      // Typed by hand, the same line is asked about again: that approval was for the exec.
      // (Its echo and its output make the 3rd and 4th "approved once" on the screen.)
      session.type("echo approved once");
      session.keys(["Enter"]);
      await session.wait({ regex: "(approved once[^]*){4}", scope: "all" }, TIMEOUT_MS);
      assert.equal(asked.length, 2);
      const refused = await session.exec(`touch ${join(kit.home, "m10")}`, TIMEOUT_MS).catch((e) =>
        e
      );
      assert.match(String(refused.message ?? refused.output), /Denied by policy/);
      assert.equal(existsSync(join(kit.home, "m10")), false);
    });
  });

  it("an approval of exec covers only what was asked: an alias revealing another ask rule asks again", async () => {
    await withSessions(async (kit) => {
      const asked: string[] = [];
      const guard = new Guard({
        mode: "cli",
        policy: createPolicy({ ask: ["printf", "git push"] }),
        approver: (request) => {
          if (request.subject === OPENING) return Promise.resolve({ approved: true, by: "test" });
          asked.push(request.subject);
          return Promise.resolve({ approved: request.subject.startsWith("printf"), by: "test" });
        },
        audit: { enabled: false, record() {} },
      });
      // In the user's .bashrc: typed in the session, the alias itself would be asked about.
      writeFileSync(join(kit.home, ".bashrc"), "alias harmless='git push'\n");
      const session = await kit.open("aliased", { program: ["bash"], guard });
      // Sent by exec, "harmless" matches no rule; in the shell it is "git push", which asks.
      const result = await session.exec("harmless --dry-run", TIMEOUT_MS);
      assert.equal(result.exitCode, 126, result.output);
      assert.deepEqual(asked, ["harmless --dry-run"]);
    });
  });

  it("an exec'd line is judged once: the shell's check takes exec's verdict when its inputs are the same", async () => {
    await withSessions(async (kit) => {
      const policy = createPolicy({ deny: ["touch"] });
      const judged: string[] = [];
      const events: { event: string; line?: string; origin?: string; shell?: boolean }[] = [];
      const guard = new Guard({
        mode: "cli",
        policy: {
          ...policy,
          checkLine: (line, context) => {
            judged.push(line);
            return policy.checkLine(line, context);
          },
        },
        // Setting PATH is asked about (what later lines run depends on it).
        approver: (request) =>
          Promise.resolve({
            approved: request.subject === OPENING || request.subject.startsWith("PATH="),
            by: "test",
          }),
        audit: { enabled: true, record: (_actor, event) => void events.push(event) },
      });
      const session = await kit.open("judged", { program: ["bash"], guard });
      await session.exec("echo warm", TIMEOUT_MS);
      judged.length = 0;
      events.length = 0;
      const result = await session.exec("echo judged once", TIMEOUT_MS);
      assert.equal(result.output, "judged once\n");
      assert.deepEqual(judged, ["echo judged once"]);
      // Still one audit event for the line: sent by exec, run by the shell.
      const recorded = events.filter((e) => e.event === "command");
      assert.deepEqual(
        recorded.map(({ line, origin, shell }) => ({ line, origin, shell })),
        [{ line: "echo judged once", origin: "exec", shell: true }],
      );
      // Typed by hand, a line is judged by the shell's check itself.
      session.type("echo by hand");
      session.keys(["Enter"]);
      await session.wait({ regex: "\nby hand\n", scope: "all" }, TIMEOUT_MS);
      assert.deepEqual(judged, ["echo judged once", "echo by hand"]);
      // Another PATH in the shell than exec's check had: the shell's check judges again.
      await session.exec("PATH=/nowhere-else:$PATH", TIMEOUT_MS);
      judged.length = 0;
      await session.exec("echo other path", TIMEOUT_MS);
      assert.deepEqual(judged, ["echo other path", "echo other path"]);
      // A denied line is refused before it is sent, as before.
      const marker = join(kit.home, "m12");
      await assert.rejects(session.exec(`touch ${marker}`, TIMEOUT_MS), /Denied by policy/);
      assert.equal(existsSync(marker), false);
    });
  });
});
