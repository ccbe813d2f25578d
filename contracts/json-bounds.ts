/**
 * Limits a response body must stay within before kgate parses it. JSON.parse and schema validation
 * of a body nested 400,000 levels deep cost gigabytes and stack frames; a scan of the raw bytes
 * costs one pass and no allocation, so bodies are measured first and only parsed when in bounds.
 */

/** Deepest nesting of arrays and objects kgate parses (the interface's deepest answers nest about 8 levels). */
export const MAX_JSON_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The nesting depth of a JSON text, counted over its raw bytes (brackets inside strings do not
 * count), stopping as soon as it passes `limit`: returns the depth reached, at most `limit + 1`.
 * A text that is not JSON gets a depth too; JSON.parse says what is wrong with it afterwards.
 */
export function jsonDepth(body: Uint8Array, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

/** Why a body is not parsed, or undefined when it is within the limits. */
export function beyondJsonLimits(body: Uint8Array, limit = MAX_JSON_DEPTH): string | undefined {
  const depth = jsonDepth(body, limit);
  return depth > limit
    ? `${body.length} bytes nested more than ${limit} levels deep (arrays and objects), not parsed`
    : undefined;
}
