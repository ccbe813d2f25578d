// `npm run openapi:check`: regenerates what openapi/generated/ holds (the types, the spec as JSON,
// the compiled validators) into a temporary folder and fails when the committed files are stale.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_FILES, writeGeneratedValidators } from './compile-validators.ts';
import { SPEC_PATH } from './spec.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kgate-openapi-'));
try {
  const types = join(root, 'openapi/generated/schema.d.ts');
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules/openapi-typescript/bin/cli.js'), SPEC_PATH, '-o', join(dir, basename(types))],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) {
    console.error(`openapi:check: openapi-typescript failed:\n${run.stderr}`);
    process.exit(1);
  }
  const fresh = Object.fromEntries(
    Object.entries(GENERATED_FILES).map(([name, path]) => [name, join(dir, basename(path))]),
  ) as Record<keyof typeof GENERATED_FILES, string>;
  writeGeneratedValidators(readFileSync(SPEC_PATH, 'utf8'), fresh);
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined; // A missing file is stale too.
    }
  };
  const stale = [types, ...Object.values(GENERATED_FILES)].filter(
    (committed) => read(committed) !== read(join(dir, basename(committed))),
  );
  if (stale.length > 0) {
    console.error(
      `openapi:check: ${stale.map((path) => `openapi/generated/${basename(path)}`).join(', ')} stale; fix: npm run openapi:generate`,
    );
    process.exit(1);
  }
  console.log('openapi:check: generated types, spec and validators are fresh');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
