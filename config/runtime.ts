import { fileURLToPath } from 'node:url';

/**
 * `.ts` when kgate runs from its TypeScript sources (a clone, through tsx), `.js` when it runs
 * compiled (the installed package's dist/). Files that name other modules at run time (Playwright's
 * config, test files and reporter, the embedded server's child process) pick the file this way.
 */
export const MODULE_EXT: '.ts' | '.js' = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** Node arguments a child process needs to run a kgate module: tsx's loader for the sources only. */
export const CHILD_EXEC_ARGV: readonly string[] = MODULE_EXT === '.ts' ? ['--import', 'tsx'] : [];

/** The root of the running code: the repository (sources) or the package's dist/ (compiled). */
export const CODE_ROOT = fileURLToPath(new URL('..', import.meta.url));
