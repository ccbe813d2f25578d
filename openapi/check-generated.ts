// `npm run openapi:check`: regenerates the types into a temporary folder and fails when the
// committed openapi/generated/ output is stale.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const committed = join(root, 'openapi/generated/schema.d.ts');
const dir = mkdtempSync(join(tmpdir(), 'kgate-openapi-'));
try {
  const fresh = join(dir, 'schema.d.ts');
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules/openapi-typescript/bin/cli.js'), join(root, 'openapi/openapi.yaml'), '-o', fresh],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) {
    console.error(`openapi:check: openapi-typescript failed:\n${run.stderr}`);
    process.exit(1);
  }
  let current = '';
  try {
    current = readFileSync(committed, 'utf8');
  } catch {
    // A missing file is stale too.
  }
  if (current !== readFileSync(fresh, 'utf8')) {
    console.error('openapi:check: openapi/generated/schema.d.ts is stale; fix: npm run openapi:generate');
    process.exit(1);
  }
  console.log('openapi:check: generated types are fresh');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
