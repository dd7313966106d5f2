/**
 * The abuse run's table: ways around the safety core that got through once
 * and now fail safely. Code a line leaves for the shell to run later (trap,
 * PROMPT_COMMAND, prompts, alias, complete -C, mapfile -C, bind -x, fc, which
 * reruns a refused line from the history), `env -S` with env's own options,
 * `env PATH=...`; through the built binary: a denied line rerun with `fc -s`
 * in a shell session, PROMPT_COMMAND and trap set through serve, and
 * fs/write_text_file through a dangling symlink and through a repository's
 * narrower glob whose directory became a link, SHELLOPTS=keyword in the env
 * parameter. The marker program never runs; nothing is written
 * outside the write globs.
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createPolicy } from "../../lib/policy/mod.ts";
import { removeDir, tempDir, termbridgeCommand, withMcp } from "../mcp/_kit.ts";
import { markerWorkspace } from "./_workspace.ts";
import { Serve } from "./_serve.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };

/** Lines that store code for later: each must be denied (`touch` is the marker). */
const DENIED: [string, string][] = [
  ["trap on EXIT", "trap 'touch m' EXIT"],
  ["trap on DEBUG after --", "trap -- 'touch m' DEBUG"],
  ["PROMPT_COMMAND", "PROMPT_COMMAND='touch m'"],
  ["exported PROMPT_COMMAND", "export PROMPT_COMMAND='touch m'"],
  ["alias used later in the same text", "alias ll='touch m'\nll"],
  ["alias used in sh -c", "sh -c \"alias ll='touch m'\nll\""],
  ["complete -C", "complete -C 'touch m' ls"],
  ["complete with options before -C", "complete -o default -C 'touch m' ls"],
  ["mapfile -C", "mapfile -C 'touch m' -c 1 < /etc/hostname"],
  ["readarray -C", "readarray -C 'touch m' -c 1 < /etc/hostname"],
  ["env -S with env's options inside", "env -S '-i touch m'"],
  ["xargs -i does not take the next word", "xargs -i touch {}"],
  ["xargs -l does not take the next word", "xargs -l touch"],
  ["a shell reading /dev/stdin", "bash /dev/stdin <<< 'touch m'"],
  ["a shell reading /proc/self/fd/0", "sh /proc/self/fd/0 <<< 'touch m'"],
];

/** Lines whose later code cannot be known: each must be asked about. */
const ASKED: [string, string, RegExp][] = [
  ["fc -s reruns the history", "fc -s touch", /history|"touch" among its arguments/],
  ["fc opens an editor and runs the result", "FCEDIT=true fc", /history/],
  ["PS1 with a substitution", "PS1='$(touch m)'", /PS1/],
  ["PS0 with backquotes", "PS0='`touch m`'", /PS0/],
  ["PROMPT_COMMAND built at run time", 'PROMPT_COMMAND="$X"', /PROMPT_COMMAND/],
  ["BASH_ENV", "BASH_ENV=./x.sh bash -c ls", /BASH_ENV/],
  ["read into PROMPT_COMMAND", "read PROMPT_COMMAND <<< 'touch m'", /read/],
  ["printf -v PROMPT_COMMAND", "printf -v PROMPT_COMMAND 'touch m'", /printf/],
  ["a nameref to PROMPT_COMMAND", "declare -n r=PROMPT_COMMAND; r='touch m'", /PROMPT_COMMAND/],
  ["a loop over PS1", "for PS1 in '$(touch m)'; do :; done", /PS1/],
  ["prompt expansion of a variable", "x='$(touch m)'; echo ${x@P}", /@P/],
  ["bind -x", "bind -x '\"\\C-a\": touch m'", /bind -x/],
  ["env PATH=DIR", "env PATH=/tmp/evil ls", /PATH/],
  ["a script from a process substitution", "bash <(echo 'touch m')", /script file/],
  ["a script the line writes first", "echo 'touch m' > new.sh; bash new.sh", /does not exist yet/],
  ["a here-string on fd 0 the parser misreads", "sh 0<<<'touch m'", /./],
  ["xargs -I into sh -c", "xargs -I% sh -c %", /sh -c/],
  ["xargs -i into sh -c", "xargs -i sh -c '{}'", /sh -c/],
  ["tmux", "tmux", /tmux/],
  ["screen with a command", "screen touch m", /screen/],
  ["fish -c", "fish -c 'touch m'", /fish/],
];

/** Lines that stay allowed: the checks above must not catch them. */
const ALLOWED = [
  "trap - EXIT",
  "trap -p",
  "trap 'echo bye' EXIT",
  "PS1='\\u@\\h \\$ '",
  "alias ll='ls -l'",
  // Used on a later line, the alias is checked there (typed lines carry the shell's aliases).
  "alias ll='touch m'",
  "fc -l",
  "echo $PS1",
  "env -S 'A=1 ls'",
  "bash /dev/null",
  "xargs -I{} echo {}",
];

describe("bypass: code kept for later", () => {
  const policy = () => createPolicy({ deny: ["touch"], ask: ["git push"] });
  for (const [name, line] of DENIED) {
    it(`bypass: ${name} is denied: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "deny", `${verdict.decision}: ${verdict.reason}`);
      assert.deepEqual(verdict.rule, { list: "deny", pattern: "touch" });
    });
  }
  for (const [name, line, reason] of ASKED) {
    it(`bypass: ${name} is asked about: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
      assert.match(verdict.reason, reason);
    });
  }
  it("bypass: a line nested too deeply to walk is asked about, not an internal error", async () => {
    const line = "{ ".repeat(20_000) + "touch m" + "; }".repeat(20_000);
    const started = Date.now();
    const verdict = await policy().checkLine(line, CONTEXT);
    assert.equal(verdict.decision, "ask", verdict.reason);
    assert.match(verdict.reason, /too deeply/);
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  });
  it("bypass: the harmless forms of the same builtins stay allowed", async () => {
    for (const line of ALLOWED) {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "allow", `${line}: ${verdict.reason}`);
    }
  });
});

/** A workspace of its own (see markerWorkspace). */
function workspace(config: unknown): { dir: string; env: Record<string, string> } {
  return markerWorkspace(config, "termbridge-bypass-");
}

function errorCode(answer: Record<string, unknown>): number | undefined {
  return (answer.error as { code?: number } | undefined)?.code;
}

describe("bypass: a repository's config", () => {
  it("bypass: a repository may narrow read to ${cwd}/** (it was ignored as a widening)", () => {
    const { dir, env } = workspace({ policy: { read: ["${cwd}/**"] } });
    try {
      const { command, args } = termbridgeCommand();
      const run = spawnSync(command, [...args, "policy", "check", "--read", "/etc/hostname"], {
        cwd: dir,
        env,
        encoding: "utf8",
      });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.doesNotMatch(run.stderr, /ignoring/);
    } finally {
      removeDir(dir);
    }
  });
});

describe("bypass: through serve", () => {
  it("bypass: a refused line is not rerun from the history with fc -s, and the session goes on", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    const serve = new Serve([], { cwd: dir, env });
    try {
      const opened = await serve.request("sessions/open", { name: "b", program: ["bash"] });
      assert.equal(opened.error, undefined, JSON.stringify(opened));
      await serve.request("sessions/type", { name: "b", text: "marker a\r" });
      await serve.request("sessions/wait", { name: "b", text: "Denied by policy" });
      await serve.request("sessions/type", { name: "b", text: "fc -s marker\r" });
      const waited = await serve.request("sessions/wait", {
        name: "b",
        regex: "Denied by policy[^\\n]*\\n(.|\\n)*Denied by policy",
      });
      assert.equal(waited.error, undefined, JSON.stringify(waited));
      // The refusal is printed by the command that replaced the line: its end comes after.
      const prompt = await serve.request("sessions/wait", { name: "b", prompt: true });
      assert.equal(prompt.error, undefined, JSON.stringify(prompt));
      const exec = await serve.request("sessions/exec", { name: "b", command: "echo still-here" });
      assert.equal((exec.result as { output: string }).output, "still-here\n");
      assert.equal(existsSync(join(dir, "ran-a")), false, "fc -s reran the refused line");
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass: PROMPT_COMMAND and trap cannot smuggle a denied program (-32003)", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    const serve = new Serve([], { cwd: dir, env });
    try {
      await serve.request("sessions/open", { name: "b", program: ["bash"] });
      const set = await serve.request("sessions/exec", {
        name: "b",
        command: "PROMPT_COMMAND='marker p'",
      });
      assert.equal(errorCode(set), -32003, JSON.stringify(set));
      const trap = await serve.request("terminal/create", {
        sessionId: "s",
        command: "trap 'marker t' EXIT; true",
      });
      assert.equal(errorCode(trap), -32003, JSON.stringify(trap));
      // A prompt after the refusals: PROMPT_COMMAND would have run by now.
      await serve.request("sessions/exec", { name: "b", command: "true" });
      assert.equal(existsSync(join(dir, "ran-p")), false);
      assert.equal(existsSync(join(dir, "ran-t")), false);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass: a session whose program gets no typed-line hooks (sh, env bash) is asked about, not opened", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    const serve = new Serve([], { cwd: dir, env });
    try {
      for (const program of [["sh"], ["env", "bash"]]) {
        const opened = await serve.request("sessions/open", { name: "x", program });
        assert.equal(errorCode(opened), -32003, JSON.stringify(opened));
        assert.match(JSON.stringify(opened), /not known before it runs/);
      }
      // bash itself gets the hooks: opened, and a typed denied line is refused.
      const bash = await serve.request("sessions/open", { name: "b", program: ["bash"] });
      assert.equal(bash.error, undefined, JSON.stringify(bash));
      await serve.request("sessions/type", { name: "b", text: "marker s\r" });
      const refused = await serve.request("sessions/wait", { name: "b", text: "Denied by policy" });
      assert.equal(refused.error, undefined, JSON.stringify(refused));
      assert.equal(existsSync(join(dir, "ran-s")), false);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass: code in the env parameter (PROMPT_COMMAND, BASH_ENV) is checked like the line", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    writeFileSync(join(dir, "evil.sh"), "marker e\n");
    const serve = new Serve([], { cwd: dir, env });
    try {
      const opened = await serve.request("sessions/open", {
        name: "p",
        program: ["bash"],
        env: { PROMPT_COMMAND: "marker p" },
      });
      assert.equal(errorCode(opened), -32003, JSON.stringify(opened));
      const created = await serve.request("terminal/create", {
        sessionId: "s",
        command: "bash",
        args: ["-c", "true"],
        env: [{ name: "BASH_ENV", value: join(dir, "evil.sh") }],
      });
      assert.equal(errorCode(created), -32003, JSON.stringify(created));
      // The control: a plain prompt is fine, and the session works.
      const plain = await serve.request("sessions/open", {
        name: "q",
        program: ["bash"],
        env: { PS1: "ready> " },
      });
      assert.equal(plain.error, undefined, JSON.stringify(plain));
      const exec = await serve.request("sessions/exec", { name: "q", command: "echo ok" });
      assert.equal((exec.result as { output: string }).output, "ok\n");
      assert.equal(existsSync(join(dir, "ran-p")), false);
      assert.equal(existsSync(join(dir, "ran-e")), false);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass: SHELLOPTS=keyword in the env parameter (bash -c 'ls PATH=DIR k' runs DIR/ls) is refused", async () => {
    const { dir, bin, env } = markerWorkspace(
      { policy: { deny: ["marker"] } },
      "termbridge-bypass-",
    );
    mkdirSync(join(dir, "evil"));
    symlinkSync(join(bin, "marker"), join(dir, "evil", "ls"));
    const line = `ls PATH=${join(dir, "evil")}:/usr/bin:/bin k`;
    // The control: bash itself runs the marker under this name.
    spawnSync("bash", ["-c", line.replace(" k", " control")], {
      env: { ...env, SHELLOPTS: "keyword" },
      cwd: dir,
    });
    assert.equal(existsSync(join(dir, "ran-control")), true);
    const serve = new Serve([], { cwd: dir, env });
    try {
      const created = await serve.request("terminal/create", {
        sessionId: "s",
        command: "bash",
        args: ["-c", line],
        env: [{ name: "SHELLOPTS", value: "keyword" }],
      });
      assert.equal(errorCode(created), -32003, JSON.stringify(created));
      assert.match(JSON.stringify(created), /SHELLOPTS/);
      assert.equal(existsSync(join(dir, "ran-k")), false);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass: HOME in the env parameter (bash -ic runs that HOME's .bashrc) is asked about", async () => {
    const { dir, env } = markerWorkspace({ policy: { deny: ["marker"] } }, "termbridge-bypass-");
    mkdirSync(join(dir, "h"));
    writeFileSync(join(dir, "h", ".bashrc"), "marker home\n");
    const serve = new Serve([], { cwd: dir, env });
    try {
      const created = await serve.request("terminal/create", {
        sessionId: "s",
        command: "bash",
        args: ["-ic", "true"],
        env: [{ name: "HOME", value: join(dir, "h") }],
      });
      assert.equal(errorCode(created), -32003, JSON.stringify(created));
      assert.match(JSON.stringify(created), /the request sets HOME/);
      assert.equal(existsSync(join(dir, "ran-home")), false);
      // A program that reads no start-up files runs with it; so does termbridge's own HOME.
      for (
        const [command, args, home] of [
          ["ls", [], join(dir, "h")],
          ["bash", ["-ic", "true"], dir],
        ] as const
      ) {
        const ok = await serve.request("terminal/create", {
          sessionId: "s",
          command,
          args,
          env: [{ name: "HOME", value: home }],
        });
        assert.equal(errorCode(ok), undefined, JSON.stringify(ok));
      }
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass: fs/write_text_file through a dangling symlink is judged by its target", async () => {
    const { dir, env } = workspace({ policy: { write: ["${cwd}/**"] } });
    const outside = realpathSync(tempDir("termbridge-outside-"));
    const serve = new Serve(["--config", join(dir, "termbridge.jsonc")], { cwd: dir, env });
    try {
      symlinkSync(join(outside, "created"), join(dir, "dangling"));
      const answer = await serve.request("fs/write_text_file", {
        sessionId: "s",
        path: join(dir, "dangling"),
        content: "pwned",
      });
      assert.equal(errorCode(answer), -32003, JSON.stringify(answer));
      assert.equal(existsSync(join(outside, "created")), false);
      // The control: a plain file inside is written.
      const inside = await serve.request("fs/write_text_file", {
        sessionId: "s",
        path: join(dir, "plain.txt"),
        content: "ok",
      });
      assert.equal(inside.error, undefined, JSON.stringify(inside));
    } finally {
      await serve.close();
      removeDir(dir);
      removeDir(outside);
    }
  });

  it("bypass: a repository's narrower write glob stays within the user's when its directory becomes a link", async () => {
    const { dir, env } = workspace({ policy: { write: ["${cwd}/narrow/**"] } });
    mkdirSync(join(dir, "config", "termbridge"), { recursive: true });
    writeFileSync(
      join(dir, "config", "termbridge", "termbridge.jsonc"),
      JSON.stringify({ policy: { write: ["${cwd}/**"] } }),
    );
    const outside = realpathSync(tempDir("termbridge-outside-"));
    const serve = new Serve([], { cwd: dir, env });
    try {
      // What an allowed command (ln -s) in a terminal would do after start-up.
      symlinkSync(outside, join(dir, "narrow"));
      const answer = await serve.request("fs/write_text_file", {
        sessionId: "s",
        path: join(dir, "narrow", "x"),
        content: "pwned",
      });
      assert.equal(errorCode(answer), -32003, JSON.stringify(answer));
      assert.equal(existsSync(join(outside, "x")), false);
      // The narrowing itself holds: the rest of the working directory is not writable.
      const rest = await serve.request("fs/write_text_file", {
        sessionId: "s",
        path: join(dir, "other.txt"),
        content: "no",
      });
      assert.equal(errorCode(rest), -32003, JSON.stringify(rest));
    } finally {
      await serve.close();
      removeDir(dir);
      removeDir(outside);
    }
  });
});

describe("bypass: termbridge's own files", () => {
  it("bypass: fs/write_text_file cannot rewrite the configuration or the audit log, even through a link", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    const userConfig = join(dir, "config", "termbridge", "termbridge.jsonc");
    const audit = join(dir, "audit.jsonl");
    const serve = new Serve(["--audit", audit], { cwd: dir, env });
    try {
      symlinkSync(userConfig, join(dir, "innocent.jsonc"));
      for (
        const path of [
          join(dir, "termbridge.jsonc"),
          userConfig,
          join(dir, "innocent.jsonc"),
          audit,
        ]
      ) {
        const answer = await serve.request("fs/write_text_file", {
          sessionId: "s",
          path,
          content: '{ "trust": ["/"], "policy": { "default": "allow" } }',
        });
        assert.equal(errorCode(answer), -32003, `${path}: ${JSON.stringify(answer)}`);
        assert.match(JSON.stringify(answer), /termbridge's own/);
      }
      assert.equal(existsSync(userConfig), false);
      assert.match(readFileSync(join(dir, "termbridge.jsonc"), "utf8"), /marker/);
      // The refusals are in the audit log, which is still whole.
      const events = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line));
      assert.ok(events.filter((e) => e.event === "write" && e.decision === "deny").length >= 4);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });
});

describe("bypass: through mcp", () => {
  it("bypass: terminal_execute and typed keys refuse what got through before; the marker never runs", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    try {
      await withMcp(async (mcp) => {
        const lines = [
          "trap 'marker a' EXIT",
          "PROMPT_COMMAND='marker b'",
          "echo x | xargs -i marker c",
          "bash <(echo 'marker d')",
          "bash /dev/stdin <<< 'marker e'",
          "env -S '-i marker f'",
          "alias zz='marker g'\nzz",
        ];
        for (const command of lines) {
          const result = await mcp.call("terminal_execute", { command });
          assert.equal(result.isError, true, `${command}: ${result.text}`);
          assert.match(result.text, /Denied by policy/);
        }
        // Typed into the shell session: refused, then rerun from the history with fc -s.
        await mcp.call("type", { text: "marker h\n" });
        await mcp.call("wait", { text: "Denied by policy" });
        await mcp.call("type", { text: "fc -s marker\n" });
        const waited = await mcp.call("wait", {
          regex: "Denied by policy[^\\n]*\\n(.|\\n)*Denied by policy",
        });
        assert.equal(waited.isError, false, waited.text);
        const prompt = await mcp.call("wait", { prompt: true });
        assert.equal(prompt.isError, false, prompt.text);
        const ok = await mcp.call("terminal_execute", { command: "echo fine" });
        assert.equal(ok.isError, false, ok.text);
      }, { cwd: dir, env });
      for (const name of "abcdefgh") {
        assert.equal(existsSync(join(dir, `ran-${name}`)), false, `marker ${name} ran`);
      }
    } finally {
      removeDir(dir);
    }
  });
});
