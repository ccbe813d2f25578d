// test-runner: long (the generated requests of five seeds against the clean server and every variation, a few minutes)
// The generated phase on five seeds: kgate fuzz's generated requests (the coverage model's plan, every
// item packed as the gate's plan packs them, then draws of every kind of case, judged by every
// property and relation, as `kgate conform`'s phase and `kgate fuzz` judge them) find nothing in
// the clean reference server nor in any legitimate variation, and find each fault of one promise
// that only generated inputs trigger, on every seed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fullRound } from '../contracts/generative/cases.ts';
import { OPERATION_IDS, type OperationId } from '../openapi/spec.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { createVariations } from '../reference/variations/index.ts';
import { runFuzz } from '../run/fuzz.ts';
import { FAULT_TABLE } from './fault-table.ts';

const SEEDS = [1, 2, 3, 4, 5];

let server: ReferenceServer;
let dir: string;
let runs = 0;

before(async () => {
  // The rate limit lifted, as `kgate fuzz` lifts it for its embedded server: generated requests measure inputs.
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-variations-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The generated requests of `operations` against `base`, on `seed` (the plan, at most about 1.8 rounds
 * of kinds on any operation, then draws up to two rounds): its findings, as lines.
 */
async function round(base: string, seed: number, operations: readonly string[] = OPERATION_IDS): Promise<string[]> {
  const budget = 2 * fullRound(operations);
  const result = await runFuzz({
    baseUrl: base,
    key: server.keys.full,
    operations: operations as OperationId[],
    maxRequests: budget,
    durationMs: 120_000,
    seed,
    timeoutMs: 10_000,
    maxBytes: 8 * 1024 * 1024,
    reportDir: join(dir, `run-${runs++}`),
  });
  assert.ok(result.cases.total >= budget * 0.95, `seed ${seed}: the budget was sent (${result.cases.total})`);
  return result.findings.map(
    (finding) =>
      `${finding.level ?? 'fail'} ${finding.check} on ${finding.operation}: ${finding.title} (${finding.seed ?? ''})`,
  );
}

test('five seeds of generated requests find nothing in the clean server nor in any legitimate variation', {
  timeout: 900_000,
}, async () => {
  const variations = createVariations();
  const found: string[] = [];
  for (const seed of SEEDS) {
    for (const finding of await round(server.url, seed)) found.push(`clean, seed ${seed}: ${finding}`);
    for (const variation of variations) {
      const operations = variation.operations.length > 0 ? variation.operations : OPERATION_IDS;
      for (const finding of await round(`${server.url}/variations/${variation.name}`, seed, operations))
        found.push(`${variation.name}, seed ${seed}: ${finding}`);
    }
  }
  assert.deepEqual(found, [], 'what a standard or the interface allows is no finding, on any seed');
});

test('five seeds of generated requests find each fault of one promise that only generated inputs trigger, by its own check alone', {
  timeout: 600_000,
}, async () => {
  const faults = Object.entries(FAULT_TABLE).filter(([, entry]) => entry.only && entry.generative);
  assert.ok(faults.length >= 2, 'the input-triggered faults of one promise');
  const missed: string[] = [];
  for (const [name, entry] of faults)
    for (const seed of SEEDS) {
      const findings = await round(`${server.url}/faults/${name}`, seed, entry.touches);
      const own = findings.filter((finding) => entry.catches.some((check) => finding.startsWith(`fail ${check} `)));
      const others = findings.filter((finding) => !own.includes(finding));
      if (own.length === 0 || others.length > 0)
        missed.push(
          `${name}, seed ${seed}: ${own.length === 0 ? 'not found' : ''}${others.length ? ` also ${others.join('; ')}` : ''}`,
        );
    }
  assert.deepEqual(missed, []);
});
