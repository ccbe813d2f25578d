// The house's rule, held against the sources: no import circles (type-only ones included), and
// every import of one room by another points down the house.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { circles, importGraph, roomOf } from './import-graph.ts';

const ROOT = join(import.meta.dirname, '..');

/**
 * The floor of each room, from the ground up: a room imports only rooms on lower floors. Rooms on
 * one floor do not import each other.
 */
const FLOORS: Record<string, number> = {
  action: 0, // runs apart, in the CI job; imports nothing of kgate
  http: 0,
  openapi: 0,
  config: 1,
  page: 2,
  reference: 2,
  contracts: 3,
  reporting: 4,
  run: 5,
  load: 5,
  drift: 5,
  compare: 6,
  proof: 6,
  'playwright.config.ts': 6,
  'cli/door': 7, // what every command shares: its target, key, route, folder, limits, stops, options
  'cli/commands': 8, // each command's own work, between the door and its reports
  cli: 9, // cli/main.ts: the command line's entry
  scripts: 10,
  bin: 11, // the command: a clone's build of its sources (scripts/runtime-build.mjs), or the package's dist/
  bench: 11,
};

/** Imports that point up, each with its reason. */
const ALLOWED_UP: Record<string, string> = {
  'run/run.ts -> scripts/runtime-build.mjs':
    "a clone runs a build of its own sources (the build script is the package build's too; it imports nothing of kgate's rooms)",
};

/** Every edge from one room to another that the floors forbid. */
function wrongWay(graph: Map<string, Set<string>>): string[] {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const [a, b] = [roomOf(from), roomOf(to)];
      if (a === b) continue;
      if (ALLOWED_UP[`${from} -> ${to}`] || ALLOWED_UP[`${from} -> ${b}`]) continue;
      const [floorA, floorB] = [FLOORS[a], FLOORS[b]];
      if (floorA === undefined || floorB === undefined) wrong.push(`${from} -> ${to}: room without a floor`);
      else if (floorB >= floorA) wrong.push(`${from} -> ${to}: ${a} (floor ${floorA}) imports ${b} (floor ${floorB})`);
    }
  }
  return wrong.sort();
}

describe('the import graph of the sources', () => {
  const graph = importGraph(ROOT);

  test('has no circles', () => {
    assert.deepEqual(circles(graph), []);
  });

  test('points down the house: every room imports only rooms below it', () => {
    assert.ok(graph.size > 200, `read ${graph.size} source files`);
    assert.deepEqual(wrongWay(graph), []);
  });

  test('every room of the repository has a floor', () => {
    const rooms = new Set([...graph.keys()].map(roomOf));
    assert.deepEqual(
      [...rooms].filter((room) => FLOORS[room] === undefined),
      [],
    );
  });
});

describe('the import graph finds what it must', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-import-graph-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('contracts/a.ts', "import type { B } from '../run/b.ts';\nexport type A = B;\n");
  write('run/b.ts', "import { a } from '../contracts/c.ts';\nexport type B = typeof a;\n");
  write(
    'contracts/c.ts',
    "// import { x } from '../cli/x.ts';\nexport const a = 1;\nexport const lazy = () => import('./a.ts');\n",
  );
  write('contracts/a.test.ts', "import { a } from '../cli/main.ts';\n");
  write('cli/main.ts', "import { a } from '../contracts/c.ts';\n");

  const cases: { given: string; want: unknown; got: () => unknown }[] = [
    {
      given: 'a circle through a type-only import and a dynamic import() across rooms',
      want: [['contracts/a.ts', 'contracts/c.ts', 'run/b.ts']],
      got: () => circles(importGraph(dir)),
    },
    {
      given: 'an upward import (contracts -> run), a comment and a test file',
      want: ['contracts/a.ts -> run/b.ts: contracts (floor 3) imports run (floor 5)'],
      got: () => wrongWay(importGraph(dir)),
    },
  ];
  for (const { given, want, got } of cases) test(given, () => assert.deepEqual(got(), want));
});
