// Runs every *.test.ts of the project under node's test runner (through tsx), one process per file.
// Usage: tsx scripts/test.ts [path-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOTS = [
  'action',
  'config',
  'openapi',
  'http',
  'reference',
  'contracts',
  'load',
  'drift',
  'compare',
  'cli',
  'bench',
  'scripts',
];
const root = new URL('..', import.meta.url).pathname;

function findTests(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'generated') return [];
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

const filters = process.argv.slice(2);
const files = ROOTS.flatMap((dir) => findTests(join(root, dir)))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } },
);
process.exit(result.status ?? 1);
