// The options every command that talks to a target shares, each with one name, one unit and one
// range wherever it appears, and the words its --help says of it. A command takes the ones it
// uses (`sharedOptions('base-url', 'timeout', ...)`) and may say more of what one bounds in its
// own work. The old spellings a command once had are its own (`option.renamed`), listed at the end
// of its usage by `renamedUsage`.
import { formatDuration } from '../../config/duration.ts';
import { type OptionSpec, option, type ValueSpec } from './args.ts';
import { REPORT_DIR_OPTION } from './run-folder.ts';

/** Shortest and longest per-request deadline. */
export const TIMEOUT_RANGE_MS = { min: 100, max: 600_000 } as const;
/** Longest time limit of a run. */
export const MAX_DURATION_LIMIT_MS = 24 * 3_600_000;
/** Largest --max-rps. */
export const MAX_RPS_LIMIT = 100_000;
/** Largest --max-requests. */
export const MAX_REQUESTS_LIMIT = 1_000_000;

/** The shared options, each once. */
export const SHARED_OPTIONS = {
  'base-url': option.url(),
  config: option.path('file'),
  'report-dir': REPORT_DIR_OPTION,
  json: option.flag(),
  timeout: option.duration(TIMEOUT_RANGE_MS.min, TIMEOUT_RANGE_MS.max),
  'max-rps': option.decimal(0.001, MAX_RPS_LIMIT, 'requests per second'),
  'max-requests': option.whole(1, MAX_REQUESTS_LIMIT, 'requests'),
  'max-duration': option.duration(1_000, MAX_DURATION_LIMIT_MS),
  'allow-remote': option.flag(),
} satisfies Record<string, OptionSpec<unknown>>;

/** One shared option's name. */
export type SharedName = keyof typeof SHARED_OPTIONS;

/** The shared options a command takes, by name. */
export function sharedOptions<const K extends SharedName>(...names: K[]): Pick<typeof SHARED_OPTIONS, K> {
  return Object.fromEntries(names.map((name) => [name, SHARED_OPTIONS[name]])) as Pick<typeof SHARED_OPTIONS, K>;
}

/** What each shared option does, as every command's --help says it first. */
export const SHARED_WORDS: Record<SharedName, string> = {
  'base-url':
    "the target: the deployment's base URL, a path prefix allowed (else KGATE_BASE_URL, else baseUrl of the configuration file, else the embedded reference server)",
  config:
    'configuration file (default: kgate.config.json, .yaml or .yml in the working directory): the target, the key variables, limits, route and headers every command reads',
  'report-dir':
    "this run's reports go into DIR itself (made and proven writable before anything is sent; default: a new reports/<kind>/<run-id>/)",
  json: 'print one JSON object on stdout instead of the report, whatever the outcome',
  timeout: `per-request deadline, a duration such as 500ms or 20s, from ${formatDuration(TIMEOUT_RANGE_MS.min)} to ${formatDuration(TIMEOUT_RANGE_MS.max)} (maxRps and timeoutMs of the configuration file apply too)`,
  'max-rps': `at most R requests per second, every request of the run counted, from 0.001 to ${MAX_RPS_LIMIT}`,
  'max-requests': `at most N requests in the whole run, every request counted (the preflight included), from 1 to ${MAX_REQUESTS_LIMIT.toLocaleString('en-US')}`,
  'max-duration': `time limit of the whole run, a duration such as 90s or 20m, up to ${formatDuration(MAX_DURATION_LIMIT_MS)}`,
  'allow-remote': 'allow a target that is not a loopback address',
};

/** Wraps `text` after a left column of `width` characters, lines at most 100 long. */
function wrap(text: string, width: number): string[] {
  const room = Math.max(40, 100 - width - 3);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * The usage lines of options, `--name` in a column of `width`, then its words: the shared words of a
 * shared option unless given, and `more` after them (what it bounds in this command).
 */
export function optionUsage(width: number, entries: [name: string, words?: string, more?: string][]): string {
  return entries
    .flatMap(([name, words, more]) => {
      const text = [words ?? SHARED_WORDS[name as SharedName] ?? '', more].filter(Boolean).join('; ');
      const [first = '', ...rest] = wrap(text, width);
      return [`  ${`--${name}`.padEnd(width)} ${first}`, ...rest.map((line) => `  ${''.padEnd(width)} ${line}`)];
    })
    .join('\n');
}

/** The closing lines of a usage that name the options it renamed: `--budget is --max-requests`. */
export function renamedUsage(table: Record<string, OptionSpec<unknown>>): string {
  const renamed = Object.entries(table).filter(([, spec]) => spec.renamedTo !== undefined);
  if (renamed.length === 0) return '';
  return `renamed (the old names still work, with a note, until the next release): ${renamed
    .map(([old, spec]) => `--${old} is --${spec.renamedTo}`)
    .join(', ')}`;
}

/** The old spelling `old` of shared option `now`, with what the new name means where it differs. */
export function renamedShared<K extends SharedName>(
  now: K,
  meaning?: string,
  carry?: (value: never, others: Record<string, unknown>) => unknown,
): ValueSpec<unknown> & { renamedTo: string } {
  return option.renamed(
    now,
    SHARED_OPTIONS[now] as ValueSpec<unknown>,
    meaning,
    carry as (value: unknown, others: Record<string, unknown>) => unknown,
  );
}
