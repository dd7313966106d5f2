/**
 * Issue 16 item 17: the generated completions, run by real bash and fish, and
 * by an interactive zsh in a PTY (a termbridge session, private HOME and
 * ZDOTDIR), complete open session names (asked of the running server with
 * `ls --names`), key names, `wait` kinds and `new`'s options, and programs
 * after `new NAME --` only.
 * @module
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { generate, readSpec } from "../../tools/docs.ts";
import { describe, it, itWhen } from "../harness.ts";
import { runtime } from "../../lib/runtime/mod.ts";
import { BINARY_CURRENT, inWorld, type World } from "../server/_kit.ts";

/** Whether zsh is installed (`make tools` installs it). */
const HAS_ZSH = await (async () => {
  const probe = runtime.spawnPiped({ argv: ["sh", "-c", "command -v zsh >/dev/null"] });
  await probe.stdin.close(); // Before any test: Deno's sanitizer counts a later close as a leak.
  const [status] = await Promise.all([probe.exited, new Response(probe.stdout).text()]);
  return status.exitCode === 0;
})();

const BINARY = join(dirname(new URL(import.meta.url).pathname), "../../dist/termbridge");

/** The completion files generated from the built binary's help texts, in a temporary directory. */
function generated(): { dir: string; bash: string; fish: string; zsh: string } {
  assert.ok(BINARY_CURRENT, "dist/termbridge is not current: run make dist/termbridge");
  const dir = mkdtempSync(join(tmpdir(), "termbridge-completion-"));
  for (const [name, text] of Object.entries(generate(readSpec(BINARY)))) {
    writeFileSync(join(dir, name), text);
  }
  return {
    dir,
    bash: join(dir, "termbridge.bash"),
    fish: join(dir, "termbridge.fish"),
    zsh: join(dir, "_termbridge"),
  };
}

/** The world's environment with the built termbridge first on PATH. */
function env(world: World): Record<string, string> {
  return { ...world.env, PATH: `${dirname(BINARY)}:${world.env.PATH}` };
}

/** What bash's completion function offers for `line` (a trailing space starts a new word). */
function bashCompletes(world: World, file: string, line: string): string[] {
  const script = `source "$1"; read -ra COMP_WORDS <<< "$2"
[[ $2 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _termbridge; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync("bash", ["--norc", "--noprofile", "-c", script, "bash", file, line], {
    encoding: "utf8",
    env: env(world),
  });
  return out.split("\n").filter((word) => word !== "");
}

/** What fish offers for `line` (`complete -C`), candidates without their descriptions. */
function fishCompletes(world: World, file: string, line: string): string[] {
  const out = execFileSync("fish", [
    "--no-config",
    "-c",
    `source $argv[1]; complete -C $argv[2]`,
    file,
    line,
  ], {
    encoding: "utf8",
    env: env(world),
  });
  return out.split("\n").filter((word) => word !== "").map((word) => word.split("\t")[0]);
}

describe("shell completions", () => {
  it("bash and fish complete sessions, keys, wait kinds, new's options; programs only after --", () =>
    inWorld("binary", async (world) => {
      const files = generated();
      try {
        // No server: no names, and none is started.
        for (
          const [complete, file] of [[bashCompletes, files.bash], [
            fishCompletes,
            files.fish,
          ]] as const
        ) {
          assert.deepEqual(complete(world, file, "termbridge key "), []);
        }
        assert.deepEqual(world.serverPids(), []);
        await world.ok(["new", "s1"]);
        await world.ok(["new", "s2"]);
        for (
          const [complete, file] of [[bashCompletes, files.bash], [
            fishCompletes,
            files.fish,
          ]] as const
        ) {
          const shell = complete === bashCompletes ? "bash" : "fish";
          assert.deepEqual(complete(world, file, "termbridge key ").sort(), ["s1", "s2"], shell);
          assert.deepEqual(complete(world, file, "termbridge exec s").sort(), ["s1", "s2"], shell);
          const keys = complete(world, file, "termbridge key s1 ");
          for (const key of ["Enter", "C-c", "Ctrl+C", "ArrowUp"]) {
            assert.ok(keys.includes(key), `${shell}: ${key}`);
          }
          assert.deepEqual(
            complete(world, file, "termbridge key s1 C-c C-").sort(),
            ["C-c", "C-d"],
            shell,
          );
          assert.deepEqual(
            complete(world, file, "termbridge wait s1 ").sort(),
            ["exit", "gone", "idle", "prompt", "regex", "text"],
            shell,
          );
          const options = complete(world, file, "termbridge new x --");
          for (const option of ["--cwd", "--size", "--env", "--record"]) {
            assert.ok(options.includes(option), `${shell}: ${option} in ${options.join(" ")}`);
          }
          // A new session's name is not an open one's; programs come only after "--".
          assert.deepEqual(complete(world, file, "termbridge new "), [], shell);
          assert.deepEqual(complete(world, file, "termbridge new x "), [], shell);
          assert.ok(complete(world, file, "termbridge new x -- bas").includes("bash"), shell);
          assert.ok(
            complete(world, file, "termbridge new x --cwd /tmp -- bas").includes("bash"),
            shell,
          );
        }
      } finally {
        rmSync(files.dir, { recursive: true, force: true });
      }
    }));

  itWhen(
    HAS_ZSH,
    "zsh, typed at in a PTY, completes sessions, keys, wait kinds; nothing with no server",
    () =>
      inWorld("binary", async (world) => {
        const files = generated();
        try {
          const zdotdir = join(world.dir, "zdotdir");
          mkdirSync(zdotdir);
          writeFileSync(
            join(zdotdir, ".zshrc"),
            `fpath=(${files.dir} $fpath)\nautoload -Uz compinit && compinit -u -D\nPS1='%% '\n`,
          );
          await world.ok(["new", "s1"]);
          await world.ok(["new", "s2"]);
          const path = `${dirname(BINARY)}:${world.env.PATH}`;
          await world.ok([
            "new",
            "z",
            "--size",
            "120x30",
            ...["--env", `ZDOTDIR=${zdotdir}`, "--env", `HOME=${zdotdir}`, "--env", `PATH=${path}`],
            "--",
            "zsh",
          ]);
          await world.ok(["wait", "z", "prompt"]);
          /** Types `line`, presses Tab, waits until the screen matches `shows`; clears the line. */
          const tab = async (line: string, shows: RegExp): Promise<string> => {
            await world.ok(["type", "z", line]);
            await world.ok(["key", "z", "Tab"]);
            let screen = "";
            const deadline = performance.now() + 15_000;
            while (!shows.test(screen = await world.ok(["screen", "z"]))) {
              if (performance.now() > deadline) {
                throw new Error(
                  `zsh: ${JSON.stringify(line)} + Tab, no ${shows}; the screen:\n${screen}`,
                );
              }
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
            await world.ok(["key", "z", "C-c"]);
            await world.ok(["clear", "z"]);
            return screen;
          };
          await tab("termbridge key ", /^s1\s+s2\s+z\s*$/m);
          await tab("termbridge exec s", /^s1\s+s2\s*$/m);
          const keys = await tab("termbridge key s1 ", /Ctrl\+C/);
          for (const key of ["Enter", "C-c", "ArrowUp", "PageDown"]) {
            assert.match(keys, new RegExp(`\\b${key}\\b`));
          }
          await tab("termbridge key s1 C-c C-", /^C-c\s+C-d\s*$/m);
          await tab("termbridge wait s1 ", /^exit\s+gone\s+idle\s+prompt\s+regex\s+text\s*$/m);
          await tab("termbridge record s1 st", /\bstop\b/);
          await tab("termbridge new x -- bas", /\bbash\b/);
          // No server of that name: no candidates (the Tab changes nothing: "#" typed after it
          // lands right after the space), and none is started.
          await world.ok(["type", "z", "termbridge screen -L nosuch "]);
          await world.ok(["key", "z", "Tab"]);
          await world.ok(["type", "z", "#end"]);
          await world.ok(["wait", "z", "text", "nosuch #end"]);
          assert.equal(existsSync(join(world.dir, "run", "termbridge", "nosuch.sock")), false);
        } finally {
          rmSync(files.dir, { recursive: true, force: true });
        }
      }),
  );
});
