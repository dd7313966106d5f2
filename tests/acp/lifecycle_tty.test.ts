/**
 * The parts of ACP v1's lifecycle that need a person, with `termbridge acp`
 * (the built binary when current) in a real PTY: an agent's question
 * (`elicitation/create`) answered field by field in the chat, and terminal
 * authentication, the agent's login run in a PTY the person types into.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { agentArgv, termbridgeUnderTest, withTempDir } from "./acp_run.ts";

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

/** The screen and scrollback, wrapped lines joined. */
function screen(terminal: Terminal): string {
  return terminal.lines({ scope: "all", joinWrapped: true }).join("\n");
}

/** Waits until `text` shows on the screen (wrapped lines joined). */
async function shows(terminal: Terminal, text: string): Promise<void> {
  await terminal.waitFor(
    () => screen(terminal).includes(text) ? true : undefined,
    JSON.stringify(text),
    STEP_MS,
  );
}

/** Waits until the last line with text on the screen starts with `start`. */
async function lastLineStarts(terminal: Terminal, start: string): Promise<void> {
  await terminal.waitFor(
    () => (terminal.lines({ scope: "all" }).at(-1) ?? "").startsWith(start) ? true : undefined,
    JSON.stringify(start),
    STEP_MS,
  );
}

describe("acp lifecycle in a terminal", () => {
  it("acp chat: the agent's question is asked field by field, checked, and answered", async () => {
    await withTempDir(async (cwd) => {
      await inTerminal(["--cwd", cwd], agentArgv("session_agent"), async (terminal) => {
        await lastLineStarts(terminal, "›");
        terminal.type("ask\r");
        await lastLineStarts(terminal, "Answer? [y/n]");
        assert.match(screen(terminal), /The agent asks: Which database\?/);
        terminal.type("y\r");
        await lastLineStarts(terminal, "Engine:");
        assert.match(screen(terminal), / {2}1\) PostgreSQL\n {2}2\) SQLite\n/);
        terminal.type("2\r");
        await lastLineStarts(terminal, "Port:");
        terminal.type("lots\r");
        await shows(terminal, "Please type a number.");
        terminal.type("70000\r");
        await shows(terminal, "Please type a number of at most 65535.");
        terminal.type("5432\r");
        await lastLineStarts(terminal, "Seed data [y/n] (default false) (optional):");
        terminal.type("\r");
        await lastLineStarts(terminal, "Note (optional):");
        terminal.type("\r");
        await shows(
          terminal,
          'REPORT {"name":"elicitation","value":{"action":"accept","content":{"engine":"sqlite","port":5432,"seed":false}}}',
        );
        await shows(terminal, `The agent's question "Which database?": answered`);
        await lastLineStarts(terminal, "›");
        terminal.type("ask\r");
        await lastLineStarts(terminal, "Answer? [y/n]");
        terminal.type("n\r");
        await shows(terminal, 'REPORT {"name":"elicitation","value":{"action":"decline"}}');
        await lastLineStarts(terminal, "›");
        terminal.sendKeys("C-d");
        assert.equal((await terminal.wait()).exitCode, 0, screen(terminal));
      });
    });
  });

  it("acp auth: a terminal login runs the agent's login in a PTY the person types into", async () => {
    await withTempDir(async (cwd) => {
      const file = join(cwd, "token");
      const agent = ["env", `TB_LOGIN_FILE=${file}`, ...agentArgv("login_agent")];
      await inTerminal(["--cwd", cwd, "--auth", "login"], agent, async (terminal) => {
        await lastLineStarts(terminal, "Token:");
        assert.match(screen(terminal), /Log in to login-agent \(stdin: tty\)/);
        terminal.type("s3cret\r");
        await shows(terminal, 'Logged in with "login"');
        await lastLineStarts(terminal, "›");
        terminal.type("hi\r");
        await shows(terminal, "logged in as s3cret terminal tty");
        await lastLineStarts(terminal, "›");
        terminal.sendKeys("C-d");
        assert.equal((await terminal.wait()).exitCode, 0, screen(terminal));
      });
    });
  });

  it("acp auth: a failed terminal login ends the run with exit 6 and says how it ended", async () => {
    await withTempDir(async (cwd) => {
      const file = join(cwd, "token");
      const agent = ["env", `TB_LOGIN_FILE=${file}`, ...agentArgv("login_agent")];
      await inTerminal(["--cwd", cwd, "--auth", "login"], agent, async (terminal) => {
        await lastLineStarts(terminal, "Token:");
        terminal.type("\r");
        assert.equal((await terminal.wait()).exitCode, 6, screen(terminal));
        assert.match(
          screen(terminal),
          /Cannot authenticate with "login": the login \(.*--login\) exited with code 3/,
        );
        assert.equal(existsSync(file), false);
      });
    });
  });
});
