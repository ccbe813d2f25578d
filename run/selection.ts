import { availableParallelism } from 'node:os';
import type { Project } from '@playwright/test';
import { MODULE_EXT, type ModuleExt } from '../config/runtime.ts';
import { CHECKS, testsExercising } from '../contracts/checks/index.ts';
import { RATE_LIMIT_TAG } from '../contracts/checks/registry.ts';
import { GENERATIVE_CHECKS } from '../contracts/generative/judge.ts';
import { PROPERTY_CHECKS } from '../contracts/properties/index.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import type { ConformOptions, PlannedProject, PlaywrightPlan } from './options.ts';
import { type SelectedTest, testTimeoutMs } from './request-budget.ts';

const RATE_LIMIT = new RegExp(RATE_LIMIT_TAG);
const NOT_RATE_LIMIT = new RegExp(`^(?![\\s\\S]*${RATE_LIMIT_TAG})`);
/** The file of the conformance suite's tests, in the code of the given extension. */
const suiteFile = (ext: ModuleExt) => `operations.spec${ext}`;

/** Selects the tests of the given check ids (test titles are check ids). */
function checksGrep(ids: readonly string[] | undefined): RegExp | undefined {
  return ids ? new RegExp(`(?:^|\\s)(?:${ids.join('|')})(?:\\s|$)`) : undefined;
}

/**
 * The Playwright projects of a conformance run. The rate-limit tests burst traffic, so they run
 * after every other test of the operations they burst: in an unsharded run in the same project and
 * workers, declared after those operations' tests and before the other operations'
 * (operations.spec.ts), waiting until those tests have ended (`rateLimitLast`, see runCheck) while
 * the other operations' tests go on; a teardown project would start workers of its own. Of a sharded run they form a
 * teardown project `rate-limit`, which Playwright runs whole in every shard, so only the last
 * shard has it and the shards together run each test once. A fault sweep has one project of its own.
 * `ext` is the extension of the code Playwright runs (run/run.ts may run a build of the sources).
 */
export function suiteProjects(options: ConformOptions, ext: ModuleExt = MODULE_EXT): Project[] {
  const SUITE_FILE = suiteFile(ext);
  // The fault sweep's file is the self-proof's (proof/), beside the suite's (run/, the configuration's testDir).
  if (isSweep(options)) return [{ name: 'sweep', testDir: './proof', testMatch: `fault-sweep.spec${ext}` }];
  const carrier = GENERATIVE_CHECKS.positiveAccepted;
  // The generated valid requests that the properties judge are sent and reported by the
  // positive-input-accepted tests: they run whenever a property does, selected or not.
  const carried = carriesProperties(options);
  const grep = checksGrep(options.checks && [...testsExercising(options.checks), ...(carried ? [carrier] : [])]);
  const excluded = (options.excludeChecks ?? []).filter((id) => !(carried && id === carrier));
  const exclude = excluded.length ? checksGrep(excluded) : undefined;
  if (rateLimitLast(options)) {
    return [{ name: 'conformance', testMatch: SUITE_FILE, grep, ...(exclude ? { grepInvert: exclude } : {}) }];
  }
  const rateLimit = options.rateLimit && (!options.shard || options.shard.current === options.shard.total);
  return [
    {
      name: 'conformance',
      testMatch: SUITE_FILE,
      grep,
      grepInvert: exclude ? [RATE_LIMIT, exclude] : RATE_LIMIT,
      teardown: rateLimit ? 'rate-limit' : undefined,
    },
    ...(rateLimit
      ? [
          {
            name: 'rate-limit',
            testMatch: SUITE_FILE,
            grep: grep ?? RATE_LIMIT,
            grepInvert: exclude ? [NOT_RATE_LIMIT, exclude] : NOT_RATE_LIMIT,
          },
        ]
      : []),
  ];
}

/** Whether the options are a fault sweep's: its targets given, or the file that holds them. */
function isSweep(options: Pick<ConformOptions, 'sweep' | 'sweepFile'>): boolean {
  return options.sweep !== undefined || options.sweepFile !== undefined;
}

/** Whether the rate-limit tests run in the run's own project, after the other tests of the operations they burst (an unsharded run that has them). */
export function rateLimitLast(options: Pick<ConformOptions, 'sweep' | 'sweepFile' | 'rateLimit' | 'shard'>): boolean {
  return !isSweep(options) && options.rateLimit && !options.shard;
}

/**
 * A run announced to send at most this many requests gets one Playwright worker: a second costs a
 * Node process, Playwright and the suite to start (about a second of CPU, and on a machine of two
 * cores the first worker's time), which a run this small does not win back.
 */
export const ONE_WORKER_REQUESTS = 60;
/** At most this many requests a second over the whole run (--max-rps), one worker keeps up with the pace alone. */
export const ONE_WORKER_MAX_RPS = 2;

/**
 * Playwright's worker processes for a run: --workers; else one for a small run (`requests`, the
 * announced estimate, at most ONE_WORKER_REQUESTS) or a slow pace (--max-rps at most
 * ONE_WORKER_MAX_RPS: more workers would wait for the same slots, each finding its test data anew
 * against the quota); else the number of cores, at least 2.
 */
export function workersOf(options: Pick<ConformOptions, 'workers' | 'maxRps'>, requests?: number): number {
  if (options.workers !== undefined) return options.workers;
  if (requests !== undefined && requests <= ONE_WORKER_REQUESTS) return 1;
  if (options.maxRps !== undefined && options.maxRps <= ONE_WORKER_MAX_RPS) return 1;
  return Math.max(2, availableParallelism());
}

/** The regular expression sources of a project's grep or grepInvert. */
function sources(patterns: Project['grep']): string[] | undefined {
  if (patterns === undefined) return undefined;
  return (Array.isArray(patterns) ? patterns : [patterns]).map((pattern) => pattern.source);
}

/**
 * What Playwright runs for these options: the projects, the workers and the per-test time limit;
 * `ext` as for suiteProjects.
 */
export function playwrightPlan(options: ConformOptions, ext: ModuleExt = MODULE_EXT): PlaywrightPlan {
  const workers = workersOf(options);
  const projects = suiteProjects(options, ext).map(
    (project): PlannedProject => ({
      name: project.name!,
      ...(project.testDir ? { testDir: project.testDir } : {}),
      testMatch: String(project.testMatch),
      ...(project.grep !== undefined ? { grep: sources(project.grep) } : {}),
      ...(project.grepInvert !== undefined ? { grepInvert: sources(project.grepInvert) } : {}),
      ...(typeof project.teardown === 'string' ? { teardown: project.teardown } : {}),
    }),
  );
  return { workers, timeoutMs: testTimeoutMs(options, workers), projects, rateLimitLast: rateLimitLast(options) };
}

/**
 * Whether the run's generated valid requests are judged by a property (a property check selected
 * and not excluded, and a generative phase): then the positive-input-accepted tests run, to send
 * and report them, even where that check itself is not selected.
 */
export function carriesProperties(options: Pick<ConformOptions, 'checks' | 'excludeChecks' | 'generate'>): boolean {
  if (!(options.generate > 0)) return false;
  return [...PROPERTY_CHECKS].some(
    (id) => (!options.checks || options.checks.includes(id)) && !options.excludeChecks?.includes(id),
  );
}

function matches(patterns: Project['grep'], title: string): boolean {
  const list = patterns === undefined ? [] : Array.isArray(patterns) ? patterns : [patterns];
  return list.some((pattern) => {
    pattern.lastIndex = 0;
    return pattern.test(title);
  });
}

/**
 * The tests a run selects, worked out the way Playwright does it (each project's grep and
 * grepInvert, then --grep, against the title path `' <project> <file> <operation> <check> <tags>'`),
 * without starting Playwright. --shard is not applied: a shard runs about its share of these.
 */
export function selectedTests(options: ConformOptions, grep?: string): SelectedTest[] {
  const cliGrep = grep === undefined ? undefined : new RegExp(grep);
  const selected: SelectedTest[] = [];
  for (const project of suiteProjects(options)) {
    if (isSweep(options)) break;
    for (const op of OPERATIONS) {
      for (const check of CHECKS) {
        if (!check.run || !check.appliesTo(op)) continue;
        // As operations.spec.ts declares them: the generative checks only when there is a generative phase.
        if (check.kind === 'generative' && !(options.generate > 0)) continue;
        const title = [
          '',
          project.name,
          suiteFile(MODULE_EXT),
          op.label,
          check.id,
          ...(check.tag ? [check.tag] : []),
        ].join(' ');
        if (project.grep !== undefined && !matches(project.grep, title)) continue;
        if (matches(project.grepInvert, title)) continue;
        if (cliGrep && !cliGrep.test(title)) continue;
        selected.push({ project: project.name!, operation: op.label, check: check.id });
      }
    }
  }
  return selected;
}
