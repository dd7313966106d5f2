/**
 * Fake model APIs that drive the REAL ACP adapters of node_modules offline.
 *
 * How to use (in a test, under Deno or Bun):
 * ```ts
 * const model = await startFakeAgent("claude", {
 *   calls: [shellCall("claude", "echo hi")],
 *   finalText: "Done.",
 * });
 * try {
 *   const result = await runAcp(model.argv, { cwd, prompts: ["go"], flags: ["--yes"], env: model.env });
 *   assert.match(model.toolResults()[0], /hi/); // what the agent told the model
 * } finally {
 *   await model.close(); // stops the server, removes the private HOME
 * }
 * ```
 * - `"claude"` runs `@zed-industries/claude-agent-acp` (with `node`); its
 *   Claude Code CLI talks to a fake Anthropic Messages API
 *   (`ANTHROPIC_BASE_URL`). Tools: `Bash {command}`, `Write {file_path,
 *   content}`, `Read {file_path}`, `Edit {file_path, old_string, new_string}`.
 * - `"codex"` runs `@zed-industries/codex-acp` (linux-x64 binary); it talks
 *   to a fake Responses API configured in `$CODEX_HOME/config.toml`. Tool:
 *   `exec_command {cmd}` (it reports `rawInput.command` as an argv array);
 *   add `sandbox_permissions: "require_escalated"` for a command it must ask
 *   about (`shellCall(agent, line, { escalated: true })`).
 * - Each run gets a private HOME (outside /tmp: codex refuses its sandbox
 *   helper there); pass `model.env` to the process that starts the agent
 *   (termbridge inherits it and hands it on).
 * - The model's side is recorded: `requests` (every HTTP request),
 *   `tools()` (the tool names it was offered), `toolResults()` (what the
 *   agent sent back for each scripted call, e.g. why it was refused).
 * @module
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { waitUntil } from "../../helpers.ts";
import {
  anthropicHandler,
  anthropicToolResults,
  anthropicTools,
  isMainTurn,
  type ModelScript,
  type ToolCall,
} from "./anthropic.ts";
import { type RecordedRequest, startHttpFake } from "./http_fake.ts";
import {
  isResponsesTurn,
  responsesHandler,
  responsesToolResults,
  responsesTools,
} from "./openai_responses.ts";

export type { ModelScript, RecordedRequest, ToolCall };

/** The real adapters the kit can drive. */
export type FakeAgentName = "claude" | "codex";

/** Both adapters, for tests that run once per agent. */
export const FAKE_AGENTS: readonly FakeAgentName[] = ["claude", "codex"];

/** A fake model serving one agent run; `close()` it in `finally`. */
export interface FakeAgent {
  agent: FakeAgentName;
  /** The fake API's base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /** Argv that starts the real adapter. */
  argv: string[];
  /** Environment the adapter needs (HOME, the API's URL and key...). */
  env: Record<string, string>;
  /** The private HOME (removed by `close()`). */
  home: string;
  /** Every HTTP request the fake was sent. */
  requests: RecordedRequest[];
  /** The tool names the agent offered the model in its last turn. */
  tools(): string[];
  /** What the agent sent back for each scripted call, in order. */
  toolResults(): string[];
  /** Everything the agent sent the model in its last main-loop turn (messages or input), as JSON text. */
  conversation(): string;
  close(): Promise<void>;
}

const MODULES = new URL("../../../node_modules/", import.meta.url).pathname;
const CLAUDE_ACP = `${MODULES}@zed-industries/claude-agent-acp/dist/index.js`;
const CODEX_ACP = `${MODULES}@zed-industries/codex-acp-linux-x64/bin/codex-acp`;
/** Private homes live here: not under /tmp (codex's sandbox helper refuses it). */
const HOMES = "/var/tmp/termbridge-fake-models";

/**
 * A scripted shell command for `agent`: Claude's `Bash {command}`, Codex's
 * `exec_command {cmd}`.
 */
export function shellCall(
  agent: FakeAgentName,
  command: string,
  options: { escalated?: boolean } = {},
): ToolCall {
  if (agent === "claude") {
    return { name: "Bash", input: { command, description: `Run ${command}` } };
  }
  const escalated = options.escalated
    ? { sandbox_permissions: "require_escalated", justification: "the test asks for it" }
    : {};
  return { name: "exec_command", input: { cmd: command, ...escalated } };
}

/** A scripted Claude `Write` of `content` to `path`. */
export function writeCall(path: string, content: string): ToolCall {
  return { name: "Write", input: { file_path: path, content } };
}

function claudeEnv(url: string, home: string): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-fake-termbridge-tests",
    // Claude Code refuses to run as root unless told it is in a sandbox (the test machines run as root).
    IS_SANDBOX: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}

function codexConfig(url: string): string {
  return [
    `model = "gpt-fake"`,
    `model_provider = "fake"`,
    `[model_providers.fake]`,
    `name = "fake"`,
    `base_url = "${url}/v1"`,
    `wire_api = "responses"`,
    "",
  ].join("\n");
}

/** Pids of the live processes whose environment has `HOME=home` (the agent's, whoever started them). */
export function processesWithHome(home: string): number[] {
  const wanted = `\0HOME=${home}\0`;
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") return false;
      return `\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(wanted);
    } catch {
      return false; // Gone, or not ours to read.
    }
  }).map(Number);
}

/** Starts a fake model API for `agent` replaying `script`, with a private HOME. */
export async function startFakeAgent(
  agent: FakeAgentName,
  script: ModelScript,
): Promise<FakeAgent> {
  mkdirSync(HOMES, { recursive: true });
  const home = mkdtempSync(`${HOMES}/${agent}-`);
  const fake = await startHttpFake(
    agent === "claude" ? anthropicHandler(script) : responsesHandler(script),
  );
  let env: Record<string, string>;
  if (agent === "claude") {
    env = claudeEnv(fake.url, home);
  } else {
    const codexHome = `${home}/.codex`;
    mkdirSync(codexHome);
    writeFileSync(`${codexHome}/config.toml`, codexConfig(fake.url));
    env = { HOME: home, CODEX_HOME: codexHome };
  }
  return {
    agent,
    url: fake.url,
    argv: agent === "claude" ? ["node", CLAUDE_ACP] : [CODEX_ACP],
    env,
    home,
    requests: fake.requests,
    tools: () =>
      agent === "claude" ? anthropicTools(fake.requests, script) : responsesTools(fake.requests),
    toolResults: () =>
      agent === "claude"
        ? anthropicToolResults(fake.requests, script)
        : responsesToolResults(fake.requests, script),
    conversation: () => {
      const turns = fake.requests.filter((r) =>
        agent === "claude" ? isMainTurn(r, script) : isResponsesTurn(r, script)
      );
      const body = (turns.at(-1)?.body ?? {}) as { messages?: unknown; input?: unknown };
      return JSON.stringify(body.messages ?? body.input ?? []);
    },
    close: async () => {
      await fake.close();
      // A process of the agent's that outlived the run may still write there:
      // give such stragglers a moment to go (their leak is for the
      // containment tests to catch, not for every test using the kit).
      await waitUntil(() => processesWithHome(home).length === 0, "the agent's processes", 5_000)
        .catch(() => {});
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
