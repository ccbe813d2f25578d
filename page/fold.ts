// Long lines fold: a curl line of tens of kilobytes (a generated request with a long URL) shows its
// start and its length, and the whole line is one click away on a page (components.ts) or one file
// away in the terminal: the line is written whole under the run's report folder, and the terminal
// names that file.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { slug } from './html.ts';

/** Longest line the terminal prints whole. */
export const TERMINAL_LINE_LIMIT = 400;
/** Characters of a folded line the terminal shows. */
export const TERMINAL_LINE_START = 160;
/** Folder of a run's report folder holding long lines whole, one file each. */
export const REPRO_DIR = 'repro';

/** The start of a text cut at `keep` characters, with its whole length: `curl -sS ... (12,345 characters)`. */
export function startOf(text: string, keep: number): string {
  return `${text.slice(0, keep)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** Where a long line of a run is kept whole: `<dir>/repro/<stem>-<hash>.txt`, the same path for the same line. */
export function reproPath(dir: string, stem: string, line: string): string {
  const hash = createHash('sha256').update(line).digest('hex').slice(0, 10);
  return join(dir, REPRO_DIR, `${slug(stem).slice(0, 60)}-${hash}.txt`);
}

/**
 * A line as the terminal and the Markdown summaries show it: whole when it is at most `limit`
 * characters; else its start, its length and the file that holds it whole, which this writes
 * (masked) under `dir` (no file without a `dir`: the start and length only).
 */
export function foldLine(line: string, options: { dir?: string; stem: string; limit?: number }): string {
  if (line.length <= (options.limit ?? TERMINAL_LINE_LIMIT)) return line;
  const start = `${line.slice(0, TERMINAL_LINE_START)}… (${line.length.toLocaleString('en-US')} characters`;
  if (!options.dir) return `${start})`;
  const path = reproPath(options.dir, options.stem, line);
  try {
    mkdirSync(join(options.dir, REPRO_DIR), { recursive: true });
    writeFileSync(path, `${redactSecrets(line)}\n`);
  } catch {
    return `${start}; not written to ${path})`;
  }
  return `${start}; whole line in ${path})`;
}

/** A list joined with commas and wrapped to lines of at most `width` characters, each indented. */
export function wrapList(parts: string[], indent: string, width = 110): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [index, part] of parts.entries()) {
    const piece = `${part}${index < parts.length - 1 ? ',' : ''}`;
    if (line && indent.length + line.length + 1 + piece.length > width) {
      lines.push(`${indent}${line}`);
      line = piece;
    } else line = line ? `${line} ${piece}` : piece;
  }
  if (line) lines.push(`${indent}${line}`);
  return lines;
}
