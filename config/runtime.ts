import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `.ts` when kgate runs from its TypeScript sources (a clone, through tsx), `.js` when it runs
 * compiled (the installed package's dist/). Files that name other modules at run time (Playwright's
 * config, test files and reporter, the embedded server's child process) pick the file this way.
 */
export type ModuleExt = '.ts' | '.js';
export const MODULE_EXT: ModuleExt = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** Node arguments a child process needs to run a kgate module: tsx's loader for the sources only. */
export const CHILD_EXEC_ARGV: readonly string[] = MODULE_EXT === '.ts' ? ['--import', 'tsx'] : [];

/** The root of the running code: the repository (sources) or the package's dist/ (compiled). */
export const CODE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The TypeScript sources of the running code: the repository, also when a clone runs its build
 * (which names them in `sources.json`, scripts/runtime-build.mjs); none in the installed package.
 * What is made from the sources at run time (the k6 bundles) is made from them. Read when asked,
 * not when every process loads this module.
 */
export function sourcesRoot(): string | undefined {
  if (MODULE_EXT === '.ts') return CODE_ROOT;
  try {
    return (JSON.parse(readFileSync(join(CODE_ROOT, 'sources.json'), 'utf8')) as { root: string }).root;
  } catch {
    return undefined;
  }
}
