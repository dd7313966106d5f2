/**
 * The PATH a wrapper finds its program with, when it is not the line's:
 * `command -p` and execvp with PATH unset (`env -i`, `env -u PATH`) search
 * the standard path, a shell started without PATH sets its own, `setpriv
 * --reset-env` and a login `su`/`runuser` set the user's, `sudo` may use its
 * secure_path. The program is judged as found there.
 * @module
 */

import { readFileSync } from "node:fs";

/** What execvp searches when PATH is unset (glibc's confstr(_CS_PATH), `getconf PATH`); also `command -p`'s. */
export const STANDARD_PATH = "/bin:/usr/bin";

/** The PATH a shell gives itself when it starts without one (bash's; dash's holds the same directories). */
export const SHELL_DEFAULT_PATH = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.";

/** `setpriv --reset-env`'s PATH for root and for another user (setpriv(1)). */
export const RESET_PATHS = [
  "/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin",
  "/usr/local/bin:/bin:/usr/bin",
];

/**
 * sudo's secure_path as Debian and Ubuntu ship it (sudoers is not readable
 * here): with it, sudo finds the program there, without it in the line's PATH.
 */
export const SECURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin";

/** The safe PATH doas gives the program unless its rule keeps the environment (OpenDoas). */
export const DOAS_PATH = "/bin:/sbin:/usr/bin:/usr/sbin:/usr/local/bin:/usr/local/sbin";

let login: string[] | undefined;

/**
 * The PATHs a login `su`/`runuser` sets, for root and for another user:
 * /etc/login.defs' ENV_SUPATH and ENV_PATH, else su(1)'s defaults.
 */
export function loginPaths(): string[] {
  if (login !== undefined) return login;
  let defs = "";
  try {
    defs = readFileSync("/etc/login.defs", "utf8");
  } catch {
    // No login.defs: su uses its built-in defaults.
  }
  const value = (name: string) =>
    new RegExp(`^\\s*${name}\\s+(?:PATH=)?(\\S+)`, "m").exec(defs)?.[1];
  login = [
    value("ENV_SUPATH") ?? value("ENV_ROOTPATH") ?? RESET_PATHS[0],
    value("ENV_PATH") ?? RESET_PATHS[1],
  ];
  return login;
}

/** Whether `path` is one of the system PATHs above, not one the line gives (`env PATH=DIR`). */
export function isSystemPath(path: string): boolean {
  return path === SECURE_PATH || path === DOAS_PATH || RESET_PATHS.includes(path) ||
    loginPaths().includes(path);
}
