/**
 * What a shell's script path names (`bash FILE`): a file, standard input by
 * another spelling (`/dev/./stdin`, `//dev/stdin`, `/proc/self/root/dev/stdin`),
 * or some other device or process file (also through a link), whose contents
 * are not known; and what a shell given one runs (`scriptReading`).
 * @module
 */

import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { absolute } from "./paths.ts";
import { followPath } from "./resolve.ts";

/** Standard input, by its names. */
const STDIN = /^\/(dev\/stdin|dev\/fd\/0|proc\/(self|thread-self)\/fd\/0)$/;

/** Paths of devices and process files: not a script file whose name says what it is. */
const SPECIAL = /^\/(dev|proc)(\/|$)/;

/**
 * Where a script path leads: `stdin`, `special` (another descriptor, a
 * device, a process's file), or `file`. The path is read lexically (`.`, `..`,
 * repeated slashes, `/proc/PID/root`) and through the links of its directory
 * as far as they exist now.
 */
export function scriptPlace(path: string, cwd: string): "stdin" | "special" | "file" {
  const places = [withoutRoot(resolve(cwd, path))];
  const full = places[0];
  try {
    places.push(withoutRoot(resolve(realpathSync(dirname(full)), basename(full))));
  } catch {
    // The directory does not exist (yet): the lexical path is all there is.
  }
  if (places.some((place) => STDIN.test(place))) return "stdin";
  if (places.some((place) => SPECIAL.test(place) && place !== "/dev/null")) return "special";
  // A link into a process's files (`ln -s /proc/self/fd/0 x; ... | bash ./x`) is the shell's own.
  if (followPath(absolute(cwd, path)).process) return "special";
  return "file";
}

/**
 * What a shell's script file (`bash FILE`) says of what it runs: it reads
 * standard input; why its commands cannot be known (a relative path after
 * the line changed directory, a device or process file, a file that does not
 * exist yet, which the line may create); or null, a file whose contents are
 * not read.
 * @param shell how the shell is shown (`bash`)
 */
export function scriptReading(
  path: string,
  shell: string,
  where: { cwd: string; changedDirectory: boolean },
): "stdin" | { unknown: string } | null {
  if (where.changedDirectory && !path.startsWith("/")) {
    return {
      unknown: `the line changes directory before ${shell} runs "${path}", a relative path`,
    };
  }
  const place = scriptPlace(path, where.cwd);
  if (place === "stdin") return "stdin";
  if (place === "special") {
    return {
      unknown: `${shell} runs "${path}", a device or process file whose contents are not known`,
    };
  }
  if (!existsSync(resolve(where.cwd, path))) {
    return {
      unknown:
        `${shell} runs the script "${path}", which does not exist yet, so what it runs cannot be known`,
    };
  }
  return null;
}

/** A path with `/proc/PID/root` prefixes removed (each is a link to `/`). */
function withoutRoot(path: string): string {
  let previous = "";
  while (previous !== path) {
    previous = path;
    path = resolve("/", path.replace(/^\/proc\/[^/]+\/root(?=\/|$)/, "") || "/");
  }
  return path;
}
