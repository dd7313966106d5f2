/**
 * JSON-RPC ids echoed exactly as sent. `JSON.parse` turns the id
 * `18446744073709551616` into the nearest double, so a response would carry
 * other digits than the request. Here a numeric id whose text a double cannot
 * hold is replaced by a string token while the message is handled, and the
 * token is turned back into the original digits when the message is written.
 * @module
 */

/** Tokens look like this, with a nonce per process: no client picks one by chance. */
const PREFIX = `\u0000jsonrpc-id-${crypto.randomUUID()}:`;
const TOKEN = new RegExp(
  `"${JSON.stringify(PREFIX).slice(1, -1).replace(/\\/g, "\\\\")}([^"]*)"`,
  "g",
);

/** The numbers in a line that a double cannot reproduce digit for digit (cheap pre-check). */
const INEXACT_HINT = /[0-9]{16}|[0-9][.eE]|-0/;

/** Where a parsed number's source text differs from what `JSON.stringify` would write back. */
type Inexact = Map<object, Map<string, string>>;

/** The id-like members that must keep their digits: the id itself, and the ids a cancellation names. */
function idMembers(message: Record<string, unknown>): Array<[Record<string, unknown>, string]> {
  const members: Array<[Record<string, unknown>, string]> = [[message, "id"]];
  const params = message.params;
  const cancels = typeof message.method === "string" && message.method.includes("cancel");
  if (cancels && typeof params === "object" && params !== null && !Array.isArray(params)) {
    members.push([params as Record<string, unknown>, "requestId"], [
      params as Record<string, unknown>,
      "id",
    ]);
  }
  return members;
}

/**
 * Parses one JSON text; numeric ids (`id`, and `params.requestId`/`params.id`
 * of a cancellation) whose digits a double cannot hold come back as tokens
 * that {@link stringifyMessage} writes as the original digits.
 * @throws {SyntaxError} when the text is not JSON
 * @example
 * ```ts
 * const message = parseMessage('{"jsonrpc":"2.0","id":18446744073709551616,"result":1}');
 * stringifyMessage(message); // '{"jsonrpc":"2.0","id":18446744073709551616,"result":1}'
 * ```
 */
export function parseMessage(text: string): unknown {
  if (!INEXACT_HINT.test(text)) return JSON.parse(text);
  const inexact: Inexact = new Map();
  const value = JSON.parse(
    text,
    function (this: object, key: string, value: unknown, context?: { source?: string }) {
      const source = context?.source;
      if (typeof value === "number" && source !== undefined && String(value) !== source) {
        const holder = inexact.get(this) ?? new Map<string, string>();
        holder.set(key, source);
        inexact.set(this, holder);
      }
      return value;
    },
  );
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  for (const [holder, key] of idMembers(value as Record<string, unknown>)) {
    const source = inexact.get(holder)?.get(key);
    if (source !== undefined) holder[key] = PREFIX + source;
  }
  return value;
}

/**
 * Serializes a message, writing tokenized ids back as their original digits.
 * @throws {RangeError} when the message is too large for a string
 */
export function stringifyMessage(message: unknown): string {
  const text = JSON.stringify(message);
  return text.includes("\\u0000jsonrpc-id-") ? text.replace(TOKEN, "$1") : text;
}

/** The end (the index after the closing quote) of the JSON string starting at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++; // A backslash escapes the next character.
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

/** A JSON-RPC id written at `from`: a string, a number (its digits kept), null; else undefined. */
function idAt(text: string, from: number): unknown {
  const rest = text.slice(from, from + 1024).trimStart();
  if (rest.startsWith('"')) {
    const end = stringEnd(rest, 0);
    try {
      return end < 0 ? undefined : JSON.parse(rest.slice(0, end));
    } catch {
      return undefined; // A bad escape: no id to recover.
    }
  }
  if (rest.startsWith("null")) return null;
  const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?=\s*[,}])/.exec(rest)?.[0];
  if (number === undefined) return undefined;
  return String(Number(number)) === number ? Number(number) : PREFIX + number;
}

/**
 * The `id` member of the object a raw line holds, read from its text without
 * parsing the rest: for a line `JSON.parse` cannot take (nested deeper than
 * its stack), so that the error reply still names the request. A numeric id
 * keeps its digits (see {@link stringifyMessage}). Undefined when the line is
 * no object or has no readable id; with several, the last (as `JSON.parse`).
 * @example rawId('{"id":7,"params":[[[[') // 7
 */
export function rawId(text: string): unknown {
  if (!text.trimStart().startsWith("{")) return undefined;
  let depth = 0;
  let id: unknown = undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      if (depth === 1 && text.slice(i, end) === '"id"') {
        const colon = /^\s*:/.exec(text.slice(end, end + 64));
        if (colon !== null) id = idAt(text, end + colon[0].length);
      }
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return id;
}

/**
 * How deeply `text` nests arrays and objects (strings skipped), counting up
 * to `limit + 1` at most: whether a line is deeper than a limit, read
 * without a parser's recursion.
 */
export function rawDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}
