import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { ROOT } from './run-process.ts';

test('a test file that has not ended within the time limit is stopped and fails, named', () => {
  // A file that takes more than a second (its last test waits a second on purpose), under a limit of one.
  const file = 'run/discovery-share.test.ts';
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test.ts', file], {
    cwd: ROOT,
    // Without NODE_TEST_CONTEXT, which tells node's test runner it runs inside a test (it would skip the file).
    env: { ...process.env, NODE_TEST_CONTEXT: undefined, KGATE_TEST_FILE_LIMIT_S: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 1, output);
  assert.match(output, /run\/discovery-share\.test\.ts did not end within 1 s \(KGATE_TEST_FILE_LIMIT_S\): stopped/);
  assert.match(output, /^test: failed: run\/discovery-share\.test\.ts$/m);
});
