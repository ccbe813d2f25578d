import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODULE_EXT, sourcesRoot } from '../config/runtime.ts';
import { kgateVersion } from '../reporting/run-meta.ts';
import type { BundleSettings } from './k6/options.ts';
import { SCENARIOS } from './scenarios.ts';

/** The scenarios `kgate k6 bundle` can bundle (the k6 scripts of load/k6/). */
export const K6_SCENARIOS = Object.keys(SCENARIOS);
/** A k6-operator script lives in a ConfigMap, whose data is limited to 1 MiB. */
export const CONFIGMAP_LIMIT_BYTES = 1024 * 1024;
/** The syntax of the bundles: old k6 releases (0.4x) parse ES2015 and no later syntax (`??`, `?.`, spread in objects). */
export const K6_TARGET = 'es2015';

/** Where the installed package keeps the bundles `npm run build` made (no bundler is installed with it). */
export function prebuiltBundlePath(name: string): string {
  return fileURLToPath(new URL(`./k6-bundles/${name}.js`, import.meta.url));
}

/** The comment at the top of every bundle: what it is and how to run it. */
export function bundleBanner(name: string): string {
  return [
    `// kgate k6 script, scenario '${name}': one self-contained file (${K6_TARGET}, only k6 modules imported),`,
    '// bundled from load/k6/ and load/scenarios.ts by `kgate k6 bundle`.',
    `// Run: k6 run -e BASE_URL=https://host/prefix -e KGATE_KEY=... ${name}.js`,
    '// Overrides: -e RATE=<peak/s> -e DURATION_S=<s> -e CONNECTIONS=<VUs> -e VALIDATE_PERCENT=<0..100>',
    `// Headers of every request: -e KGATE_HEADERS='{"Authorization":"Bearer ..."}'; BASE_URL=https://user:password@host sends Basic.`,
  ].join('\n');
}

/** The string of the k6 scripts (load/k6/options.ts) that a bundle with the team's settings holds their JSON in. */
const SETTINGS_PLACEHOLDER = '__KGATE_BUNDLE_SETTINGS__';

/**
 * The bundle with the team's settings written in: the JSON of `settings` where the scripts hold
 * their placeholder, and the rules and mix named in the banner.
 */
export function withSettings(script: string, name: string, settings: BundleSettings): string {
  const quoted = new RegExp(`(["'])${SETTINGS_PLACEHOLDER}\\1`, 'g');
  const found = script.match(quoted)?.length ?? 0;
  // A bundle whose placeholder is gone or doubled is a defect of kgate's build, not of the user's input.
  if (found !== 1) throw new Error(`the ${name} bundle holds its settings placeholder ${found} times, not once`);
  const banner = [
    ...(settings.thresholds ? [`// Thresholds (kgate load judges the same): ${settings.thresholds.join(', ')}`] : []),
    ...(settings.mix
      ? [
          `// Mix: ${[...new Set(settings.mix.map((entry) => entry.operationId))].length} operations, ${settings.mix.length} distinct requests (the team's, as kgate load sends it)`,
        ]
      : []),
  ];
  const literal = JSON.stringify(JSON.stringify(settings));
  const lines = script.replace(quoted, () => literal).split('\n');
  const end = lines.findIndex((line) => !line.startsWith('//'));
  lines.splice(end, 0, ...banner);
  return lines.join('\n');
}

/**
 * One self-contained k6 script for a scenario: the script, its helpers and the scenario
 * definitions in one file, with only `k6` and `k6/*` imports left, down-levelled to ES2015.
 * From the sources (a clone, also when it runs its build) it is bundled with esbuild, a dev
 * dependency; the installed package returns the bundle its build made, which is the same text.
 * With `settings` (the team's thresholds and mix), they are written into it.
 */
export async function bundleScenario(name: string, settings?: BundleSettings): Promise<string> {
  const script = await plainBundle(name);
  return settings && (settings.thresholds || settings.mix) ? withSettings(script, name, settings) : script;
}

async function plainBundle(name: string): Promise<string> {
  if (!K6_SCENARIOS.includes(name)) {
    throw new Error(`unknown scenario '${name}' (one of ${K6_SCENARIOS.join(', ')})`);
  }
  const prebuilt = prebuiltBundlePath(name);
  const sources = sourcesRoot();
  if ((MODULE_EXT === '.js' && existsSync(prebuilt)) || sources === undefined) return readFileSync(prebuilt, 'utf8');
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(sources, 'load', 'k6', `${name}.ts`)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: K6_TARGET,
    external: ['k6', 'k6/*'],
    // The User-Agent names the kgate that bundled the script (load/k6/lib.ts).
    define: { KGATE_VERSION: JSON.stringify(kgateVersion()) },
    banner: { js: bundleBanner(name) },
    legalComments: 'none',
    charset: 'utf8',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
