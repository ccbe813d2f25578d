// test-runner: long (kgate fuzz against every input-triggered fault of the catalogue, a few minutes)
// kgate fuzz follows the coverage model: it sends the model's plan (every item, packed as kgate
// conform's plan packs them) before it draws anything, so it catches every input-triggered fault
// the gate's plan catches (the fault sweep proves the gate's), each with the check the fault table
// names, on the operations the fault touches.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { OperationId } from '../openapi/spec.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { runFuzz } from '../run/fuzz.ts';
import { FAULT_TABLE } from './fault-table.ts';

/** Cases per touched operation: its plan (at most about 90 requests) and a few draws after it. */
const PER_OPERATION = 120;

let server: ReferenceServer;
let dir: string;
let runs = 0;

before(async () => {
  // The rate limit lifted, as `kgate fuzz` lifts it for its embedded server.
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-fuzz-catches-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('kgate fuzz catches every input-triggered fault the gate catches, with the check the fault table names', {
  timeout: 900_000,
}, async () => {
  const faults = Object.entries(FAULT_TABLE).filter(([, entry]) => entry.generative);
  assert.ok(faults.length >= 100, `the input-triggered faults: ${faults.length}`);
  const missed: string[] = [];
  for (const [name, entry] of faults) {
    const result = await runFuzz({
      baseUrl: `${server.url}/faults/${name}`,
      key: server.keys.full,
      operations: entry.touches as OperationId[],
      maxRequests: PER_OPERATION * entry.touches.length,
      durationMs: 120_000,
      seed: 1,
      // Two faults hang on their class: a short deadline keeps each to one wait.
      timeoutMs: 3_000,
      maxBytes: 8 * 1024 * 1024,
      reportDir: join(dir, `run-${runs++}`),
    });
    const caught = result.findings.some((finding) => entry.catches.includes(finding.check));
    if (!caught)
      missed.push(
        `${name}: want ${entry.catches.join(', ')}; found ${result.findings.map((f) => f.check).join(', ') || 'nothing'}`,
      );
  }
  assert.deepEqual(missed, []);
});
