// What the network tests of `kgate load` ask of a run that went through a front server or a proxy.
import assert from 'node:assert/strict';
import type { LoadSummary } from '../load/report.ts';

/**
 * The run reached the deployment and every answer counted: no error, every validated answer
 * valid. Its latency thresholds judge the machine (a CPU shared with other test runs), not the
 * route, so a breach of those alone (exit 1) is allowed here.
 */
export function assertServed(code: number | null, summary: LoadSummary | undefined, stderr: string): void {
  assert.ok(summary, `a summary: ${stderr.slice(-2000)}`);
  const failing = summary.verdicts.filter((verdict) => verdict.status === 'fail').map((verdict) => verdict.id);
  assert.deepEqual(
    failing.filter((id) => !id.endsWith('-latency')),
    [],
    stderr.slice(-2000),
  );
  assert.equal(code, failing.length === 0 ? 0 : 1, stderr.slice(-2000));
}
