import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKS } from '../contracts/checks/index.ts';
import type { Check } from '../contracts/checks/registry.ts';
import { TOLERANCE_STATEMENT } from '../contracts/properties/tolerance.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { EMBEDDED_TARGET, RUN_FILE, type RunMeta } from './run-meta.ts';
import { checksOfRun } from './severity.ts';
import { missingShards, notSelectedOf, type RunSummary, SUMMARY_FILES, summarise, type TestRecord } from './summary.ts';

/** Folders that cannot be merged (not run folders, runs of different things, a shard twice): exit 2. */
export class MergeError extends Error {
  override name = 'MergeError';
}

/** One run folder as the merge reads it: what the run was, every test's record, and its summary. */
export interface RunFolder {
  dir: string;
  meta: RunMeta;
  records: TestRecord[];
  summary: RunSummary;
}

const isRunFolder = (dir: string) => existsSync(join(dir, RUN_FILE)) || existsSync(join(dir, SUMMARY_FILES.json));

/**
 * The run folders the arguments name: a folder that is a run folder, or a folder holding run
 * folders (as actions/download-artifact lays out several artifacts), one level down; `latest`
 * links are skipped so that a reports folder does not count its newest run twice. A folder that
 * holds none contributes none (its shards are reported missing); a path that is not a folder is refused.
 */
export function findRunFolders(paths: readonly string[]): string[] {
  const found: string[] = [];
  for (const path of paths) {
    if (!existsSync(path) || !statSync(path).isDirectory())
      throw new MergeError(`no such folder '${path}' (give the run folders of the shards, or a folder holding them)`);
    if (isRunFolder(path)) {
      found.push(path);
      continue;
    }
    for (const name of readdirSync(path).sort()) {
      const child = join(path, name);
      if (lstatSync(child).isSymbolicLink() || !statSync(child).isDirectory()) continue;
      if (isRunFolder(child)) found.push(child);
    }
  }
  return found;
}

function readJson<T>(dir: string, name: string, what: string): T {
  const path = join(dir, name);
  if (!existsSync(path))
    throw new MergeError(
      `${dir} has no ${name}: ${what}${name === RUN_FILE ? ' (run folders record it since kgate 0.1.0; run the shard again)' : ''}`,
    );
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new MergeError(`${path} is not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
}

/** Reads one run folder; refuses one without run.json, tests.json or summary.json. */
export function readRunFolder(dir: string): RunFolder {
  const meta = readJson<RunMeta>(dir, RUN_FILE, 'it does not say which run, target and shard it is');
  if (meta?.kgateRun !== 1) throw new MergeError(`${join(dir, RUN_FILE)} is not a run file of version 1`);
  const records = readJson<TestRecord[]>(dir, SUMMARY_FILES.tests, 'it lacks the records of its tests');
  if (!Array.isArray(records)) throw new MergeError(`${join(dir, SUMMARY_FILES.tests)} is not a list of test records`);
  const summary = readJson<RunSummary>(dir, SUMMARY_FILES.json, 'the run did not finish');
  return { dir, meta, records, summary };
}

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );

/** The properties two shards of one run share, each with how the refusal names it. */
const SAME: Array<{ what: string; of: (meta: RunMeta) => unknown; show?: (meta: RunMeta) => string }> = [
  { what: 'targets', of: (meta) => meta.target },
  { what: 'specs', of: (meta) => meta.specSha256, show: (meta) => `spec sha256 ${meta.specSha256.slice(0, 12)}` },
  { what: 'kgate versions', of: (meta) => meta.kgateVersion, show: (meta) => `kgate ${meta.kgateVersion}` },
  { what: 'seeds', of: (meta) => meta.seed, show: (meta) => `seed ${meta.seed}` },
  { what: 'generative phases', of: (meta) => meta.generate, show: (meta) => `--generate ${meta.generate}` },
  { what: 'check selections', of: (meta) => canonical(meta.selection), show: (meta) => canonical(meta.selection) },
  {
    what: 'baselines',
    of: (meta) => meta.baseline?.sha256 ?? 'none',
    show: (meta) => (meta.baseline ? `baseline sha256 ${meta.baseline.sha256.slice(0, 12)}` : 'no baseline'),
  },
];

/**
 * Refuses folders that are not the shards of one run: different targets, specs, kgate versions,
 * seeds, generative phases, check selections or baselines, shards of different splits, two copies
 * of one shard, a whole run among shards, a merged run. One line naming the difference.
 */
export function checkCompatible(folders: readonly RunFolder[]): void {
  const [first] = folders;
  if (!first) return;
  for (const folder of folders) {
    if (folder.meta.merged)
      throw new MergeError(`${folder.dir} is already a merged run; merge the shards' own folders`);
    for (const { what, of, show } of SAME) {
      if (of(folder.meta) === of(first.meta)) continue;
      const name = show ?? ((meta: RunMeta) => String(of(meta)));
      throw new MergeError(
        `${folder.dir} and ${first.dir} are runs of different ${what} (${name(folder.meta)} vs ${name(first.meta)}): only the shards of one run merge`,
      );
    }
  }
  const sharded = folders.filter((folder) => folder.meta.shard);
  const whole = folders.find((folder) => !folder.meta.shard);
  if (whole && folders.length > 1)
    throw new MergeError(`${whole.dir} is a whole run, not a shard (no --shard): only the shards of one run merge`);
  for (const folder of sharded) {
    const other = sharded.find((item) => item.meta.shard!.total !== folder.meta.shard!.total);
    if (other)
      throw new MergeError(
        `${folder.dir} and ${other.dir} split the run differently (shard ${folder.meta.shard!.current}/${folder.meta.shard!.total} vs ${other.meta.shard!.current}/${other.meta.shard!.total})`,
      );
    const twin = sharded.find((item) => item !== folder && item.meta.shard!.current === folder.meta.shard!.current);
    if (twin)
      throw new MergeError(
        `${folder.dir} and ${twin.dir} are both shard ${folder.meta.shard!.current} of ${folder.meta.shard!.total}: give each shard once`,
      );
  }
}

/** The merged run: its summary (the verdict), the records it was judged from, its run.json, and the checks of its matrix. */
export interface MergedRun {
  run: RunSummary;
  records: TestRecord[];
  meta: RunMeta;
  checks: Check[];
}

/**
 * Merges the shards of one run from their test records (never from their rendered reports): the
 * records are judged together as one run's would be, so the counts are those of the whole run; a
 * test recorded by two shards (Playwright runs a teardown project in each) counts once. A shard
 * missing, by the folders' own total or by `expectShards` where they carry none, fails the verdict.
 */
export function mergeRuns(
  folders: readonly RunFolder[],
  options: { expectShards?: number; reportDir: string },
): MergedRun {
  checkCompatible(folders);
  const totals = [...new Set(folders.flatMap((folder) => (folder.meta.shard ? [folder.meta.shard.total] : [])))];
  const recorded = totals[0];
  if (recorded !== undefined && options.expectShards !== undefined && options.expectShards !== recorded)
    throw new MergeError(
      `option --expect-shards says ${options.expectShards} shards, but the folders are shards of ${recorded}`,
    );
  const whole = folders.length === 1 && !folders[0]!.meta.shard;
  if (whole && options.expectShards !== undefined && options.expectShards > 1)
    throw new MergeError(
      `${folders[0]!.dir} is a whole run, not a shard (no --shard), but --expect-shards says ${options.expectShards}`,
    );
  const total = recorded ?? options.expectShards;
  if (folders.length === 0 && total === undefined)
    throw new MergeError(
      'no run folder found (a run folder holds run.json); option --expect-shards N says how many shards were expected',
    );
  const present = folders
    .flatMap((folder) => (folder.meta.shard ? [folder.meta.shard.current] : []))
    .sort((a, b) => a - b);
  const shards =
    total !== undefined && !whole
      ? {
          total,
          merged: present,
          missing: Array.from({ length: total }, (_, index) => index + 1).filter((shard) => !present.includes(shard)),
        }
      : undefined;

  const ordered = [...folders].sort((a, b) => (a.meta.shard?.current ?? 0) - (b.meta.shard?.current ?? 0));
  const seen = new Set<string>();
  const records: TestRecord[] = [];
  for (const folder of ordered) {
    for (const record of folder.records) {
      const key = [record.project, record.operation, record.check].join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(record);
    }
  }
  const first = ordered[0];
  const selection = first?.meta.selection;
  const checks = checksOfRun(CHECKS, { severity: selection?.severity, excludeChecks: selection?.excludeChecks });
  const baseline = first?.meta.baseline;
  const targets = summarise(
    records,
    OPERATIONS.map((op) => op.label),
    checks,
    baseline ? { file: baseline.file, baseline: baseline.baseline, today: baseline.today } : undefined,
  );
  const failed =
    targets.some((target) => target.verdict === 'fail') || (shards?.missing.length ?? 0) > 0 || records.length === 0;
  const notSelected = notSelectedOf(selection?.checks, checks, targets);
  const summaries = ordered.map((folder) => folder.summary);
  const maxRps = summaries.find((summary) => summary.maxRps)?.maxRps;
  const run: RunSummary = {
    verdict: failed ? 'fail' : 'pass',
    exitCode: failed ? 1 : 0,
    baseUrl: first?.meta.target === EMBEDDED_TARGET ? EMBEDDED_TARGET : (summaries[0]?.baseUrl ?? first?.meta.target),
    ...(first?.meta.target === EMBEDDED_TARGET ? { embedded: true } : {}),
    ...(notSelected ? { notSelected } : {}),
    strict: selection?.strict ?? false,
    // The shards ran side by side: the merged run took as long as the slowest.
    durationMs: Math.max(0, ...summaries.map((summary) => summary.durationMs ?? 0)),
    reportDir: options.reportDir,
    workers: Math.max(0, ...summaries.map((summary) => summary.workers ?? 0)),
    requests: summaries.reduce((sum, summary) => sum + (summary.requests ?? 0), 0),
    ...(maxRps ? { maxRps } : {}),
    ...(shards ? { shards } : {}),
    tolerance: TOLERANCE_STATEMENT,
    targets,
  };
  const startedAt = ordered.map((folder) => folder.meta.startedAt).sort()[0] ?? new Date().toISOString();
  const meta: RunMeta = first
    ? {
        ...first.meta,
        shard: undefined,
        ...(shards ? { merged: { total: shards.total, shards: shards.merged, missing: shards.missing } } : {}),
        startedAt,
      }
    : ({
        kgateRun: 1,
        kgateVersion: 'unknown',
        target: 'unknown',
        specSha256: '',
        seed: 0,
        generate: 0,
        selection: { strict: false, rateLimit: false },
        merged: { total: shards!.total, shards: [], missing: shards!.missing },
        startedAt,
      } satisfies RunMeta);
  return { run, records, meta, checks };
}

/** The verdict line of a merged run: `FAIL: shard 2 of 4 missing; 3 failed cells`. */
export function mergeVerdictLine(run: RunSummary): string {
  const reasons: string[] = [];
  const missing = run.shards && missingShards(run.shards);
  if (missing) reasons.push(missing);
  const failed = run.targets.reduce((sum, target) => sum + target.counts.failed, 0);
  if (failed > 0) reasons.push(`${failed} failed cell(s)`);
  if (run.targets.length === 0 && !missing) reasons.push('no test records');
  return `${run.verdict.toUpperCase()}${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`;
}
