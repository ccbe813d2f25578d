import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { CODE_ROOT } from '../config/runtime.ts';
import { SPEC_PATH } from '../openapi/spec.ts';
import type { ConformanceBaseline } from './baseline.ts';

/** The file of a run folder that says what the run was: target, spec, version, seed, selection, shard. */
export const RUN_FILE = 'run.json';
/** Version of run.json's format. */
export const RUN_META_VERSION = 1;
/** The target name of a run against the embedded reference server (its port changes every run). */
export const EMBEDDED_TARGET = 'embedded reference server';

/** What a run was, so that the shards of one run can be told from the folders of others. */
export interface RunMeta {
  kgateRun: typeof RUN_META_VERSION;
  /** The kgate version that ran it. */
  kgateVersion: string;
  /** The target: its base URL without credentials or query, keys masked; or EMBEDDED_TARGET. */
  target: string;
  /** SHA-256 of the spec the run judged against (openapi/openapi.yaml). */
  specSha256: string;
  /** Seed and size of the generative phase. */
  seed: number;
  generate: number;
  /** Which tests ran and how they were weighed. */
  selection: {
    checks?: string[];
    excludeChecks?: string[];
    severity?: Record<string, 'fail' | 'warn'>;
    strict: boolean;
    /** Playwright's --grep, when one was given. */
    grep?: string;
    /** Whether the run includes the @rate-limit tests (in a sharded run, the last shard runs them). */
    rateLimit: boolean;
  };
  /** The baseline the run was judged against (its entries: a merge judges the merged run by them). */
  baseline?: { file: string; today: string; sha256: string; baseline: ConformanceBaseline };
  /** This run's part of a sharded run (Playwright's --shard); absent when the run was whole. */
  shard?: { current: number; total: number };
  /** The shards a merged run was made of (kgate report merge). */
  merged?: { total: number; shards: number[]; missing: number[] };
  startedAt: string;
}

let version: string | undefined;

/** The version of the running kgate, from its package.json (the repository's or the installed package's). */
export function kgateVersion(): string {
  if (version) return version;
  for (const path of [join(CODE_ROOT, 'package.json'), join(CODE_ROOT, '..', 'package.json')]) {
    if (!existsSync(path)) continue;
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'kgate' && pkg.version) {
      version = pkg.version;
      return version;
    }
  }
  version = 'unknown';
  return version;
}

/** SHA-256 of a text, in hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

let specHash: string | undefined;

/** SHA-256 of the spec this kgate judges against. */
export function specSha256(): string {
  specHash ??= sha256(readFileSync(SPEC_PATH, 'utf8'));
  return specHash;
}

/** A target's name in run.json: the base URL without credentials, query or trailing slash, keys masked. */
export function targetName(baseUrl: string | undefined, embedded: boolean): string {
  if (embedded || !baseUrl) return EMBEDDED_TARGET;
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return redactSecrets(url.toString().replace(/\/+$/, ''));
  } catch {
    return redactSecrets(baseUrl);
  }
}

/** What of a conformance run's options its run.json records. */
export interface RunMetaOptions {
  embedded: boolean;
  seed: number;
  generate: number;
  checks?: readonly string[];
  excludeChecks?: readonly string[];
  severity?: Record<string, 'fail' | 'warn'>;
  strict: boolean;
  rateLimit: boolean;
}

/** The run.json of a conformance run. */
export function runMeta(
  options: RunMetaOptions,
  context: {
    baseUrl?: string;
    grep?: string;
    shard?: { current: number; total: number } | null;
    baseline?: { file: string; today: string; baseline: ConformanceBaseline };
    startedAt: Date;
  },
): RunMeta {
  return {
    kgateRun: RUN_META_VERSION,
    kgateVersion: kgateVersion(),
    target: targetName(context.baseUrl, options.embedded),
    specSha256: specSha256(),
    seed: options.seed,
    generate: options.generate,
    selection: {
      ...(options.checks ? { checks: [...options.checks].sort() } : {}),
      ...(options.excludeChecks?.length ? { excludeChecks: [...options.excludeChecks].sort() } : {}),
      ...(options.severity && Object.keys(options.severity).length > 0 ? { severity: options.severity } : {}),
      strict: options.strict,
      ...(context.grep ? { grep: context.grep } : {}),
      rateLimit: options.rateLimit,
    },
    ...(context.baseline
      ? { baseline: { ...context.baseline, sha256: sha256(JSON.stringify(context.baseline.baseline)) } }
      : {}),
    ...(context.shard ? { shard: { current: context.shard.current, total: context.shard.total } } : {}),
    startedAt: context.startedAt.toISOString(),
  };
}
