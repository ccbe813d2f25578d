// Writes contracts/coverage/earlier-values.json: every value kgate's generator ever sent, drawn
// from each version of it in the repository's history (every commit that changed
// contracts/generative/cases.ts, world.ts, expression.ts or values.ts), three rounds of every kind
// on five seeds each, with its built-in value pools. contracts/coverage/earlier.test.ts requires
// each of them to be a class of the model today. Run: npx tsx scripts/earlier-values.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'contracts/coverage/earlier-values.json');
const GENERATOR = [
  'contracts/generative/cases.ts',
  'contracts/generative/world.ts',
  'contracts/generative/expression.ts',
  'contracts/generative/values.ts',
];
/** Values longer than this are kept as their start and a fill that repeats to their length. */
const LONG = 200;
/** Inputs whose values are read by the kind that made them, not by their text (expressions, event ids). */
const BY_KIND = new Set(['expr', 'event_id']);

/** One value the generator sent: the operation, the kind of case, the input and the value (or how to rebuild it). */
interface EarlierValue {
  operation: string;
  kind: string;
  input: string;
  value?: string;
  /** A long value: its first characters, then `fill` repeated up to `length` characters. */
  head?: string;
  fill?: string;
  length?: number;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
const commits = git('log', '--format=%H', '--', ...GENERATOR)
  .trim()
  .split('\n')
  .reverse();
const scratch = mkdtempSync(join(tmpdir(), 'kgate-earlier-'));
const values = new Map<string, EarlierValue>();
/** The kinds of case each version had, per operation. */
const kinds = new Map<string, Set<string>>();
try {
  for (const commit of commits) {
    const dir = join(scratch, commit.slice(0, 12));
    mkdirSync(dir);
    execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C '${dir}'`], { cwd: root });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    const cases = await import(join(dir, 'contracts/generative/cases.ts'));
    const pools = (await import(join(dir, 'contracts/generative/values.ts'))).DEFAULT_POOLS;
    const spec = await import(join(dir, 'openapi/spec.ts'));
    for (const op of spec.OPERATIONS as { operationId: string }[]) {
      const rounds = cases.roundLength(op.operationId) as number;
      for (let seed = 1; seed <= 5; seed++)
        for (let index = 0; index < rounds * 3; index++) {
          const c = cases.caseAt(seed, op.operationId, index, pools);
          const known = kinds.get(op.operationId) ?? new Set<string>();
          known.add(c.kind);
          kinds.set(op.operationId, known);
          for (const param of c.params as { name: string; value: unknown }[]) {
            if (BY_KIND.has(param.name)) continue;
            const text = cases.valueText(param.value) as string;
            const key = `${op.operationId}\u0000${param.name}\u0000${text}`;
            if (values.has(key)) continue;
            values.set(key, {
              operation: op.operationId,
              kind: c.kind,
              input: param.name,
              ...(text.length <= LONG
                ? { value: text }
                : { head: text.slice(0, 80), fill: text.slice(-40), length: text.length }),
            });
          }
        }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
// The values of one kind and input are draws from the same few lists and generators: the first
// PER_KIND distinct ones of each (long ones one per length band, differing in their words only).
const PER_KIND = 6;
const kept = new Map<string, EarlierValue>();
const perKind = new Map<string, number>();
for (const value of values.values()) {
  const band = value.length === undefined ? value.value : `${Math.round(Math.log2(value.length))}`;
  const key = `${value.operation}\u0000${value.input}\u0000${value.kind}`;
  if (kept.has(`${key}\u0000${band}`) || (perKind.get(key) ?? 0) >= PER_KIND) continue;
  perKind.set(key, (perKind.get(key) ?? 0) + 1);
  kept.set(`${key}\u0000${band}`, value);
}
const out = {
  note: 'Written by scripts/earlier-values.ts from the history of the generator; judged by earlier.test.ts.',
  commits: commits.map((commit) => commit.slice(0, 12)),
  kinds: Object.fromEntries([...kinds].map(([operation, names]) => [operation, [...names].sort()])),
  values: [...kept.values()],
};
writeFileSync(target, `${JSON.stringify(out)}\n`);
// As the repository's formatter writes it, so `npm run check` passes it.
execFileSync('npx', ['biome', 'format', '--write', target], { cwd: root, stdio: 'ignore' });
console.log(`earlier-values: ${out.values.length} values, ${commits.length} versions: ${target}`);
