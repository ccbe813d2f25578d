// The Node.js lines kgate supports are named in three places that must agree: package.json's
// engines, the lines `.ci/run` tests (the whole suite on one, the gate's own tests on the others),
// and the version the action sets up by default. And scripts/node-line.mjs, which fetches a line's
// binary, answers with this very Node for its own line, without the registry.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { NODE_PACKAGE, nodeLine } from './node-line.mjs';
import { ROOT } from './run-process.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The major versions a range such as `^20.19.0 || ^22.12.0 || ^24.0.0` admits, each as `^major.minor.patch`. */
function enginesLines(range: string): number[] {
  return range.split('||').map((part) => {
    const match = /^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(part);
    assert.ok(match, `each line of engines is ^major.minor.patch: ${part}`);
    return Number(match[1]);
  });
}

test('engines, the lines .ci/run tests and the action agree on the supported Node.js lines', () => {
  const engines = enginesLines((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node);
  const ci = read('.ci/run');
  const installed = /^for line in ([\d ]+); do$/m.exec(ci)?.[1]?.split(' ').map(Number);
  assert.ok(installed, '.ci/run installs its lines in one loop');
  assert.deepEqual([...installed].sort(), [...engines].sort(), '.ci/run installs every line engines names');
  const whole = Number(/^on_line (\d+) npm test$/m.exec(ci)?.[1]);
  const gateOnly = /^for line in ([\d ]+); do\n\s+on_line "\$line" node --import tsx scripts\/test\.ts/m
    .exec(ci)?.[1]
    ?.split(' ')
    .map(Number);
  assert.ok(gateOnly, ".ci/run runs the gate's own tests on the other lines");
  assert.deepEqual([whole, ...gateOnly].sort(), [...engines].sort(), 'every line is tested, the whole suite on one');
  const action = parse(read('action.yml')) as { inputs: Record<string, { default: string }> };
  assert.equal(
    Number(action.inputs['node-version']!.default),
    whole,
    "the action's Node is the line the whole suite runs on",
  );
  assert.equal(Math.max(...engines), whole, 'the newest line runs the whole suite');
});

test('node-line answers with this Node for its own line and refuses what is no line, without the registry', () => {
  const major = Number(process.versions.node.split('.')[0]);
  assert.equal(nodeLine(major), process.execPath);
  assert.throws(() => nodeLine(Number.NaN), /a Node line is a major version/);
  assert.match(NODE_PACKAGE, /^node-[a-z0-9]+-[a-z0-9]+$/);
});
