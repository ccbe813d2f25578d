/**
 * Limits a response body must stay within before kgate parses it. JSON.parse and schema validation
 * of a body nested 400,000 levels deep cost gigabytes and stack frames; an object of a million
 * members (8 MB) takes seconds of a process's one thread and over 100 MB to parse; a million empty
 * objects (3 MB) parse to 64 MB, and a check that holds a few such answers holds hundreds. A scan of
 * the raw bytes costs one pass and no allocation, so bodies are measured first and only parsed when
 * in bounds: what is parsed then costs at most a few tens of MB, whatever the target sends.
 */

/** Deepest nesting of arrays and objects kgate parses (the interface's deepest answers nest about 8 levels). */
export const MAX_JSON_DEPTH = 128;
/**
 * Most members of one object kgate parses. The interface's objects have fixed members (a paper's
 * attributes, an event's fields: a few dozen at most, drift included), never one per datum; its
 * long lists are arrays, whose length alone is not limited (a page of count=10000 entities is a
 * real answer, and a list of a million numbers parses to 8 MB).
 */
export const MAX_OBJECT_MEMBERS = 10_000;
/**
 * Most arrays and objects in one body kgate parses (each costs about 60 bytes parsed). A page of
 * 10,000 papers with their authors and fields of study holds about 150,000.
 */
export const MAX_JSON_CONTAINERS = 500_000;

/** The limits a body is measured against. */
export interface JsonLimits {
  depth: number;
  members: number;
  containers: number;
}

/** The limits of every body kgate parses. */
export const JSON_LIMITS: JsonLimits = {
  depth: MAX_JSON_DEPTH,
  members: MAX_OBJECT_MEMBERS,
  containers: MAX_JSON_CONTAINERS,
};

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** What one scan of a JSON text's raw bytes measured; each count stops one past its limit. */
export interface JsonShape {
  /** The deepest nesting of arrays and objects. */
  depth: number;
  /** The most members of one object. */
  widestObject: number;
  /** Arrays and objects in all. */
  containers: number;
}

/**
 * The shape of a JSON text, counted over its raw bytes (brackets and commas inside strings do not
 * count), stopping as soon as one count passes its limit. A text that is not JSON gets a shape too;
 * JSON.parse says what is wrong with it afterwards.
 */
export function jsonShape(body: Uint8Array, limits: JsonLimits = JSON_LIMITS): JsonShape {
  // Per open level: whether it is an object, and its members so far (0 until its first one shows).
  const isObject = new Uint8Array(limits.depth + 2);
  const members = new Float64Array(limits.depth + 2);
  let depth = 0;
  let deepest = 0;
  let widest = 0;
  let containers = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      continue;
    }
    // Whitespace (and control bytes, which JSON.parse refuses anyway) opens nothing.
    if (byte <= 0x20) continue;
    // Anything else inside an object opens its first member, and each comma the next one.
    if (depth > 0 && isObject[depth] === 1 && (members[depth] === 0 || byte === COMMA)) {
      const count = ++members[depth]!;
      if (count > widest) {
        widest = count;
        if (widest > limits.members) break;
      }
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++containers > limits.containers) break;
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limits.depth) break;
      }
      if (depth > 0) {
        isObject[depth] = byte === OPEN_BRACE ? 1 : 0;
        members[depth] = 0;
      }
    }
  }
  return { depth: deepest, widestObject: widest, containers };
}

/**
 * The nesting depth of a JSON text, counted over its raw bytes (brackets inside strings do not
 * count), stopping as soon as it passes `limit`: returns the depth reached, at most `limit + 1`.
 */
export function jsonDepth(body: Uint8Array, limit = MAX_JSON_DEPTH): number {
  return jsonShape(body, { depth: limit, members: Number.POSITIVE_INFINITY, containers: Number.POSITIVE_INFINITY })
    .depth;
}

/** Which limit a body passed, and why it is not parsed; undefined when it is within the limits. */
export function jsonLimitPassed(
  body: Uint8Array,
  limits: JsonLimits = JSON_LIMITS,
): { limit: keyof JsonLimits; reason: string } | undefined {
  const shape = jsonShape(body, limits);
  const bytes = `${body.length} bytes`;
  if (shape.depth > limits.depth)
    return {
      limit: 'depth',
      reason: `${bytes} nested more than ${limits.depth} levels deep (arrays and objects), not parsed`,
    };
  if (shape.widestObject > limits.members)
    return {
      limit: 'members',
      reason: `${bytes} holding an object of more than ${limits.members} members, not parsed`,
    };
  if (shape.containers > limits.containers)
    return {
      limit: 'containers',
      reason: `${bytes} holding more than ${limits.containers} arrays and objects, not parsed`,
    };
  return undefined;
}

/** Why a body is not parsed, or undefined when it is within the limits. */
export function beyondJsonLimits(body: Uint8Array, limits: JsonLimits = JSON_LIMITS): string | undefined {
  return jsonLimitPassed(body, limits)?.reason;
}
