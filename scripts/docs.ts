// What the project's Markdown promises a reader: every relative link leads to a file of the
// repository and, where it names an anchor, to a heading of that file (as GitHub makes anchors).
// Usage: tsx scripts/docs.ts (prints every broken link, exit 1 when there is one).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folders whose Markdown is not the project's documentation: installed, built or written by runs. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'reports', 'test-results', 'playwright-report', 'blob-report']);
/** The one file of a skipped folder that is documentation: what reports/ holds. */
const KEPT_FILES = new Set(['reports/README.md']);

/** A link found in a Markdown file: its line and its target as written. */
export interface Link {
  line: number;
  target: string;
}

/** Every Markdown file of the project under root, as paths relative to it (sorted, `/`-separated). */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(root, path).split(sep).join('/');
      if (statSync(path).isDirectory()) {
        if (name.startsWith('.') || SKIPPED_DIRS.has(name)) {
          for (const kept of KEPT_FILES)
            if (kept.startsWith(`${rel}/`) && existsSync(join(root, kept))) found.push(kept);
          continue;
        }
        walk(path);
      } else if (name.endsWith('.md')) found.push(rel);
    }
  };
  walk(root);
  return [...new Set(found)].sort();
}

/** The text of a Markdown file with fenced code blocks blanked (their lines kept, so numbers hold). */
function withoutFences(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined) {
      if (open) {
        fence = open[1];
        return '';
      }
      return line;
    }
    if (open && open[1][0] === fence[0] && open[1].length >= fence.length && line.trim() === open[1]) fence = undefined;
    return '';
  });
}

/** A line with its code spans blanked: a link written inside backticks is an example, not a link. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length));
}

/** Every link of a Markdown text: inline links and images, autolinks aside, and reference definitions. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  withoutFences(text).forEach((raw, index) => {
    const line = withoutCodeSpans(raw);
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1].replace(/^<|>$/g, '') });
    for (const match of line.matchAll(
      /\]\(\s*(<[^>]*>|[^\s)]+(?:\([^\s)]*\)[^\s)]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    )) {
      links.push({ line: index + 1, target: match[1].replace(/^<|>$/g, '') });
    }
    for (const match of line.matchAll(/<a\s[^>]*href="([^"]+)"/gi)) links.push({ line: index + 1, target: match[1] });
  });
  return links;
}

/** The plain text of a heading as GitHub renders it: code, emphasis, links and tags reduced to their words. */
function headingText(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/\*+/g, '')
    .replace(/(^|\s)_+|_+(\s|$)/g, '$1$2');
}

/** GitHub's anchor of a heading: lower case, punctuation and symbols dropped, each space a hyphen. */
export function slug(heading: string): string {
  return headingText(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text offers: its headings' (a repeated one gets -1, -2...) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = withoutFences(text);
  lines.forEach((line, index) => {
    let heading: string | undefined;
    const atx = /^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
    if (atx) heading = atx[1] ?? '';
    else if (
      /^ {0,3}(=+|-+)\s*$/.test(line) &&
      index > 0 &&
      lines[index - 1].trim() &&
      !/^\s*[-*+|]/.test(lines[index - 1])
    )
      heading = lines[index - 1].trim();
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/gi)) anchors.add(match[1]);
  });
  return anchors;
}

/** A line number anchor of a source file as GitHub shows it (`#L12`, `#L12-L20`). */
const LINE_ANCHOR = /^L\d+(-L\d+)?$/;

/** Every broken relative link of the Markdown files under root, one line each: `file:line: target: why`. */
export function brokenLinks(root: string, files = markdownFiles(root)): string[] {
  const broken: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (path: string): Set<string> => {
    let cached = anchorCache.get(path);
    if (!cached) {
      cached = anchorsOf(readFileSync(path, 'utf8'));
      anchorCache.set(path, cached);
    }
    return cached;
  };
  for (const file of files) {
    const from = join(root, file);
    for (const { line, target } of linksOf(readFileSync(from, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // a URL, not a file of ours
      const hash = target.indexOf('#');
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      let decoded: string;
      try {
        decoded = decodeURIComponent(pathPart.split('?')[0]);
      } catch {
        broken.push(`${file}:${line}: ${target}: not a valid link`);
        continue;
      }
      const to =
        decoded === '' ? from : decoded.startsWith('/') ? join(root, decoded) : resolve(dirname(from), decoded);
      const shown = `${file}:${line}: ${target}`;
      if (relative(root, to).startsWith('..')) {
        broken.push(`${shown}: outside the repository`);
        continue;
      }
      if (!existsSync(to)) {
        broken.push(`${shown}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(to).isDirectory()) broken.push(`${shown}: an anchor on a folder`);
      else if (!to.endsWith('.md')) {
        if (!LINE_ANCHOR.test(anchor)) broken.push(`${shown}: an anchor on a file that has no headings`);
      } else if (!anchors(to).has(anchor))
        broken.push(`${shown}: no heading with that anchor in ${relative(root, to)}`);
    }
  }
  return broken;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const broken = brokenLinks(root);
  for (const line of broken) console.log(line);
  console.log(`${broken.length} broken link(s) in ${markdownFiles(root).length} Markdown files`);
  process.exitCode = broken.length ? 1 : 0;
}
