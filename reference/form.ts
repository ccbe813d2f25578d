/** A form field whose value could not be decoded. */
export class FormDecodeError extends Error {
  constructor(readonly field: string) {
    super(`invalid percent-encoding in ${field}`);
  }
}

// Characters that no form or URI encoder leaves unescaped: their presence proves the text was
// written by hand (or by a client that did not encode at all), so '+' is then a literal plus.
const UNENCODED = /[\s"<>\\^`{|}\u0080-\uffff]|%(?![0-9A-Fa-f]{2})/;
const FIELD_START = /^[A-Za-z_$][A-Za-z0-9_$.]*=/;
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a query string or an `application/x-www-form-urlencoded` body leniently, the same way for
 * both so that GET and POST see identical fields:
 * - fields are split on '&' and each at its first '=' (a field without '=' has the value '');
 * - text that looks encoded (no raw spaces, quotes, braces, non-ASCII or stray '%') is decoded as a
 *   form: '+' is a space and %XX sequences are UTF-8 bytes (invalid UTF-8 throws FormDecodeError);
 * - text that was plainly not encoded (e.g. `expr=Composite(AA.AuN=='jaime teevan')`) keeps '+' and
 *   splits on '&' only where a `name=` follows, so `s1=R&D work&s2=x` keeps "R&D work"; valid %XX
 *   sequences are still decoded when they form UTF-8, otherwise kept as written;
 * - the first occurrence of a field wins.
 */
export function parseForm(text: string): Record<string, string> {
  const fields: Record<string, string> = Object.create(null);
  if (text === '') return fields;
  const encoded = !UNENCODED.test(text);
  const parts = encoded ? text.split('&') : splitRaw(text);
  for (const part of parts) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    const name = decodeComponent(rawName, encoded, rawName);
    if (name === '' || name in fields) continue;
    fields[name] = decodeComponent(rawValue, encoded, name);
  }
  return fields;
}

function splitRaw(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
    if (FIELD_START.test(text.slice(i + 1, i + 200)) || text[i + 1] === '&' || i + 1 === text.length) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function decodeComponent(raw: string, encoded: boolean, field: string): string {
  const text = encoded ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  if (encoded) {
    try {
      return fatalUtf8.decode(percentBytes(text));
    } catch {
      throw new FormDecodeError(field);
    }
  }
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return fatalUtf8.decode(percentBytes(run));
    } catch {
      return run;
    }
  });
}

// Only called on ASCII text (encoded mode rejects anything else), so each char is one byte.
function percentBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const hex = code === 37 ? text.slice(i + 1, i + 3) : '';
    if (hex.length === 2 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes[n++] = parseInt(hex, 16);
      i += 2;
    } else {
      bytes[n++] = code & 0xff;
    }
  }
  return bytes.subarray(0, n);
}
