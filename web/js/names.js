/**
 * The viewer-name rule of protocol v1: the page's copy of the server's
 * `ViewerName.normalise`, applied to every name the page sends in `hello`
 * (typed in the name field or remembered in localStorage), so that a name the
 * server would refuse is refused here, next to the field, and never sent.
 */

/** C0 and C1 controls (tab and line breaks too: a name is one line), bidi marks, overrides and isolates. */
const REMOVED = /[\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/** Unicode `White_Space` at either end (as the server trims; `String.prototype.trim` also drops U+FEFF). */
const EDGE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;

/**
 * A name as the server will show it, and why the server would refuse it.
 *
 * Controls and bidi marks/overrides/isolates removed, then NFC-normalised, then
 * whitespace trimmed at both ends. Refused when empty, longer than `maxNameLength`
 * Unicode scalars (code points, not UTF-16 units) or `maxNameBytes` bytes of
 * UTF-8.
 * - Complexity: O(length of `raw`).
 * @param {string} raw what the viewer typed (or what was stored)
 * @param {{maxNameLength:number, maxNameBytes:number}} limits from `welcome`
 * @returns {{name:string, error:string|null}} `error` is null for an acceptable name
 */
export function normaliseName(raw, limits) {
  // Remove first, then NFC: a removed character between a letter and its mark must not leave
  // the name decomposed (the server's order; normalising a normalised name changes nothing).
  const name = String(raw ?? '').replace(REMOVED, '').normalize('NFC').replace(EDGE_SPACE, '');
  if (name === '') return { name, error: 'A name needs at least one visible character.' };
  const length = [...name].length;
  if (length > limits.maxNameLength) {
    return { name, error: `A name can have at most ${limits.maxNameLength} characters; this one has ${length}.` };
  }
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > limits.maxNameBytes) {
    return { name, error: `A name can take at most ${limits.maxNameBytes} bytes of UTF-8; this one takes ${bytes}.` };
  }
  return { name, error: null };
}

/**
 * The name field's `maxlength`: the most UTF-16 units an acceptable name can
 * have (two per scalar at most, and never more than its UTF-8 bytes). It only
 * stops absurd input; `normaliseName` decides, since `maxlength` counts
 * UTF-16 units, not characters.
 * @param {{maxNameLength:number, maxNameBytes:number}} limits
 * @returns {number}
 */
export function nameFieldMaxLength(limits) {
  return Math.min(2 * limits.maxNameLength, limits.maxNameBytes);
}
