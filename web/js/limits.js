/**
 * The limits the server enforces, as it announces them in `welcome.limits`
 * (protocol v1). The page validates what it sends against these, so that it
 * refuses the same names the server would.
 */

/** Protocol v1's limits: used for any value a server leaves out of `welcome.limits`. */
export const V1_LIMITS = Object.freeze({
  maxMessageBytes: 65536,
  maxNameLength: 40,
  maxNameBytes: 160,
  maxRefLength: 64,
  messagesPerSecond: 240,
  messageBurst: 480,
  maxHovers: 8,
  maxRangeRows: 500,
  maxCoordinate: 1000000,
});

/**
 * The limits announced in a `welcome`: each v1 limit the server gave as a
 * positive finite number, the v1 value for any it left out (or a server that
 * sends no `limits` at all). Unknown members are ignored.
 * @param {object|undefined} announced `welcome.limits`
 * @returns {Readonly<typeof V1_LIMITS>}
 */
export function limitsFrom(announced) {
  const limits = { ...V1_LIMITS };
  if (announced && typeof announced === 'object') {
    for (const key of Object.keys(V1_LIMITS)) {
      const value = announced[key];
      if (typeof value === 'number' && Number.isFinite(value) && value > 0) limits[key] = value;
    }
  }
  return Object.freeze(limits);
}
