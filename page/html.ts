// The text side of every page: one escaping function, and `text()`, the only way words reach a
// page (masked first, so a key never reaches HTML, then escaped), plus the formats the pages share.
import { redactSecrets } from '../config/redact.ts';

/** Escapes text for HTML element content and double-quoted attribute values (the only quotes the pages use). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Text as a page shows it: masked first (a masked curl line must still read as one once escaped),
 * then escaped. Every component passes what it is given through this.
 */
export function text(value: string | number): string {
  return escapeHtml(redactSecrets(String(value)));
}

/** HTML a component built: passed through as it is (components build it from text()). */
export interface Html {
  html: string;
}

/** Marks component output as HTML, so that a table cell or a field does not escape it again. */
export function html(markup: string): Html {
  return { html: markup };
}

/** Text, or HTML a component built, as markup. */
export function markup(value: string | number | Html): string {
  return typeof value === 'object' ? value.html : text(value);
}

/** An id for an anchor: letters, digits, `-` and `_` only. */
export function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]+/g, '-');
}

/** `1234` -> `1.2 s`; `263000` -> `4 min 23 s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** `2026-11-24T05:40:12.345Z` -> `2026-11-24 05:40:12 UTC`. */
export function formatDate(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
}

/** A latency as the tables show it: one decimal under 10 ms, whole milliseconds above; `–` when unknown. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms).toLocaleString('en-US')} ms`;
}

/** `1234567` -> `1,234,567`. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** `GET /academic/v1.0/evaluate` -> `evaluate GET`; `/eventknowledge/v1.0/events/{event_id}/documents` -> `documents GET`. */
export function shortLabel(label: string): string {
  const [method, path] = label.split(' ');
  const last =
    (path ?? '')
      .split('/')
      .filter((part) => part && !part.startsWith('{'))
      .pop() ?? path;
  const name = last === 'search' ? (path!.includes('urlpreview') ? 'urlpreview' : 'answersearch') : last;
  return `${name} ${method}`;
}

/** `1 finding`, `2 findings`; `1 entry`, `3 entries` with the plural given. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}
