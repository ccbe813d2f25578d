// kgate conform and Schemathesis (the peer kgate's users know) against the same reference faults,
// side by side in one run: the faults each catches, and the wall time and requests each spends.
// Skips loudly where ../shared (Schemathesis) is absent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS } from '../openapi/spec.ts';
import { startReferenceServer } from '../reference/index.ts';
import { referenceKeyEnv, runKgate } from '../scripts/run-process.ts';
import { excuseOf, type PeerRun, runSchemathesis, SCHEMATHESIS, schemathesisPresent } from '../scripts/schemathesis.ts';

/**
 * A few faults of each kind: a schema break, fixed-battery semantics, an input-triggered 500,
 * input-triggered semantics, and values of the world: an emoji's 500, a range broken for CJK text
 * only, what an answer says about itself broken for a year range only.
 */
const FAULTS = [
  'similarity-out-of-range',
  'evaluate-count-ignored',
  'answersearch-strict-500',
  'evaluate-wide-or-500',
  'interpret-count-ignored-complete-0',
  'hotevents-top-document-foreign',
  'answersearch-emoji-500',
  'similarity-cjk-above-one',
  'evaluate-year-range-end-ignored',
];
/** Generated cases per operation for Schemathesis (its default is 100; about kgate's request count at 10). */
const EXAMPLES = 10;

if (!schemathesisPresent()) {
  console.log(`SKIPPED: Schemathesis not found at ${SCHEMATHESIS} (../shared is absent): no peer to compare with`);
  process.exit(0);
}

const server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
const work = mkdtempSync(join(tmpdir(), 'kgate-peers-'));
type Side = { caught: boolean; ms: number; requests: number; found: string[] };
const rows: { target: string; kgate: Side; schemathesis: Side }[] = [];
try {
  const catalogue = (await (await fetch(`${server.url}/faults`)).json()) as { name: string; operations: string[] }[];
  /** Schemathesis's findings as `title on operation`, the ones that are not the spec's fault. */
  const findingsOf = (run: PeerRun) =>
    [...new Set(run.failures.filter((f) => !excuseOf(f)).map((f) => `${f.title} on ${f.operation}`))].sort();
  const conform = async (url: string, name: string): Promise<Side & { failures: string[] }> => {
    const started = performance.now();
    const result = await runKgate(['conform', '--base-url', url, '--json', '--report-dir', join(work, name)], {
      env: {
        ...referenceKeyEnv(server.keys),
      },
      timeoutMs: 300_000,
    });
    const summary = JSON.parse(result.stdout) as {
      verdict: string;
      requests: number;
      targets: { failures: { check: string; operation: string }[] }[];
    };
    const failures = [
      ...new Set(summary.targets.flatMap((target) => target.failures.map((f) => `${f.check} on ${f.operation}`))),
    ].sort();
    return {
      caught: summary.verdict === 'fail',
      ms: performance.now() - started,
      requests: summary.requests,
      found: failures,
      failures,
    };
  };
  const peer = async (url: string): Promise<{ run: PeerRun; found: string[] }> => {
    const run = await runSchemathesis({ baseUrl: url, key: server.keys.full, examples: EXAMPLES });
    return { run, found: findingsOf(run) };
  };
  const cleanKgate = await conform(server.url, 'clean');
  const cleanPeer = await peer(server.url);
  // What the peer fails the clean server for (beyond what is not the spec's fault), in full.
  for (const failure of cleanPeer.run.failures.filter((f) => !excuseOf(f)))
    console.log(
      `schemathesis on the clean server: ${failure.title} on ${failure.operation}: [${failure.status}] ${failure.body.slice(0, 200)}`,
    );
  /** A fault is caught by a finding on an operation it touches that the clean server did not get. */
  const side = (found: string[], baseline: string[], ms: number, requests: number, touched: string[]): Side => {
    const known = new Set(baseline);
    const labels = OPERATIONS.filter((op) => touched.includes(op.operationId)).map((op) => op.label);
    const extra = found.filter((item) => !known.has(item) && labels.some((label) => item.endsWith(` on ${label}`)));
    return { caught: extra.length > 0, ms, requests, found: extra };
  };
  rows.push({
    target: 'clean',
    kgate: { caught: cleanKgate.caught, ms: cleanKgate.ms, requests: cleanKgate.requests, found: cleanKgate.failures },
    schemathesis: {
      caught: cleanPeer.found.length > 0,
      ms: cleanPeer.run.durationMs,
      requests: cleanPeer.run.cases,
      found: cleanPeer.found,
    },
  });
  for (const fault of FAULTS) {
    const touched = catalogue.find((entry) => entry.name === fault)?.operations;
    if (!touched) throw new Error(`${fault} is not in the catalogue`);
    const url = `${server.url}/faults/${fault}`;
    const k = await conform(url, fault);
    const p = await peer(url);
    rows.push({
      target: fault,
      kgate: side(k.failures, cleanKgate.failures, k.ms, k.requests, touched),
      schemathesis: side(p.found, cleanPeer.found, p.run.durationMs, p.run.cases, touched),
    });
  }
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}

/** One side of a row; Schemathesis counts generated test cases (about one request each), kgate the requests it sent. */
const cell = (s: Side, clean: boolean, unit: string) =>
  `${clean ? (s.caught ? 'FAILS clean' : 'passes') : s.caught ? 'caught' : 'missed'} ${(s.ms / 1000).toFixed(1)} s ${s.requests} ${unit}`;
console.log(`${'target'.padEnd(36)} ${'kgate conform'.padEnd(34)} schemathesis -n ${EXAMPLES}`);
for (const row of rows) {
  const clean = row.target === 'clean';
  console.log(
    `${row.target.padEnd(36)} ${cell(row.kgate, clean, 'requests').padEnd(34)} ${cell(row.schemathesis, clean, 'cases')}`,
  );
  if (!clean && row.schemathesis.caught)
    console.log(`${''.padEnd(36)} schemathesis: ${row.schemathesis.found.slice(0, 3).join('; ')}`);
}
const faults = rows.filter((row) => row.target !== 'clean');
console.log(
  `faults caught: kgate ${faults.filter((r) => r.kgate.caught).length} / ${faults.length}, schemathesis ${faults.filter((r) => r.schemathesis.caught).length} / ${faults.length}`,
);
mkdirSync('reports/bench', { recursive: true });
writeFileSync(
  'reports/bench/peers.json',
  `${JSON.stringify({ node: process.version, examples: EXAMPLES, rows }, null, 2)}\n`,
);
