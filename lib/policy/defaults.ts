/**
 * The policy termbridge ships: ask before the obviously destructive, allow
 * the rest. `--policy off` (`POLICY_OFF`) allows everything without asking.
 * @module
 */

import type { PolicyRules } from "./types.ts";

/** `rm` spelled the usual ways with recursive and force flags, before `target`. */
function recursiveRemovals(target: string): string[] {
  const flags = [
    "-rf",
    "-fr",
    "-Rf",
    "-fR",
    "-rF",
    "-r -f",
    "-f -r",
    "-R -f",
    "-f -R",
    "--recursive --force",
    "--force --recursive",
    "-r",
    "-R",
    "--recursive",
  ];
  return flags.flatMap((flag) => [
    `rm ${flag} ${target}`,
    `rm ${flag} --no-preserve-root ${target}`,
    `rm --no-preserve-root ${flag} ${target}`,
  ]);
}

/** Devices that hold a machine's data or memory (not /dev/null, /dev/stdout or a terminal). */
const DEVICES = [
  "sd*",
  "hd*",
  "vd*",
  "xvd*",
  "nvme*",
  "mmcblk*",
  "md*",
  "dm-*",
  "mapper/*",
  "disk/*",
  "block/*",
  "loop*",
  "nbd*",
  "rbd*",
  "zd*",
  "bcache*",
  "mtd*",
  "sr*",
  "root",
  "mem",
  "kmem",
  "port",
];

/** `dd` with `of=` one of those devices among its first four operands. */
const DD = DEVICES.flatMap((device) =>
  ["", "* ", "* * ", "* * * "].map((before) => `dd ${before}of=/dev/${device}`)
);

/** The shipped default: asks before what destroys a machine or shared history; allows the rest. */
export const DEFAULT_POLICY_RULES: Readonly<PolicyRules> = Object.freeze({
  default: "allow",
  ask: [
    ...["/", "'/*'", "~", "~/", "~/'*'"].flatMap(recursiveRemovals),
    "mkfs",
    "mkfs.*",
    "mke2fs",
    "mkswap",
    "wipefs",
    ...DD,
    "shutdown",
    "reboot",
    "poweroff",
    "halt",
    "systemctl poweroff",
    "systemctl reboot",
    "systemctl halt",
    "init 0",
    "init 6",
    "chmod -R 777 /",
    "chmod 777 -R /",
    "chmod -R a+rwx /",
    "chmod --recursive 777 /",
    "git push --force*",
    "git push -f",
    "git push * --force*",
    "git push * -f",
    "git push * * --force*",
    "git push * * -f",
    "git push +*",
    "git push * +*",
  ],
  // The fork bomb `:(){ :|:& };:` is caught by its shape (a function that calls
  // itself), which makes any line ask whenever the policy has an ask or deny rule.
});

/** `--policy off`: no rules, everything allowed, nothing asked. */
export const POLICY_OFF: Readonly<PolicyRules> = Object.freeze({ default: "allow" });

/** Whether `rules` allow everything (no ask or deny rule, default allow): checks can be skipped. */
export function allowsEverything(rules: PolicyRules): boolean {
  return (rules.default ?? "allow") === "allow" && (rules.ask ?? []).length === 0 &&
    (rules.deny ?? []).length === 0 && rules.read === undefined && rules.write === undefined;
}
