import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { command as drift } from '../cli/commands/drift.ts';
import { INPUTS } from './gate.mjs';

// The workflows of docs/ci.md, and the README's steps, are what users copy: they are parsed here, so
// that a renamed input, job or option breaks this test instead of the users' pipelines.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CI_DOC = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  strategy?: { matrix: Record<string, unknown[]> };
  steps: Step[];
}

/** The YAML blocks of a Markdown text. */
function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The YAML block of docs/ci.md whose first line names the workflow file. */
function workflow(file: string): { name: string; jobs: Record<string, Job> } {
  const block = yamlBlocks(CI_DOC).find((text) => text.startsWith(`# ${file}\n`));
  assert.ok(block, `docs/ci.md has a yaml block starting with '# ${file}'`);
  return parse(block) as { name: string; jobs: Record<string, Job> };
}

const KGATE_ACTION = /^your-org\/kgate@/;
const inputsOf = (step: Step) => Object.keys(step.with ?? {});

test('every step of the README and docs/ci.md that uses the action gives only inputs the action has', () => {
  let steps = 0;
  for (const [doc, text] of [
    ['README.md', README],
    ['docs/ci.md', CI_DOC],
  ] as const) {
    for (const block of yamlBlocks(text)) {
      const parsed = parse(block) as Step[] | { jobs: Record<string, Job> };
      const all = Array.isArray(parsed) ? parsed : Object.values(parsed.jobs).flatMap((job) => job.steps);
      for (const step of all.filter((each) => KGATE_ACTION.test(each.uses ?? ''))) {
        steps++;
        for (const name of inputsOf(step)) assert.ok(name in INPUTS, `${doc}: input ${name} is an input of the action`);
      }
    }
  }
  assert.ok(steps >= 4, `the action's steps were found (${steps})`);
});

test("docs/ci.md's sharded workflow: a matrix of N shards uploading their folders, then one job merging them", () => {
  const { jobs } = workflow('.github/workflows/api-gate-sharded.yml');
  assert.deepEqual(Object.keys(jobs), ['conformance-shard', 'conformance']);
  const shardJob = jobs['conformance-shard']!;
  const mergeJob = jobs.conformance!;

  const shards = shardJob.strategy?.matrix.shard as number[];
  const total = shards.length;
  assert.deepEqual(
    shards,
    Array.from({ length: total }, (_, index) => index + 1),
    'shards 1..N',
  );
  const gate = shardJob.steps.find((step) => KGATE_ACTION.test(step.uses ?? ''))!;
  assert.equal(gate.with?.shard, `\${{ matrix.shard }}/${total}`);
  for (const name of inputsOf(gate))
    assert.ok(name in INPUTS, `the shard step's input ${name} is an input of the action`);
  const upload = shardJob.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))!;
  assert.equal(upload.if, 'always()', 'a failed shard still uploads its folder');
  assert.equal(upload.with?.path, gate.with?.['report-dir'], 'each shard uploads the folder it wrote');

  assert.equal(mergeJob.needs, 'conformance-shard');
  assert.match(mergeJob.if ?? '', /!cancelled\(\)|always\(\)/, 'the merge runs when a shard failed');
  const download = mergeJob.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'))!;
  const pattern = new RegExp(`^${download.with!.pattern!.replace(/\*/g, '.*')}$`);
  for (const shard of shards)
    assert.match(
      upload.with!.name!.replace(`\${{ matrix.shard }}`, String(shard)),
      pattern,
      'the download finds every upload',
    );
  const merge = mergeJob.steps.find((step) => KGATE_ACTION.test(step.uses ?? ''))!;
  assert.deepEqual(inputsOf(merge).sort(), ['expect-shards', 'merge']);
  for (const name of inputsOf(merge))
    assert.ok(name in INPUTS, `the merge step's input ${name} is an input of the action`);
  assert.equal(merge.with?.merge, download.with?.path, 'the merge reads where the shards were downloaded');
  assert.equal(Number(merge.with?.['expect-shards']), total, 'expect-shards is the number of shards');
  const reports = mergeJob.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))!;
  assert.equal(reports.with?.path, `\${{ steps.${merge.id}.outputs.report-dir }}`);
});

test("docs/ci.md's scheduled drift job keeps its history file in the cache between runs", () => {
  const { jobs } = workflow('.github/workflows/api-drift.yml');
  const steps = jobs.drift!.steps;
  const run = steps.find((step) => step.run?.includes('kgate drift live'))!;
  const args = run.run!.replace(/^npx kgate drift live\s+/, '').split(/\s+/);
  const history = args[args.indexOf('--history') + 1];
  assert.ok(history && args.includes('--history'), 'drift live keeps a history');
  for (const option of args.filter((arg) => arg.startsWith('--')))
    assert.ok(drift.usage.includes(option), `${option} is an option of kgate drift live`);
  const restore = steps.find((step) => step.uses?.startsWith('actions/cache/restore@'))!;
  const save = steps.find((step) => step.uses?.startsWith('actions/cache/save@'))!;
  assert.ok(
    steps.indexOf(restore) < steps.indexOf(run) && steps.indexOf(run) < steps.indexOf(save),
    'restore, run, save',
  );
  assert.equal(restore.with?.path, history);
  assert.equal(save.with?.path, history);
  assert.equal(save.if, 'always()', 'a run that found drift still saves the history');
  assert.ok(save.with!.key!.startsWith(restore.with!['restore-keys']!), 'the next run restores what this one saved');
  assert.equal(run.env?.KGATE_KEY, `\${{ secrets.STAGING_KEY }}`);
});
