// Where the CPU time of a `kgate conform` run goes: runs it with V8's CPU profiler on every process
// (the CLI with --cpu-prof, Playwright's runner and its workers through KGATE_CPU_PROF_DIR), then
// sums each process's samples by what they were doing. The figures in run/README.md ("Where the
// time goes") come from this script.
// Usage: tsx scripts/cpu-profile.ts [--keep DIR] [kgate conform options...]
//   e.g. tsx scripts/cpu-profile.ts                       the full gate on the embedded default
//        tsx scripts/cpu-profile.ts --checks response-matches-spec --generate 0
// Each sample is put under one heading, by its call stack: garbage collection; start-up (any
// module being loaded, compiled or evaluated, Playwright's transpiling included); else the code
// nearest the sampled frame: the reference server (the embedded target), kgate's own modules,
// the compiled validators, Playwright, or another package. Node's own internals (sockets, files,
// timers) count for whoever called them. Named hot spots are inclusive times.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Inclusive hot spots: a sample counts once under each whose frame is on its stack. */
const HOT_SPOTS: Record<string, RegExp> = {
  'Playwright steps (call stacks captured per step)': /^_addStep .*workerProcessEntry/,
  'messages to the runner': /^sendMessageToParent /,
  'test groups (the whole file bound to the project for every group a worker is handed)': /^bindFileSuiteToProject /,
  'HTTP client': /^\S+ .*\/http\/client\.ts$/,
  'response validation': /^validateResponse .*openapi\/validator\.ts$/,
  'properties judging answers': /^judgeAnswer /,
  'reporter (runner)': /^\S+ .*contracts\/reporter\.ts$/,
  'report files': /^writeRunReports /,
};

/** A clone's build of its sources (scripts/runtime-build.mjs), named as the sources: `<build>/contracts/api.js` -> `<root>/contracts/api.ts`. */
const CLONE_BUILD = /\/node_modules\/\.cache\/kgate\/runtime\/[^/]+\/(.*)\.js$/;

function sourceUrl(url: string): string {
  const built = CLONE_BUILD.exec(url);
  return built ? `${ROOT}${built[1]}.ts` : url;
}

function ownerOf(url: string): string | undefined {
  if (url.includes('/openapi/generated/') || url.includes('/node_modules/ajv')) return 'validation';
  if (url.includes('/node_modules/')) {
    const name = url.split('/node_modules/').pop()!.split('/')[0]!;
    return name === 'playwright' || name === 'playwright-core' || name === '@playwright' ? 'Playwright' : name;
  }
  if (url.startsWith('file://') || url.startsWith('/')) {
    const path = url.replace(/^file:\/\//, '');
    if (!path.startsWith(ROOT)) return 'other';
    return path.slice(ROOT.length).startsWith('reference/') ? 'reference server' : 'kgate';
  }
  return undefined;
}

const STARTUP = /^node:internal\/modules\/|\/node_modules\/tsx\/|playwright\/lib\/transform\//;

/** Sums one profile: milliseconds by heading, by hot spot, and its wall time. */
export function summarise(profile: Profile): {
  wallMs: number;
  busyMs: number;
  headings: Record<string, number>;
  hot: Record<string, number>;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const headings: Record<string, number> = {};
  const hot: Record<string, number> = {};
  let busy = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busy += micros;
    const stack: ProfileNode['callFrame'][] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!.callFrame);
    let heading: string;
    if (frame.functionName === '(garbage collector)') heading = 'garbage collection';
    else if (frame.functionName === '(program)') heading = 'V8 and Node (no JavaScript frame)';
    else if (stack.some((f) => STARTUP.test(f.url))) heading = 'start-up (loading modules)';
    else heading = stack.map((f) => ownerOf(sourceUrl(f.url))).find((owner) => owner !== undefined) ?? 'Node internals';
    headings[heading] = (headings[heading] ?? 0) + micros / 1000;
    for (const [name, pattern] of Object.entries(HOT_SPOTS))
      if (stack.some((f) => pattern.test(`${f.functionName} ${sourceUrl(f.url)}`)))
        hot[name] = (hot[name] ?? 0) + micros / 1000;
  }
  return { wallMs: (profile.endTime - profile.startTime) / 1000, busyMs: busy / 1000, headings, hot };
}

/** The role of a profile's process, from what its frames ran. */
function roleOf(profile: Profile, cliPid: number, pid: number): string {
  if (pid === cliPid) return 'CLI';
  const urls = profile.nodes.map((node) => node.callFrame.url);
  if (urls.some((url) => url.includes('worker/workerProcessEntry'))) return 'worker';
  return 'runner';
}

const args = process.argv.slice(2);
const keepAt = args.indexOf('--keep');
const dir = keepAt >= 0 ? args.splice(keepAt, 2)[1]! : mkdtempSync(join(tmpdir(), 'kgate-cpu-profile-'));
const started = performance.now();
const run = spawnSync(
  process.execPath,
  ['--cpu-prof', `--cpu-prof-dir=${dir}`, join(ROOT, 'bin/kgate.mjs'), 'conform', '--json', ...args],
  { cwd: ROOT, env: { ...process.env, KGATE_CPU_PROF_DIR: dir }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
);
const wallS = (performance.now() - started) / 1000;
const summary = JSON.parse(run.stdout || '{}') as { verdict?: string; requests?: number };
console.log(
  `kgate conform ${args.join(' ')}: ${summary.verdict ?? 'no result'}, ${summary.requests ?? '?'} requests, ${wallS.toFixed(1)} s wall (profiling slows it)`,
);
// CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile; thread 0 is the main thread, others module-loader threads.
const files = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
const cliPid = Math.min(...files.map((name) => Number(name.split('.')[3])));
const totals: Record<string, number> = {};
const hotTotals: Record<string, number> = {};
let busyTotal = 0;
for (const name of files.sort()) {
  const [, , , pid, thread] = name.split('.');
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Profile;
  const main = thread === '0';
  const { wallMs, busyMs, headings, hot } = summarise(profile);
  const role = main ? roleOf(profile, cliPid, Number(pid)) : 'loader thread';
  busyTotal += busyMs;
  console.log(
    `\n${role} (pid ${pid}${main ? '' : ', module loader thread'}): ${busyMs.toFixed(0)} ms CPU of ${wallMs.toFixed(0)} ms`,
  );
  for (const [heading, ms] of Object.entries(headings).sort((a, b) => b[1] - a[1])) {
    if (ms >= 5) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${heading}`);
    // Loader threads only load modules: their time is start-up.
    const key = main ? heading : 'start-up (loading modules)';
    totals[key] = (totals[key] ?? 0) + ms;
  }
  for (const [spot, ms] of Object.entries(hot)) {
    if (ms >= 5) console.log(`  ${ms.toFixed(0).padStart(6)} ms  incl. ${spot}`);
    hotTotals[spot] = (hotTotals[spot] ?? 0) + ms;
  }
}
console.log(`\nall processes: ${busyTotal.toFixed(0)} ms CPU sampled`);
for (const [heading, ms] of Object.entries(totals).sort((a, b) => b[1] - a[1]))
  console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${((ms / busyTotal) * 100).toFixed(0).padStart(3)} %  ${heading}`);
for (const [spot, ms] of Object.entries(hotTotals).sort((a, b) => b[1] - a[1]))
  console.log(`  ${ms.toFixed(0).padStart(6)} ms  incl. ${spot}`);
if (keepAt < 0) rmSync(dir, { recursive: true, force: true });
else console.log(`\nprofiles kept in ${dir} (open them in Chrome's DevTools, Performance tab)`);
