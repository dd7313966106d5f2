/**
 * The shape of the reviews' attacks on the typed-line check, and their
 * runner: a bash or zsh session under `deny: ["touch"]`, files and links set
 * up first, allowed lines run with `exec`, then the attack typed (lines with
 * Enter, or raw keys); the marker file the refused `touch` would make must
 * not exist.
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld } from "./_kit.ts";

/** Which termbridge the attacks run against: the built binary when it is current. */
export const BUILD = BINARY_CURRENT ? "binary" : "source";
/** The policy every attack works against. */
export const DENY_TOUCH = '{ "policy": { "deny": ["touch"] } }';
/** Whether zsh is installed (its cases are skipped otherwise). */
export const HAS_ZSH = spawnSync("zsh", ["-c", "true"]).status === 0;

/** A step: a line typed and Enter (then the prompt), or raw keys typed as they are. */
export type Step = { line: string } | { keys: string };

/** One attack. `%M%` in a file, setup line or step is the marker's path. */
export interface Attack {
  name: string;
  shell: "bash" | "zsh";
  /** The shell's arguments (the session's program is the shell with them). */
  args?: string[];
  /** Files written in the home directory before the session starts (name to text). */
  files?: Record<string, string>;
  /** Symbolic links made there before the session starts (name to target). */
  links?: Record<string, string>;
  /** Run with `exec` first (allowed lines that set things up). */
  setup?: string[];
  steps: Step[];
  /** What the screen must say as well. */
  says?: RegExp;
}

/** One test per attack, each in a world of its own. */
export function describeAttacks(title: string, attacks: Attack[]): void {
  describe(title, () => {
    for (const c of attacks) {
      itWhen(
        c.shell === "bash" || HAS_ZSH,
        `${c.shell}: ${c.name}`,
        () =>
          inWorld(BUILD, async (world) => {
            world.configure(DENY_TOUCH);
            const marker = join(world.dir, "m");
            for (const [name, text] of Object.entries(c.files ?? {})) {
              mkdirSync(dirname(join(world.dir, name)), { recursive: true });
              writeFileSync(join(world.dir, name), text.replaceAll("%M%", marker));
            }
            for (const [name, target] of Object.entries(c.links ?? {})) {
              mkdirSync(dirname(join(world.dir, name)), { recursive: true });
              symlinkSync(target, join(world.dir, name));
            }
            await world.ok(["new", "s", "--", c.shell, ...(c.args ?? [])]);
            for (const line of c.setup ?? []) {
              await world.ok(["exec", "s", line.replaceAll("%M%", marker)]);
            }
            for (const step of c.steps) {
              if ("keys" in step) {
                await world.ok(["type", "s", "--", step.keys.replaceAll("%M%", marker)]);
                await new Promise((resolve) => setTimeout(resolve, 300));
                continue;
              }
              await world.ok(["type", "s", "--", step.line.replaceAll("%M%", marker)]);
              await world.ok(["key", "s", "Enter"]);
              await world.ok(["wait", "s", "prompt", "--timeout", "10"]);
            }
            await new Promise((resolve) => setTimeout(resolve, 300));
            const screen = await world.ok(["screen", "s", "--logical"]);
            assert.equal(existsSync(marker), false, screen);
            if (c.says !== undefined) assert.match(screen, c.says);
          }),
      );
    }
  });
}
