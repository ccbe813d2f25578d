// `npm run bench`: runs every bench/*.bench.ts (or those matching the arguments) one after another.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();
if (benches.length === 0) {
  console.error(`bench: nothing matches ${filters.join(' ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of benches) {
  console.log(`\n== ${name} ==`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', `${dir}${name}`], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.error(`bench: ${name} exited with ${run.status}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
