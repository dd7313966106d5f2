/**
 * Firefox for the browser tests: Debian's firefox-esr, headless, with a fresh
 * profile, driven over WebDriver BiDi, the protocol Firefox speaks itself
 * (playwright-core's own Firefox route needs Playwright's patched build).
 * A small client for the few commands the tests use: navigate, run a
 * function in the page, click an element and type keys as a person would.
 * @module
 */

import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import type { PipedProcess } from "../../lib/runtime/types.ts";

/** Where firefox-esr is (`make tools` installs Debian's), or undefined. */
export const FIREFOX = ["/usr/bin/firefox-esr"].find((path) => existsSync(path));

/** Why the Firefox tests are skipped when they are. */
export const NO_FIREFOX = "no firefox-esr at /usr/bin/firefox-esr; `make tools` installs it";

/** Time Firefox gets to start, and a command to answer (the test machine may be loaded). */
const START_MS = 30_000;
const COMMAND_MS = 30_000;

/** A profile that opens nothing on its own: no first-run pages, updates, telemetry or fetches. */
const PREFS: Record<string, string | number | boolean> = {
  "browser.shell.checkDefaultBrowser": false,
  "browser.startup.homepage_override.mstone": "ignore",
  "browser.startup.page": 0,
  "browser.aboutwelcome.enabled": false,
  "browser.newtabpage.enabled": false,
  "browser.sessionstore.resume_from_crash": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.downloads.enabled": false,
  "browser.region.network.url": "",
  "app.update.disabledForTesting": true,
  "app.update.auto": false,
  "app.normandy.enabled": false,
  "extensions.update.enabled": false,
  "datareporting.policy.dataSubmissionEnabled": false,
  "datareporting.healthreport.uploadEnabled": false,
  "toolkit.telemetry.reportingpolicy.firstRun": false,
  "toolkit.startup.max_resumed_crashes": -1,
  "messaging-system.rsexperimentloader.enabled": false,
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "services.settings.server": "data:,#remote-settings-off/v1",
};

/** A BiDi message from Firefox: a command's answer or an event. */
interface Message {
  type: "success" | "error" | "event";
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: string;
  message?: string;
}

/** A WebDriver BiDi connection: numbered commands, each answered once. */
class Bidi {
  #socket: WebSocket;
  #next = 1;
  #pending = new Map<
    number,
    { method: string; resolve(result: Record<string, unknown>): void; reject(e: Error): void }
  >();
  readonly closed: Promise<void>;
  /** Called with each event Firefox sends (after `session.subscribe`). */
  onEvent: (method: string, params: Record<string, unknown>) => void = () => {};

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    this.closed = new Promise((resolve) => {
      socket.addEventListener("close", () => {
        for (const { method, reject } of this.#pending.values()) {
          reject(new Error(`Firefox did not answer ${method}: the connection closed`));
        }
        this.#pending.clear();
        resolve();
      });
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as Message;
      if (message.type === "event") this.onEvent(message.method!, message.params ?? {});
      const waiting = message.id === undefined ? undefined : this.#pending.get(message.id);
      if (!waiting) return;
      this.#pending.delete(message.id!);
      if (message.type === "success") waiting.resolve(message.result ?? {});
      else {
        waiting.reject(
          new Error(`Firefox refused ${waiting.method}: ${message.error}: ${message.message}`),
        );
      }
    });
  }

  /** Connects to Firefox's BiDi endpoint (`ws://127.0.0.1:PORT/session`). */
  static connect(url: string): Promise<Bidi> {
    const socket = new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.addEventListener("open", () => resolve(new Bidi(socket)), { once: true });
      socket.addEventListener(
        "error",
        () => reject(new Error(`Cannot connect to Firefox at "${url}"`)),
        { once: true },
      );
    });
  }

  /** Sends command `method` and waits for its result. */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#next++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
      timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`Firefox did not answer ${method} within ${COMMAND_MS} ms`));
      }, COMMAND_MS);
    });
    this.#socket.send(JSON.stringify({ id, method, params }));
    return answer.finally(() => clearTimeout(timer));
  }

  /** Closes the connection (if Firefox has not) and waits until it is closed. */
  async close(): Promise<void> {
    if (this.#socket.readyState !== WebSocket.CLOSED) this.#socket.close();
    await this.closed;
  }
}

/** Reads `stream` to its end, passing its text to `seen`. */
function drain(stream: ReadableStream<Uint8Array>, seen: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  return stream.pipeTo(
    new WritableStream({ write: (chunk) => seen(decoder.decode(chunk, { stream: true })) }),
  ).catch(() => {});
}

/** Headless Firefox with its own profile, and a BiDi session to it. */
export class Firefox {
  #process: PipedProcess;
  #bidi: Bidi;
  #profile: string;
  #drained: Promise<unknown>;
  /** What the pages logged: console messages and uncaught errors, as `level: text`. */
  readonly logs: string[] = [];

  private constructor(
    process: PipedProcess,
    bidi: Bidi,
    profile: string,
    drained: Promise<unknown>,
  ) {
    this.#process = process;
    this.#bidi = bidi;
    this.#profile = profile;
    this.#drained = drained;
    bidi.onEvent = (method, params) => {
      if (method === "log.entryAdded") this.logs.push(`${params.level}: ${params.text}`);
    };
  }

  /** Starts Firefox (a fresh profile, a free port) and opens a BiDi session. */
  static async launch(): Promise<Firefox> {
    if (FIREFOX === undefined) throw new Error(`Cannot start Firefox: ${NO_FIREFOX}`);
    const profile = mkdtempSync(join(tmpdir(), "termbridge-firefox-"));
    writeFileSync(
      join(profile, "user.js"),
      Object.entries(PREFS).map(([key, value]) =>
        `user_pref(${JSON.stringify(key)}, ${JSON.stringify(value)});\n`
      ).join(""),
    );
    const child = runtime.spawnPiped({
      argv: [
        FIREFOX,
        "--headless",
        "--no-remote",
        "--remote-debugging-port=0",
        "--profile",
        profile,
      ],
      env: { ...runtime.env(), HOME: profile, MOZ_CRASHREPORTER_DISABLE: "1" },
      stderr: "pipe",
    });
    await child.stdin.close();
    let output = "";
    let announced: (url: string) => void = () => {};
    const listening = new Promise<string>((resolve) => announced = resolve);
    const seen = (text: string) => {
      output = (output + text).slice(-4096);
      const match = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(output);
      if (match) announced(match[1]);
    };
    const drained = Promise.all([drain(child.stdout, seen), drain(child.stderr!, seen)]);
    let bidi: Bidi | undefined;
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const url = await Promise.race([
        listening,
        child.exited.then((status) => {
          throw new Error(`Firefox exited (${JSON.stringify(status)}) before listening`);
        }),
        new Promise<never>((_, reject) =>
          timer = setTimeout(
            () => reject(new Error(`Firefox did not listen within ${START_MS} ms`)),
            START_MS,
          )
        ),
      ]).finally(() => clearTimeout(timer));
      bidi = await Bidi.connect(`${url}/session`);
      await bidi.send("session.new", { capabilities: {} });
      const firefox = new Firefox(child, bidi, profile, drained);
      await bidi.send("session.subscribe", { events: ["log.entryAdded"] });
      return firefox;
    } catch (error) {
      await bidi?.close();
      runtime.kill(child.pid, "SIGKILL");
      await child.exited;
      await drained;
      rmSync(profile, { recursive: true, force: true });
      throw new Error(`Cannot start Firefox: ${(error as Error).message}\n${output}`);
    }
  }

  /** The first tab, sized `width` x `height` CSS pixels. */
  async page(width = 1200, height = 800): Promise<FirefoxPage> {
    const tree = await this.#bidi.send("browsingContext.getTree", { maxDepth: 0 });
    const context = (tree.contexts as { context: string }[])[0].context;
    await this.#bidi.send("browsingContext.setViewport", {
      context,
      viewport: { width, height },
    });
    return new FirefoxPage(this.#bidi, context);
  }

  /** Closes Firefox (killing it if it does not end), and removes its profile. */
  async close(): Promise<void> {
    try {
      await this.#bidi.send("browser.close").catch(() => {});
      await this.#bidi.close();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ended = await Promise.race([
        this.#process.exited.then(() => true),
        new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), 15_000)),
      ]).finally(() => clearTimeout(timer));
      if (!ended) runtime.kill(this.#process.pid, "SIGKILL");
      await this.#process.exited;
      await this.#drained;
    } finally {
      rmSync(this.#profile, { recursive: true, force: true });
    }
  }
}

/** A function run in the page: its arguments and result travel as JSON. */
type PageFunction<A extends unknown[], R> = (...args: A) => R | Promise<R>;

/** One tab of Firefox. */
export class FirefoxPage {
  #bidi: Bidi;
  readonly context: string;

  constructor(bidi: Bidi, context: string) {
    this.#bidi = bidi;
    this.context = context;
  }

  /** Opens `url` and waits until it has loaded (after any redirects); returns where it ended. */
  async goto(url: string): Promise<string> {
    const result = await this.#bidi.send("browsingContext.navigate", {
      context: this.context,
      url,
      wait: "complete",
    });
    return String(result.url);
  }

  /** Reloads the page and waits until it has loaded. */
  async reload(): Promise<void> {
    await this.#bidi.send("browsingContext.reload", { context: this.context, wait: "complete" });
  }

  /** Runs `fn(...args)` in the page and returns its result (JSON-serializable). */
  async evaluate<A extends unknown[], R>(fn: PageFunction<A, R>, ...args: A): Promise<R> {
    const result = await this.#bidi.send("script.callFunction", {
      functionDeclaration: `async (json) => JSON.stringify(await (${fn})(...JSON.parse(json)))`,
      arguments: [{ type: "string", value: JSON.stringify(args) }],
      target: { context: this.context },
      awaitPromise: true,
      resultOwnership: "none",
    });
    if (result.type === "exception") {
      const details = result.exceptionDetails as { text?: string };
      throw new Error(`The page threw: ${details.text ?? JSON.stringify(details)}`);
    }
    const value = result.result as { type: string; value?: string };
    return (value.type === "string" ? JSON.parse(value.value!) : undefined) as R;
  }

  /**
   * Waits until `fn(...args)` returns true in the page; `wait` names what for the error,
   * and may give a timeout other than 30 s.
   */
  async waitFor<A extends unknown[]>(
    wait: string | { what: string; timeoutMs: number },
    fn: PageFunction<A, boolean>,
    ...args: A
  ): Promise<void> {
    const { what, timeoutMs } = typeof wait === "string"
      ? { what: wait, timeoutMs: COMMAND_MS }
      : wait;
    const deadline = performance.now() + timeoutMs;
    while (!(await this.evaluate(fn, ...args))) {
      if (performance.now() > deadline) {
        throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} in Firefox`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Clicks the middle of the element `selector` with the mouse (scrolled into view first). */
  async click(selector: string): Promise<void> {
    const point = await this.evaluate((selector: string) => {
      const element = document.querySelector(selector);
      if (!element) return null;
      element.scrollIntoView({ block: "center" });
      const rect = element.getBoundingClientRect();
      return { x: Math.round(rect.x + rect.width / 2), y: Math.round(rect.y + rect.height / 2) };
    }, selector);
    if (point === null) throw new Error(`Cannot click "${selector}": no such element in the page`);
    await this.#bidi.send("input.performActions", {
      context: this.context,
      actions: [{
        type: "pointer",
        id: "mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", x: point.x, y: point.y, origin: "viewport" },
          { type: "pointerDown", button: 0 },
          { type: "pointerUp", button: 0 },
        ],
      }],
    });
  }

  /** Types `text` with the keyboard into whatever has the focus ("\n" presses Enter). */
  async type(text: string): Promise<void> {
    const keys = [...text].map((char) => char === "\n" ? "\uE007" : char);
    await this.#bidi.send("input.performActions", {
      context: this.context,
      actions: [{
        type: "key",
        id: "keyboard",
        actions: keys.flatMap((value) => [
          { type: "keyDown", value },
          { type: "keyUp", value },
        ]),
      }],
    });
  }
}
