/**
 * `termbridge acp` in a real terminal, read as a person sees it: the built
 * binary runs in a PTY of termbridge's own (the way `tmux capture-pane`
 * reads one), for the TTY rendering and the interactive chat.
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import { runtime } from "../../lib/runtime/mod.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { agentArgv, demoAgentArgv, termbridgeUnderTest, withTempDir } from "./acp_run.ts";
import { onPath } from "../helpers.ts";

/** Longest wait for one thing to show on the screen (the machine may be loaded). */
const STEP_MS = 20_000;

/** Runs `termbridge acp ARGS -- AGENT` in a 100x50 PTY; always disposed. */
async function inTerminal<T>(
  args: string[],
  agent: string[],
  body: (terminal: Terminal) => Promise<T>,
): Promise<T> {
  const terminal = Terminal.spawn({
    argv: [...termbridgeUnderTest(), "acp", ...args, "--", ...agent],
    env: { ...runtime.env(), NO_COLOR: "" },
    cols: 100,
    rows: 50,
  });
  try {
    return await body(terminal);
  } finally {
    await terminal.dispose();
  }
}

/** The screen's lines, scrollback included. */
function screen(terminal: Terminal): string[] {
  return terminal.lines({ scope: "all" });
}

/** Waits until the last line with text on the screen satisfies `check`. */
async function lastLine(terminal: Terminal, check: (line: string) => boolean, what: string) {
  await terminal.waitFor(
    () => {
      const lines = screen(terminal);
      return check(lines.at(-1) ?? "") ? true : undefined;
    },
    what,
    STEP_MS,
  );
}

const HAS_BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);

/** Whether tmux is installed (the terminal a person would use). */
const HAS_TMUX = onPath("tmux");

/** Runs tmux on a private socket in `dir`; returns its stdout. */
async function tmux(dir: string, args: string[]): Promise<string> {
  const child = runtime.spawnPiped({
    argv: ["tmux", "-S", join(dir, "tmux.sock"), ...args],
    stderr: "pipe",
  });
  await child.stdin.close();
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  if (status.exitCode !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${stderr}`);
  return stdout;
}

describe("acp in a terminal", () => {
  itWhen(
    HAS_TMUX,
    "acp tty: in tmux, capture-pane shows each finished terminal as a card",
    async () => {
      await withTempDir(async (cwd) => {
        const argv = [
          ...termbridgeUnderTest(),
          "acp",
          "--yes",
          "--cwd",
          cwd,
          "--prompt",
          "show me",
          "--",
          ...demoAgentArgv(),
        ];
        const quoted = argv.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
        await tmux(cwd, [
          "new-session",
          "-d",
          "-s",
          "demo",
          "-x",
          "100",
          "-y",
          "50",
          `${quoted}; sleep 60`,
        ]);
        try {
          let pane = "";
          const deadline = performance.now() + 30_000;
          while (
            !(pane = await tmux(cwd, ["capture-pane", "-p", "-t", "demo"])).includes("Turn ended")
          ) {
            if (performance.now() > deadline) {
              throw new Error(`Timed out; the pane shows:\n${pane}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          const lines = pane.split("\n").map((line) => line.trimEnd());
          const start = lines.indexOf(
            "  ┌ [A check that fails] $ echo 'checking the frobnicator...'; exit 3",
          );
          assert.ok(start >= 0, pane);
          assert.equal(lines[start + 1], "  │ checking the frobnicator...");
          assert.match(lines[start + 2], /^ {2}└ \[A check that fails\] exit 3 in \d+\.\ds$/);
          assert.ok(lines.includes("  │ ✔ green ● yellow ◆ blue"), pane);
          assert.ok(lines.includes("  │ waiting forever..."), pane);
        } finally {
          await tmux(cwd, ["kill-server"]).catch(() => {}); // Already gone.
        }
      });
    },
  );

  it("acp tty: each finished terminal stays on screen as a card with its last lines", async () => {
    await withTempDir(async (cwd) => {
      const args = ["--yes", "--cwd", cwd, "--prompt", "show me"];
      await inTerminal(args, demoAgentArgv(), async (terminal) => {
        const status = await terminal.wait();
        const lines = screen(terminal);
        assert.equal(status.exitCode, 0, lines.join("\n"));
        const card = (label: string) => {
          const start = lines.findIndex((line) => line.startsWith(`  ┌ [${label}]`));
          const end = lines.findIndex((line, i) => i > start && line.startsWith(`  └ [${label}]`));
          assert.ok(start >= 0 && end > start, `a card for ${label} in:\n${lines.join("\n")}`);
          return lines.slice(start, end + 1);
        };
        assert.deepEqual(card("A check that fails").slice(1), [
          "  │ checking the frobnicator...",
          `  └ [A check that fails] ${card("A check that fails").at(-1)!.split("] ")[1]}`,
        ]);
        assert.match(card("A check that fails").at(-1)!, /exit 3 in \d+\.\ds$/);
        const hello = card("Say hello in colour");
        assert.ok(hello.includes("  │ ✔ green ● yellow ◆ blue"), hello.join("\n"));
        assert.match(hello.at(-1)!, /exit 0/);
        const slow = card("A command that runs too long");
        assert.deepEqual(slow.slice(1, -1), ["  │ waiting forever..."]);
        assert.match(slow.at(-1)!, /killed by SIGTERM/);
      });
    });
  });

  it("acp chat: the prompt comes after the session header; Ctrl+C clears the line, twice quits", async () => {
    await withTempDir(async (cwd) => {
      await inTerminal(["--cwd", cwd], agentArgv("terminal_agent"), async (terminal) => {
        await lastLine(terminal, (line) => line === "›", "the first prompt");
        const lines = screen(terminal);
        const header = lines.findIndex((line) => line.startsWith("Session "));
        assert.ok(header >= 0 && header < lines.length - 1, lines.join("\n"));
        terminal.type("echo hello\r");
        await terminal.waitForText("echo: hello", STEP_MS);
        await lastLine(terminal, (line) => line === "›", "the prompt after the turn");
        terminal.type("half a prompt");
        await lastLine(terminal, (line) => line === "› half a prompt", "the typed text");
        terminal.sendKeys("C-c");
        await terminal.waitForText("(Ctrl+C again to quit, or Ctrl+D)", STEP_MS);
        await lastLine(terminal, (line) => line === "›", "the line cleared");
        assert.equal(terminal.exitStatus, null, "still running after one Ctrl+C");
        terminal.type("typed again");
        await lastLine(terminal, (line) => line === "› typed again", "the new text");
        terminal.sendKeys("C-c");
        await terminal.waitFor(
          () =>
            screen(terminal).filter((line) => line.startsWith("(Ctrl+C again")).length === 2
              ? true
              : undefined,
          "the second hint",
          STEP_MS,
        );
        await lastLine(terminal, (line) => line === "›", "the new text cleared");
        assert.equal(terminal.exitStatus, null, "Ctrl+C on a line with text clears it");
        terminal.sendKeys("C-c");
        const status = await terminal.wait();
        assert.equal(status.exitCode, 0, screen(terminal).join("\n"));
      });
    });
  });

  it("acp chat: a permission request is asked after what came before it, and answered", async () => {
    await withTempDir(async (cwd) => {
      await inTerminal(["--cwd", cwd], agentArgv("terminal_agent"), async (terminal) => {
        await lastLine(terminal, (line) => line === "›", "the first prompt");
        terminal.type("permission\r");
        await lastLine(terminal, (line) => line.startsWith("Choose 1-2:"), "the question");
        const lines = screen(terminal);
        const asked = lines.findIndex((line) => line.startsWith("The agent asks permission"));
        assert.ok(asked > lines.indexOf("> permission"), lines.join("\n"));
        assert.deepEqual(lines.slice(asked + 1, asked + 3), [
          "  1) allow_once [allow_once]",
          "  2) reject_once [reject_once]",
        ]);
        terminal.type("1\r");
        await terminal.waitForText(
          'REPORT {"name":"permission","value":{"outcome":"selected","optionId":"allow_once"}}',
          STEP_MS,
        );
        await lastLine(terminal, (line) => line === "›", "the prompt after the turn");
        terminal.sendKeys("C-d");
        assert.equal((await terminal.wait()).exitCode, 0, screen(terminal).join("\n"));
      });
    });
  });

  it("acp chat: Ctrl+C during a turn cancels it and the chat goes on", async () => {
    await withTempDir(async (cwd) => {
      await inTerminal(["--cwd", cwd], agentArgv("terminal_agent"), async (terminal) => {
        await lastLine(terminal, (line) => line === "›", "the first prompt");
        terminal.type("hang\r");
        await terminal.waitForText(/REPORT \{"name":"pids"/, STEP_MS);
        terminal.sendKeys("C-c");
        await terminal.waitForText("Turn ended: cancelled", STEP_MS);
        await lastLine(terminal, (line) => line === "›", "the prompt after the cancelled turn");
        terminal.type("echo still here\r");
        await terminal.waitForText("echo: still here", STEP_MS);
        terminal.sendKeys("C-d");
        const status = await terminal.wait();
        assert.equal(status.exitCode, 4, screen(terminal).join("\n"));
      });
    });
  });
  itWhen(
    HAS_BWRAP && existsSync("/usr/bin/python3"),
    "acp chat: a sandboxed agent cannot type into the person's terminal (TIOCSTI) to answer its own question",
    async () => {
      await withTempDir(async (cwd) => {
        const config = join(cwd, "termbridge-test.jsonc");
        writeFileSync(config, JSON.stringify({ sandbox: { mode: "workspace-write" } }));
        const args = ["--cwd", cwd, "--config", config];
        await inTerminal(args, agentArgv("typing_agent"), async (terminal) => {
          await lastLine(terminal, (line) => line === "›", "the first prompt");
          terminal.type("go\r");
          await terminal.waitForText(/REPORT \{"name":"typed"/, STEP_MS);
          const typed = screen(terminal).find((line) => line.includes('"name":"typed"')) ?? "";
          assert.doesNotMatch(typed, /"value":"typed"/, screen(terminal).join("\n"));
          // The question still waits for the person, who says no.
          terminal.type("2\r");
          await terminal.waitForText(/REPORT \{"name":"permission"/, STEP_MS);
          const answer = screen(terminal).find((line) => line.includes('"name":"permission"'));
          assert.match(answer ?? "", /"optionId":"reject"/, screen(terminal).join("\n"));
          terminal.sendKeys("C-d");
          await terminal.wait();
        });
      });
    },
  );
});
