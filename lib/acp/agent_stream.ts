/**
 * What termbridge does to an agent's stdout before the ACP connection sees
 * it: lines that are not JSON-RPC (a banner, a "use --acp" hint) are set
 * aside for diagnostics instead of being answered with parse errors, and
 * every `session/update` is shown as it is read and checked against the ACP
 * schema, so that an invalid one is reported in one labelled line instead
 * of an object dump from deep inside the SDK.
 * @module
 */

import { Buffer } from "node:buffer";
import type * as acp from "@agentclientprotocol/sdk";
// The SDK validates with this schema but does not export it; the file ships in its package.
import { zSessionNotification } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

/** Most bytes of one non-JSON line kept for a diagnostic. */
const NOISE_LINE_BYTES = 500;

const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/** Whether a byte is JSON whitespace (space, tab, CR, LF). */
function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === NEWLINE;
}

/**
 * Passes on the lines of `input` that start (after blanks) with `{` or `[`,
 * from that byte on, as they arrive (never buffered); calls `onNoise` with
 * each other line (cut to 500 bytes) instead. Blank lines are dropped.
 *
 * @param input The agent's stdout.
 * @param onNoise Called with each line that is not JSON-RPC, without its line end.
 * @returns The JSON lines, for `ndJsonStream`.
 * @example
 * ```ts
 * const lines = separateNoise(child.stdout, (line) => console.error(`agent: ${line}`));
 * const stream = acp.ndJsonStream(child.stdin, lines);
 * ```
 */
export function separateNoise(
  input: ReadableStream<Uint8Array>,
  onNoise: (line: string) => void,
): ReadableStream<Uint8Array> {
  /** What the current line is: not known yet (only blanks so far), JSON, or noise. */
  let state: "start" | "json" | "noise" = "start";
  let noise: Uint8Array[] = [];
  let noiseBytes = 0;
  const keepNoise = (bytes: Uint8Array) => {
    const room = NOISE_LINE_BYTES - noiseBytes;
    if (room <= 0 || bytes.length === 0) return;
    const kept = bytes.subarray(0, room);
    noise.push(kept);
    noiseBytes += kept.length;
  };
  const endNoise = () => {
    const line = decoder.decode(Buffer.concat(noise)).replace(/\r$/, "");
    noise = [];
    noiseBytes = 0;
    onNoise(line);
  };
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          if (state === "start") {
            let i = start;
            while (i < chunk.length && isBlank(chunk[i]) && chunk[i] !== NEWLINE) i++;
            if (i === chunk.length) return; // Only blanks so far: wait for more.
            if (chunk[i] === NEWLINE) {
              start = i + 1; // A blank line: nothing to pass on.
              continue;
            }
            state = chunk[i] === 0x7b || chunk[i] === 0x5b ? "json" : "noise";
            start = i;
          }
          const end = chunk.indexOf(NEWLINE, start);
          const stop = end === -1 ? chunk.length : end + 1;
          if (state === "json") {
            controller.enqueue(chunk.subarray(start, stop));
          } else {
            keepNoise(chunk.subarray(start, end === -1 ? stop : end));
            if (end !== -1) endNoise();
          }
          if (end !== -1) state = "start";
          start = stop;
        }
      },
      flush(controller) {
        if (state === "noise") endNoise();
        else if (state === "json") controller.enqueue(new Uint8Array([NEWLINE]));
      },
    }),
  );
}

/** A `session/update` that fails the ACP schema. */
export interface InvalidUpdate {
  /** The raw JSON-RPC message. */
  message: acp.AnyMessage;
  /** Its `sessionUpdate` kind, when it has one. */
  kind?: string;
  /** What is wrong, e.g. `used: expected number, received null`. */
  problem: string;
}

/** Callbacks of {@linkcode checkUpdates}. */
export interface UpdateHandlers {
  /** A valid update, or one of a kind newer than termbridge (shown as far as it can be). */
  update(params: acp.SessionNotification): void;
  /** An update of a known kind that fails the schema; it is not passed on. */
  invalid(invalid: InvalidUpdate): void;
}

interface Issue {
  code?: string;
  path?: PropertyKey[];
  message?: string;
  errors?: Issue[][];
}

/** Whether the issues of a union branch say it is for another `sessionUpdate` kind. */
function otherKind(issues: Issue[]): boolean {
  return issues.some((issue) =>
    issue.code === "invalid_value" && issue.path?.at(-1) === "sessionUpdate"
  );
}

/** `path: problem` phrases for zod issues, looking into the branch of a union that applies. */
function describe(issues: Issue[], prefix: PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...(issue.path ?? [])];
    if (issue.code === "invalid_union" && issue.errors !== undefined) {
      const branches = issue.errors.filter((branch) => !otherKind(branch));
      if (branches.length === 1) return describe(branches[0], path);
    }
    const where = path.length === 0 ? "" : `${path.map(String).join(".")}: `;
    return [`${where}${(issue.message ?? "invalid").replace(/^Invalid input: /, "")}`];
  });
}

/**
 * Checks a `session/update` against the ACP schema.
 *
 * @returns `"valid"`, `"unknown kind"` (a kind newer than the schema, which
 *   clients must ignore gracefully), or what is wrong.
 */
export function checkUpdate(params: unknown): "valid" | "unknown kind" | { problem: string } {
  const result = zSessionNotification.safeParse(params);
  if (result.success) return "valid";
  const issues = result.error.issues as Issue[];
  const [union] = issues;
  const updateUnion = issues.length === 1 && union.code === "invalid_union" &&
    union.path?.length === 1 && union.path[0] === "update";
  if (!updateUnion) return { problem: describe(issues).join("; ") };
  const branches = union.errors!.filter((branch) => !otherKind(branch));
  if (branches.length === 0) return "unknown kind";
  return { problem: describe(branches.length === 1 ? branches[0] : issues).join("; ") };
}

/**
 * Calls `handlers.update` with the params of every `session/update`
 * notification as it is read, before the connection dispatches it (so
 * updates are handled in the order the agent sent them relative to its
 * responses), and takes out those the SDK would reject: an invalid one goes
 * to `handlers.invalid`, one of an unknown kind to `handlers.update` only.
 */
export function checkUpdates(stream: acp.Stream, handlers: UpdateHandlers): acp.Stream {
  const check = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const { method, id, params } = message as { method?: string; id?: unknown; params?: unknown };
      if (method !== "session/update" || id !== undefined) {
        controller.enqueue(message);
        return;
      }
      const verdict = checkUpdate(params);
      if (typeof verdict === "object") {
        const kind = (params as { update?: { sessionUpdate?: unknown } } | undefined)?.update
          ?.sessionUpdate;
        handlers.invalid({
          message,
          problem: verdict.problem,
          ...(typeof kind === "string" ? { kind } : {}),
        });
        return;
      }
      try {
        handlers.update(params as acp.SessionNotification);
      } catch (error) {
        console.error("termbridge: cannot show an update:", error); // Never fatal.
      }
      if (verdict === "valid") controller.enqueue(message);
    },
  });
  return { readable: stream.readable.pipeThrough(check), writable: stream.writable };
}
