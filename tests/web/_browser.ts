/**
 * Browser tests' set-up: Debian's chromium driven by playwright-core, and a
 * dashboard page opened with a link from `termbridge web` in a test's world.
 * @module
 */

import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import type { World } from "../server/_kit.ts";
import { waitUntil } from "../helpers.ts";

/** Where chromium is (`make tools` installs Debian's), or undefined. */
export const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) =>
  existsSync(path)
);

/** Why the browser tests are skipped when they are. */
export const NO_CHROMIUM = "no chromium at /usr/bin/chromium; `make tools` installs it";

/** Starts headless chromium. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/** A new link with a fresh ticket from `termbridge web`. */
export async function webLink(world: World): Promise<string> {
  const link = (await world.ok(["web"])).trim();
  if (!/^http:\/\/127\.0\.0\.1:\d+\/\?ticket=/.test(link)) {
    throw new Error(`termbridge web printed "${link}", expected a link with a ticket`);
  }
  return link;
}

/** What each page opened by {@linkcode openDashboard} logged as an error, as `kind: text`. */
const problems = new WeakMap<Page, string[]>();

/**
 * What `page` logged as an error so far: console errors (a failed request
 * for the favicon counts), uncaught exceptions, CSP refusals.
 */
export function pageProblems(page: Page): readonly string[] {
  return problems.get(page) ?? [];
}

/** A dashboard page in a new browser context (its own cookies), connected. */
export async function openDashboard(browser: Browser, world: World): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const logged: string[] = [];
  problems.set(page, logged);
  page.on("console", (message) => {
    if (message.type() === "error") {
      logged.push(`console: ${message.text()} (${message.location().url})`);
    }
  });
  page.on("pageerror", (error) => logged.push(`uncaught: ${error.message}`));
  await page.goto(await webLink(world));
  await page.waitForFunction(() =>
    (globalThis as unknown as { termbridge: { state: { me: string | null } } }).termbridge.state
      .me !== null
  );
  return page;
}

/** The lines of the page's open terminal (scrollback and screen). */
export function pageLines(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (globalThis as unknown as { termbridge: { lines(): string[] } }).termbridge.lines()
  );
}

/** Waits until the page's open terminal shows a line matching `pattern`. */
export async function waitForPageText(
  page: Page,
  pattern: RegExp,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let lines: string[] = [];
  while (performance.now() < deadline) {
    lines = await pageLines(page);
    if (lines.some((line) => pattern.test(line))) return;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  throw new Error(
    `Timed out after ${timeoutMs} ms waiting for ${pattern} in the page; it shows:\n${
      lines.slice(-15).join("\n")
    }`,
  );
}

/** Waits until `check` holds for the CLI's `screen NAME`. */
export async function waitForScreen(
  world: World,
  name: string,
  check: (screen: string) => boolean,
  what: string,
): Promise<string> {
  let screen = "";
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    screen = await world.ok(["screen", name]);
    if (check(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what} on "${name}"'s screen:\n${screen}`);
}

export { waitUntil };
