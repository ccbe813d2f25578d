// Measures which coverage items catch which faults of the reference server's catalogue (a whole
// fault sweep) and writes run/revealing.json, the ranking a budgeted plan sends its most revealing
// items first by (run/budget.ts). Run: npm run docs:coverage
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSweep, runSweep } from './fault-sweep.ts';

const target = fileURLToPath(new URL('../run/revealing.json', import.meta.url));
const result = await runSweep();
if (result.caught !== result.total) {
  console.error(`${renderSweep(result)}\nmeasure-revealing: the sweep missed faults; fix them first`);
  process.exit(1);
}
// One item per line: a change shows as a readable diff.
const lines = Object.entries(result.revealing).map(
  ([item, faults]) => `    ${JSON.stringify(item)}: ${JSON.stringify(faults)}`,
);
writeFileSync(
  target,
  `{\n  "measured": ${JSON.stringify(`the fault sweep of ${result.total} faults of the reference server's catalogue (npm run docs:coverage)`)},\n  "items": {\n${lines.join(',\n')}\n  }\n}\n`,
);
// As the repository's formatter writes it (a long list of faults goes one to a line), so `npm run check` passes it.
execFileSync('npx', ['biome', 'format', '--write', target], { stdio: 'ignore' });
console.log(`measure-revealing: ${Object.keys(result.revealing).length} items caught faults: ${target}`);
