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
