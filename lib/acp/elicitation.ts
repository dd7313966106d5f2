/**
 * `elicitation/create`: the agent asks the person for information. A form is
 * asked field by field in the chat (typed, checked against its schema); a
 * URL is shown and the person says when they are done. Without a person to
 * ask, the question is declined, and termbridge says so.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { sanitize } from "./render/text.ts";

/** Asks a person: writes text and reads a line (undefined once cancelled or closed). */
export interface Asker {
  say(text: string): void;
  question(text: string, signal: AbortSignal): Promise<string | undefined>;
}

/** The answer and a line saying what happened, for the output. */
export interface ElicitationOutcome {
  response: acp.CreateElicitationResponse;
  summary: string;
}

type Value = string | number | boolean | string[];
type Fields = Record<string, unknown>;

/** The values a field offers (enum, oneOf, or the items of a multi-select), with their labels. */
function choicesOf(schema: Fields): { value: string; label: string }[] | undefined {
  const source = schema.type === "array" ? (schema.items as Fields | undefined) ?? {} : schema;
  if (Array.isArray(source.enum)) {
    return (source.enum as unknown[]).map((v) => ({ value: String(v), label: String(v) }));
  }
  const options = Array.isArray(source.oneOf) ? source.oneOf : source.anyOf;
  if (Array.isArray(options)) {
    return (options as Fields[]).map((o) => ({
      value: String(o.const),
      label: String(o.title ?? o.const),
    }));
  }
  return undefined;
}

/** Reads one typed answer; a string is the error to show. */
function parseAnswer(schema: Fields, raw: string): Value | { error: string } {
  const text = raw.trim();
  const choices = choicesOf(schema);
  const pick = (word: string) => {
    const index = Number(word) - 1;
    if (choices === undefined) return word;
    if (Number.isInteger(index) && index >= 0 && index < choices.length) {
      return choices[index].value;
    }
    return choices.find((c) => c.value === word)?.value;
  };
  switch (schema.type) {
    case "boolean":
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      return { error: "Please answer y or n." };
    case "number":
    case "integer": {
      const number = Number(text);
      if (text === "" || !Number.isFinite(number)) return { error: "Please type a number." };
      if (schema.type === "integer" && !Number.isInteger(number)) {
        return { error: "Please type a whole number." };
      }
      if (typeof schema.minimum === "number" && number < schema.minimum) {
        return { error: `Please type a number of at least ${schema.minimum}.` };
      }
      if (typeof schema.maximum === "number" && number > schema.maximum) {
        return { error: `Please type a number of at most ${schema.maximum}.` };
      }
      return number;
    }
    case "array": {
      const picked = text.split(",").map((w) => w.trim()).filter((w) => w !== "").map(pick);
      if (picked.some((p) => p === undefined)) {
        return {
          error: `Please type numbers from 1 to ${choices?.length ?? 0}, separated by commas.`,
        };
      }
      return picked as string[];
    }
    default: {
      const value = pick(text);
      if (value === undefined) {
        return { error: `Please type a number from 1 to ${choices?.length ?? 0}.` };
      }
      if (typeof schema.minLength === "number" && value.length < schema.minLength) {
        return { error: `Please type at least ${schema.minLength} characters.` };
      }
      if (typeof schema.maxLength === "number" && value.length > schema.maxLength) {
        return { error: `Please type at most ${schema.maxLength} characters.` };
      }
      if (typeof schema.pattern === "string") {
        try {
          if (!new RegExp(schema.pattern, "u").test(value)) {
            return { error: `The answer must match ${schema.pattern}.` };
          }
        } catch {
          // A pattern JavaScript cannot read: not checked here; the agent checks its own.
        }
      }
      return value;
    }
  }
}

const KNOWN_TYPES = new Set(["string", "number", "integer", "boolean", "array"]);

/** Removes control characters, so the agent's text cannot move the cursor or recolour the screen. */
function clean(text: unknown): string {
  return sanitize(String(text ?? ""));
}

/**
 * Asks the person the agent's question. Cancelling (`signal`, Ctrl+C, end of
 * input) answers `cancel`; answering `n` at the first question, `decline`.
 */
export async function askElicitation(
  request: acp.CreateElicitationRequest,
  asker: Asker,
  signal: AbortSignal,
): Promise<ElicitationOutcome> {
  const cancelled = { response: { action: "cancel" as const }, summary: "cancelled" };
  const declined = { response: { action: "decline" as const }, summary: "declined by you" };
  const fields = request as unknown as Fields;
  asker.say(`\nThe agent asks: ${clean(request.message)}\n`);
  if (fields.mode === "url") {
    asker.say(`Open this address: ${clean(fields.url)}\n`);
    const answer = await asker.question("Press Enter when done, or type n to decline: ", signal);
    if (answer === undefined) return cancelled;
    if (/^n/i.test(answer.trim())) return declined;
    return { response: { action: "accept" }, summary: "done (URL)" };
  }
  if (fields.mode !== "form") {
    return {
      response: { action: "decline" },
      summary: `declined: termbridge cannot show a question of mode ${JSON.stringify(fields.mode)}`,
    };
  }
  const schema = (fields.requestedSchema ?? {}) as Fields;
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Fields>);
  const unknown = properties.find(([, p]) => !KNOWN_TYPES.has(String(p?.type)));
  if (unknown !== undefined) {
    return {
      response: { action: "decline" },
      summary: `declined: field ${JSON.stringify(unknown[0])} has a type termbridge cannot ask (${
        JSON.stringify(unknown[1]?.type)
      })`,
    };
  }
  const go = await asker.question("Answer? [y/n] ", signal);
  if (go === undefined) return cancelled;
  if (!/^y/i.test(go.trim())) return declined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const content: Record<string, Value> = {};
  for (const [name, property] of properties) {
    const answer = await askField(name, property, required.has(name), asker, signal);
    if (answer === "cancelled") return cancelled;
    if (answer !== undefined) content[name] = answer;
  }
  return { response: { action: "accept", content }, summary: "answered" };
}

/** Asks one field until the answer fits; undefined when left empty and optional. */
async function askField(
  name: string,
  property: Fields,
  required: boolean,
  asker: Asker,
  signal: AbortSignal,
): Promise<Value | undefined | "cancelled"> {
  const title = clean(property.title ?? name);
  const description = property.description ? ` (${clean(property.description)})` : "";
  const choices = choicesOf(property);
  if (choices !== undefined) {
    asker.say(choices.map((c, i) => `  ${i + 1}) ${clean(c.label)}`).join("\n") + "\n");
  }
  const fallback = property.default;
  const hint = property.type === "boolean"
    ? " [y/n]"
    : property.type === "array"
    ? " [numbers, comma-separated]"
    : "";
  const shownDefault = fallback === undefined || fallback === null
    ? ""
    : ` (default ${clean(Array.isArray(fallback) ? fallback.join(",") : fallback)})`;
  for (;;) {
    const raw = await asker.question(
      `${title}${description}${hint}${shownDefault}${required ? "" : " (optional)"}: `,
      signal,
    );
    if (raw === undefined) return "cancelled";
    if (raw.trim() === "") {
      if (fallback !== undefined && fallback !== null) return fallback as Value;
      if (!required) return undefined;
      asker.say("An answer is required.\n");
      continue;
    }
    const value = parseAnswer(property, raw);
    if (typeof value === "object" && !Array.isArray(value)) {
      asker.say(`${value.error}\n`);
      continue;
    }
    return value;
  }
}
