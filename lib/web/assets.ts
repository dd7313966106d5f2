/**
 * The dashboard's files: the page (lib/web/page/) and xterm.js. The compiled
 * binary carries them (the Makefile embeds each as `NAME.asset`); run from
 * source, they are read where they are.
 * @module
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runtime } from "../runtime/mod.ts";

/** A file the dashboard serves: its bytes and content type. */
export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

/** Each served path: the file's name, where it lives in the sources, its content type. */
const FILES: Record<string, { name: string; source: () => string; type: string }> = {
  "/": {
    name: "index.html",
    source: () => fileURLToPath(import.meta.resolve("./page/index.html")),
    type: "text/html; charset=utf-8",
  },
  "/app.js": {
    name: "app.js",
    source: () => fileURLToPath(import.meta.resolve("./page/app.js")),
    type: "text/javascript; charset=utf-8",
  },
  "/player.js": {
    name: "player.js",
    source: () => fileURLToPath(import.meta.resolve("./page/player.js")),
    type: "text/javascript; charset=utf-8",
  },
  "/app.css": {
    name: "app.css",
    source: () => fileURLToPath(import.meta.resolve("./page/app.css")),
    type: "text/css; charset=utf-8",
  },
  "/xterm.js": {
    name: "xterm.js",
    source: () => fileURLToPath(import.meta.resolve("@xterm/xterm/lib/xterm.js")),
    type: "text/javascript; charset=utf-8",
  },
  "/xterm.css": {
    name: "xterm.css",
    source: () => fileURLToPath(import.meta.resolve("@xterm/xterm/css/xterm.css")),
    type: "text/css; charset=utf-8",
  },
};

const loaded = new Map<string, Promise<Asset | null>>();

/** The asset served at `path`, or null when there is none (loaded once, then kept). */
export function asset(path: string): Promise<Asset | null> {
  const file = FILES[path];
  if (file === undefined) return Promise.resolve(null);
  let found = loaded.get(path);
  if (found === undefined) {
    found = (async () => {
      const body = (await runtime.embeddedFile(`${file.name}.asset`) ??
        new Uint8Array(await readFile(file.source()))) as Uint8Array<ArrayBuffer>;
      return { body, type: file.type };
    })();
    loaded.set(path, found);
  }
  return found;
}
