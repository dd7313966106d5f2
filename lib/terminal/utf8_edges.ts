/**
 * UTF-8 characters cut by the edge of a chunk. A PTY read ends anywhere, so
 * a character may begin in one chunk and end in the next; xterm.js 6.0 loses
 * some of those (its decoder takes a kept continuation byte 0x80 for no byte:
 * U+2000-U+203F, dashes, curly quotes, the ellipsis, and others, vanish when
 * a chunk ends after their second byte), so the emulator hands it whole
 * characters only.
 * @module
 */

/** Bytes of the character a lead byte starts (2-4), or 0 for a byte that starts none. */
function charLength(lead: number): number {
  return lead < 0xc2 ? 0 : lead <= 0xdf ? 2 : lead <= 0xef ? 3 : lead <= 0xf4 ? 4 : 0;
}

/**
 * Where the UTF-8 character that `bytes` ends in the middle of begins (its
 * lead byte), or `bytes.length` when they end on a character's edge, or on
 * bytes that begin no character.
 */
export function unfinishedCharStart(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let at = end - 1; at >= 0 && at >= end - 3; at--) {
    const byte = bytes[at];
    if ((byte & 0xc0) === 0x80) continue; // A continuation byte: its lead is further back.
    return charLength(byte) > end - at ? at : end;
  }
  return end;
}
