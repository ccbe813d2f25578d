// The import graph of kgate's own sources: which module imports which, by relative specifier
// (type-only imports and `import()` of a literal path too), tests, declarations and generated code
// left out. `scripts/import-graph.test.ts` holds it against the rooms' order: no circles, and every
// import pointing down the house (README "Where things are").
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** Folders whose files are never part of the graph. */
const SKIPPED = new Set(['node_modules', 'dist', 'reports', 'generated', 'test-results', 'k6-bundles']);
const SOURCE = /\.(ts|mts|mjs|cjs|js)$/;
const NOT_SOURCE = /\.(test|spec|d|bench)\.[a-z]+$/;
/** `import ... from '...'`, `export ... from '...'`, `import('...')`, `import '...'`: relative specifiers only. */
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|(?:^|[\s;])import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Every source file below `root` (relative paths), tests, benches, specs and declarations left out. */
export function sourceFiles(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    if (SKIPPED.has(name) || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(root, path);
    return SOURCE.test(name) && !NOT_SOURCE.test(name) ? [path] : [];
  });
}

/** Text inside comments is blanked (keeping line breaks), so an import named in a comment is no edge. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/[^\n]*/g, (match, before: string | undefined) =>
    before === undefined ? match.replace(/[^\n]/g, ' ') : `${before}${' '.repeat(match.length - before.length)}`,
  );
}

/** The graph: each source file and the source files it imports. */
export function importGraph(root: string): Map<string, Set<string>> {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const edges = new Set<string>();
    const text = withoutComments(readFileSync(join(root, file), 'utf8'));
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3]!;
      const target = normalize(join(dirname(file), specifier));
      const found = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')].find((path) =>
        known.has(path),
      );
      if (found && found !== file) edges.add(found);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The circles of a graph: its strongly connected sets of more than one file (Tarjan), each sorted. */
export function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== node);
      if (members.length > 1) found.push(members.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Rooms inside a room: what every command shares (`cli/door`) under the commands (`cli/commands`). */
export const INNER_ROOMS: readonly string[] = ['cli/door', 'cli/commands'];

/** The room of a file: an inner room it lies in, else its top folder, or the file itself at the root. */
export function roomOf(file: string): string {
  const parts = relative('.', file).split(/[\\/]/);
  const inner = parts.slice(0, 2).join('/');
  return INNER_ROOMS.includes(inner) ? inner : parts[0]!;
}
