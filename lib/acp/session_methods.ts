/**
 * The interactive-session API as JSON-RPC methods of `termbridge serve`
 * (`sessions/open`, `sessions/exec`, ...), validated with zod schemas.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import * as z from "zod";
import type { SessionManager } from "../sessions/manager.ts";
import { linesToText } from "../terminal/screen.ts";
import { mapped } from "./client_handlers.ts";

const name = z.string().describe("session name");
const timeout = z.number().int().min(0).max(3_600_000).optional();
const size = z.number().int().min(2).max(1000);

const schemas = {
  open: z.object({
    name,
    program: z.array(z.string()).min(1).optional(),
    cwd: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    cols: size.optional(),
    rows: size.optional(),
    record: z.string().optional(),
    recordOverwrite: z.boolean().optional(),
  }),
  named: z.object({ name }),
  screenshot: z.object({ name, format: z.enum(["plain", "ansi"]).optional() }),
  type: z.object({ name, text: z.string(), paste: z.boolean().optional() }),
  key: z.object({ name, keys: z.array(z.string()).min(1) }),
  exec: z.object({ name, command: z.string(), timeout }),
  input: z.object({ name, text: z.string(), enter: z.boolean().optional(), timeout }),
  screen: z.object({
    name,
    scope: z.enum(["visible", "all"]).optional(),
    joinWrapped: z.boolean().optional(),
  }),
  wait: z.object({
    name,
    text: z.string().optional(),
    regex: z.string().optional(),
    gone: z.boolean().optional(),
    scope: z.enum(["visible", "all"]).optional(),
    idleMs: z.number().int().min(1).optional(),
    prompt: z.boolean().optional(),
    exit: z.boolean().optional(),
    timeout,
  }),
  resize: z.object({ name, cols: size, rows: size }),
  record: z.object({ name, path: z.string().nullable(), overwrite: z.boolean().optional() }),
  /** No params (made once: a zod schema costs the server something on every connection). */
  none: z.object({}).optional(),
};

/** Default wait of `sessions/exec`, `input` and `wait`, in milliseconds. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** The method names, for `initialize` and the README. */
export const SESSION_METHODS = [
  "sessions/open",
  "sessions/list",
  "sessions/close",
  "sessions/type",
  "sessions/key",
  "sessions/exec",
  "sessions/input",
  "sessions/screen",
  "sessions/screenshot",
  "sessions/clear",
  "sessions/wait",
  "sessions/resize",
  "sessions/record",
] as const;

/** Registers the `sessions/*` methods over `sessions`. */
export function serveSessions(app: acp.ClientApp, sessions: SessionManager): acp.ClientApp {
  const on = <S extends z.ZodType, R>(
    method: (typeof SESSION_METHODS)[number],
    schema: S,
    handler: (params: z.infer<S>, signal: AbortSignal) => R | Promise<R>,
  ) => app.onRequest(method, schema, ({ params, signal }) => mapped(() => handler(params, signal)));
  on("sessions/open", schemas.open, async (p) => (await sessions.open(p)).info());
  on("sessions/list", schemas.none, () => ({ sessions: sessions.list() }));
  on("sessions/close", schemas.named, async (p) => {
    await sessions.close(p.name);
    return {};
  });
  on("sessions/type", schemas.type, (p) => {
    sessions.get(p.name).type(p.text, { paste: p.paste });
    return { typed: [...p.text].length };
  });
  on("sessions/key", schemas.key, (p) => {
    sessions.get(p.name).keys(p.keys);
    return { sent: p.keys };
  });
  on(
    "sessions/exec",
    schemas.exec,
    (p, signal) => sessions.get(p.name).exec(p.command, p.timeout ?? DEFAULT_TIMEOUT_MS, signal),
  );
  on(
    "sessions/input",
    schemas.input,
    (p, signal) =>
      sessions.get(p.name).input(p.text, {
        enter: p.enter,
        timeoutMs: p.timeout ?? DEFAULT_TIMEOUT_MS,
        signal,
      }),
  );
  on("sessions/screen", schemas.screen, (p) => {
    const lines = sessions.get(p.name).terminal.lines({
      scope: p.scope ?? "all",
      joinWrapped: p.joinWrapped,
    });
    return { content: linesToText(lines), lines };
  });
  on("sessions/screenshot", schemas.screenshot, (p) => sessions.get(p.name).screenshot(p.format));
  on("sessions/clear", schemas.named, (p) => {
    sessions.get(p.name).terminal.clear();
    return {};
  });
  on("sessions/wait", schemas.wait, (p, signal) => {
    const { name: session, timeout: ms, ...condition } = p;
    return sessions.get(session).wait(condition, ms ?? DEFAULT_TIMEOUT_MS, signal);
  });
  on("sessions/resize", schemas.resize, (p) => {
    sessions.get(p.name).resize(p.cols, p.rows);
    return {};
  });
  on("sessions/record", schemas.record, (p) => {
    sessions.get(p.name).record(p.path, { overwrite: p.overwrite });
    return { recording: p.path };
  });
  return app;
}
