/**
 * `make install` into a scratch PREFIX: the binary on PATH, completions for
 * bash, zsh and fish, and a man page that lists every mode; and a Makefile
 * that rebuilds the binary only when one of its sources changed.
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODES } from "../../lib/cli/usage.ts";
import { ROOT } from "../built_binary.ts";

/** Runs a program to its end (these are short); returns its status and output. */
function run(
  argv: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
) {
  const result = spawnSync(argv[0], argv.slice(1), {
    cwd: options.cwd ?? ROOT,
    input: options.input,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

const has = (program: string) => run(["sh", "-c", `command -v ${program}`]).status === 0;

/** The Makefile's stamp of `npm ci`. */
const DEPS = "node_modules/.installed";

/** Installs into a fresh PREFIX once; every test reads that installation. */
let installed: { prefix: string; make: ReturnType<typeof run> } | undefined;
function install(): { prefix: string; make: ReturnType<typeof run> } {
  if (installed !== undefined) return installed;
  const prefix = mkdtempSync(join(tmpdir(), "termbridge-prefix-"));
  // `-o`: never `npm ci` from a test (a worktree whose package.json just changed would).
  installed = { prefix, make: run(["make", "-o", DEPS, "install", `PREFIX=${prefix}`]) };
  return installed;
}

function cleanUp(): void {
  if (installed !== undefined) rmSync(installed.prefix, { recursive: true, force: true });
  installed = undefined;
}

/** What bash completes for the words of `line` (the last one being completed). */
function bashCompletes(completion: string, words: string[]): string[] {
  const script = [
    `source ${JSON.stringify(completion)}`,
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")})`,
    `COMP_CWORD=${words.length - 1}`,
    "_termbridge",
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
  ].join("\n");
  const result = run(["bash", "--norc", "--noprofile", "-c", script]);
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split("\n").filter((line) => line !== "");
}

describe("install", () => {
  it("install: `make install PREFIX=DIR` puts a working termbridge in DIR/bin", () => {
    try {
      const { prefix, make } = install();
      assert.equal(make.status, 0, make.stderr + make.stdout);
      const version = run([join(prefix, "bin", "termbridge"), "--version"]);
      assert.equal(version.status, 0, version.stderr);
      assert.match(version.stdout, /^termbridge \d+\.\d+\.\d+ \(bun /);
      // Found on PATH by name, as a person would run it.
      const onPath = run(["termbridge", "help", "serve"], {
        env: { PATH: `${join(prefix, "bin")}:/usr/bin:/bin` },
      });
      assert.equal(onPath.status, 0, onPath.stderr);
      assert.match(onPath.stdout, /^Usage: termbridge serve/);
    } finally {
      cleanUp();
    }
  });

  it("install: the bash completion is valid and completes modes, options and directories", () => {
    try {
      const { prefix, make } = install();
      assert.equal(make.status, 0, make.stderr);
      const completion = join(prefix, "share", "bash-completion", "completions", "termbridge");
      assert.equal(run(["bash", "-n", completion]).status, 0);
      const modes = bashCompletes(completion, ["termbridge", ""]);
      for (const mode of MODES) assert.ok(modes.includes(mode.name), `${mode.name} in ${modes}`);
      assert.deepEqual(bashCompletes(completion, ["termbridge", "se"]), ["serve", "server"]);
      assert.deepEqual(bashCompletes(completion, ["termbridge", "help", "rep"]), ["repl"]);
      assert.ok(bashCompletes(completion, ["termbridge", "acp", "--c"]).includes("--cwd"));
      assert.deepEqual(bashCompletes(completion, ["termbridge", "mcp", "--read"]), ["--read-only"]);
      const dirs = bashCompletes(completion, ["termbridge", "serve", "--cwd", "/us"]);
      assert.deepEqual(dirs, ["/usr"]);
    } finally {
      cleanUp();
    }
  });

  itWhen(has("zsh"), "install: the zsh completion is valid zsh", () => {
    try {
      const { prefix, make } = install();
      assert.equal(make.status, 0, make.stderr);
      const completion = join(prefix, "share", "zsh", "site-functions", "_termbridge");
      const check = run(["zsh", "-n", completion]);
      assert.equal(check.status, 0, check.stderr);
      assert.match(run(["cat", completion]).stdout, /^#compdef termbridge/);
    } finally {
      cleanUp();
    }
  }, "zsh is not installed; `make tools` installs it");

  it("install: the fish completion names every mode (and is valid fish when fish is here)", () => {
    try {
      const { prefix, make } = install();
      assert.equal(make.status, 0, make.stderr);
      const completion = join(prefix, "share", "fish", "vendor_completions.d", "termbridge.fish");
      const text = run(["cat", completion]).stdout;
      for (const mode of MODES) assert.match(text, new RegExp(`-a ${mode.name} -d`));
      if (has("fish")) assert.equal(run(["fish", "-n", completion]).status, 0);
    } finally {
      cleanUp();
    }
  });

  itWhen(
    has("groff"),
    "install: the man page renders without warnings and documents every mode",
    () => {
      try {
        const { prefix, make } = install();
        assert.equal(make.status, 0, make.stderr);
        const page = join(prefix, "share", "man", "man1", "termbridge.1");
        const render = run(["groff", "-man", "-Tutf8", "-ww", page]);
        assert.equal(render.status, 0);
        assert.equal(render.stderr, "", "groff warnings");
        // deno-lint-ignore no-control-regex -- groff marks bold and underline by overstriking
        const text = render.stdout.replace(/.\x08/g, "");
        for (const mode of MODES) {
          assert.ok(
            text.includes(`Usage: termbridge ${mode.name}`),
            `${mode.name} in the man page`,
          );
        }
      } finally {
        cleanUp();
      }
    },
    "groff is not installed",
  );

  it("install: the binary is rebuilt only when a source changed (package.json, lib/ files)", () => {
    // `make -n` prints what would run; -W pretends a file was just changed.
    const build = /bun build --compile/;
    const make = (...args: string[]) => run(["make", "-n", ...args, "dist/termbridge"]).stdout;
    assert.ok(existsSync(join(ROOT, "Makefile")));
    assert.match(make("-W", "lib/terminal/keys.ts"), build);
    assert.match(make("-W", "main.ts"), build);
    assert.match(make("-W", "package.json"), build);
    run(["make", "-o", DEPS, "dist/termbridge"]);
    assert.doesNotMatch(make(), build, "an up-to-date binary is not rebuilt");
  });
});
