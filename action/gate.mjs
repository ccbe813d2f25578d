#!/usr/bin/env node
// @ts-check
// The logic of the kgate GitHub Action (action.yml only calls this): installs kgate, runs
// `kgate conform` with the action's inputs (or, with `merge`, `kgate report merge` over the run
// folders of a sharded run; and, given an against-url, `kgate compare` of the target against that
// deployment), and sets the step's outputs from their summary.json files. Plain
// JavaScript with no dependency, because it runs before anything is installed. It works in any CI:
// the inputs are environment variables, and without GITHUB_OUTPUT the outputs are only printed.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The action's inputs, as action.yml hands them over: `KGATE_INPUT_<NAME>`, upper case, `-` as `_`. */
export const INPUTS = {
  'base-url': '',
  'key-variable': 'KGATE_KEY',
  'unsubscribed-key-variable': '',
  'unsubscribed-key-covers': '',
  'exhausted-key-variable': '',
  checks: '',
  'exclude-checks': '',
  strict: 'false',
  baseline: '',
  'max-rps': '',
  'max-rps-by-path': '',
  'max-duration': '',
  'max-requests': '',
  quota: '',
  ledger: '',
  config: '',
  'report-dir': 'kgate-reports',
  shard: '',
  merge: '',
  'expect-shards': '',
  args: '',
  'kgate-package': '',
  'working-directory': '.',
  'against-url': '',
  'against-key-variable': '',
  'compare-args': '',
  proxy: '',
  'ca-file': '',
  'client-cert': '',
  'client-key': '',
  headers: '',
};

/** @typedef {Record<keyof typeof INPUTS, string>} Inputs */

/** kgate's own report page in the report folder: the file to open first. */
export const REPORT_HTML = 'report.html';

/** A problem with the inputs or the installation: one line, exit code 2 (as kgate's own usage errors). */
export class GateError extends Error {
  /** @override */
  name = 'GateError';
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads the inputs from the environment, with their defaults.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Inputs}
 */
export function readInputs(env) {
  /** @type {Record<string, string>} */
  const inputs = {};
  for (const [name, fallback] of Object.entries(INPUTS)) {
    const value = env[`KGATE_INPUT_${name.toUpperCase().replace(/-/g, '_')}`];
    inputs[name] = value === undefined || value.trim() === '' ? fallback : value.trim();
  }
  if (!['true', 'false'].includes(inputs.strict))
    throw new GateError(`input strict takes true or false, got '${inputs.strict}'`);
  for (const name of ['key-variable', 'unsubscribed-key-variable', 'exhausted-key-variable', 'against-key-variable']) {
    if (inputs[name] && !VARIABLE.test(inputs[name]))
      throw new GateError(`input ${name} takes the NAME of an environment variable (letters, digits, _), not a key`);
  }
  if (inputs.shard && !/^\d+\/\d+$/.test(inputs.shard))
    throw new GateError(`input shard takes I/N, such as 1/4 (or \${{ matrix.shard }}/4), got '${inputs.shard}'`);
  if (inputs['expect-shards'] && !/^[1-9]\d*$/.test(inputs['expect-shards']))
    throw new GateError(`input expect-shards takes a whole number of shards, got '${inputs['expect-shards']}'`);
  if (inputs['expect-shards'] && !inputs.merge)
    throw new GateError('input expect-shards goes with merge (the run folders to merge)');
  if (inputs.merge && inputs.shard)
    throw new GateError('inputs merge and shard exclude each other: shards run the gate, one later job merges them');
  for (const line of headerLines(inputs.headers ?? ''))
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*:/.test(line))
      throw new GateError(
        `input headers takes one 'Name: value' per line (a header name, a colon, its value), got a line without them`,
      );
  if (Boolean(inputs['client-cert']) !== Boolean(inputs['client-key']))
    throw new GateError('inputs client-cert and client-key go together: a client certificate and its key');
  return /** @type {Inputs} */ (inputs);
}

/** The inputs of the route to the target, and the flags of kgate conform and kgate compare they become. */
/** @type {[keyof Inputs, string][]} */
const NETWORK_FLAGS = [
  ['proxy', '--proxy'],
  ['ca-file', '--ca-file'],
  ['client-cert', '--client-cert'],
  ['client-key', '--client-key'],
];

/**
 * The lines of the `headers` input, each a `Name: value` (blank lines left out).
 * @param {string} text
 * @returns {string[]}
 */
function headerLines(text) {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The `headers` input as options of kgate conform and kgate compare: a `--header` per line.
 * @param {Inputs} inputs
 * @returns {string[]}
 */
function headerArgs(inputs) {
  return headerLines(inputs.headers).flatMap((line) => ['--header', line]);
}

/**
 * The arguments of `kgate conform` for the inputs: each given input becomes its flag, the report
 * folder is always set (the outputs are read from it), and `args` is appended as is.
 * @param {Inputs} inputs
 * @returns {string[]}
 */
export function conformArgs(inputs) {
  /** @type {string[]} */
  const args = ['conform', '--report-dir', inputs['report-dir']];
  /** @type {[keyof Inputs, string][]} */
  const flags = [
    ['base-url', '--base-url'],
    ['checks', '--checks'],
    ['exclude-checks', '--exclude-checks'],
    ['baseline', '--baseline'],
    ['max-rps', '--max-rps'],
    ['max-rps-by-path', '--max-rps-by-path'],
    ['max-duration', '--max-duration'],
    ['max-requests', '--max-requests'],
    ['quota', '--quota'],
    ['ledger', '--ledger'],
    ['config', '--config'],
    ...NETWORK_FLAGS,
  ];
  for (const [input, flag] of flags) if (inputs[input]) args.push(flag, inputs[input]);
  args.push(...headerArgs(inputs));
  if (inputs.shard) args.push('--shard', inputs.shard);
  if (inputs.strict === 'true') args.push('--strict');
  if (inputs.args) args.push(...inputs.args.split(/\s+/).filter(Boolean));
  return args;
}

/**
 * The arguments of `kgate report merge` for the inputs: the run folders `merge` names (separated
 * by spaces or lines), the report folder, `expect-shards`. The folders are relative to the working
 * directory, like the report folder.
 * @param {Inputs} inputs
 * @returns {string[]}
 */
export function mergeArgs(inputs) {
  const dirs = inputs.merge.split(/\s+/).filter(Boolean);
  return [
    'report',
    'merge',
    ...dirs,
    '--report-dir',
    inputs['report-dir'],
    ...(inputs['expect-shards'] ? ['--expect-shards', inputs['expect-shards']] : []),
  ];
}

/**
 * The arguments of `kgate compare` for the inputs: the target (base-url, else the configuration
 * file's) against against-url, reports in a `compare` folder of the report folder, and
 * `compare-args` appended as is (for example --latency --max-requests 300).
 * @param {Inputs} inputs
 * @returns {string[]}
 */
export function compareArgs(inputs) {
  const args = [
    'compare',
    '--against-url',
    inputs['against-url'],
    '--report-dir',
    join(inputs['report-dir'], 'compare'),
  ];
  if (inputs['base-url']) args.push('--base-url', inputs['base-url']);
  if (inputs.config) args.push('--config', inputs.config);
  if (inputs['max-rps']) args.push('--max-rps', inputs['max-rps']);
  for (const [input, flag] of NETWORK_FLAGS) if (inputs[input]) args.push(flag, inputs[input]);
  args.push(...headerArgs(inputs));
  if (inputs['compare-args']) args.push(...inputs['compare-args'].split(/\s+/).filter(Boolean));
  return args;
}

/**
 * The environment of the kgate run: the keys read from the variables the inputs name, under the
 * names kgate reads. A named variable that is not set is an error when the name was given
 * explicitly: the workflow forgot to map the secret into the step's env.
 * @param {Inputs} inputs
 * @param {NodeJS.ProcessEnv} env
 * @returns {NodeJS.ProcessEnv}
 */
export function conformEnv(inputs, env) {
  /** @type {NodeJS.ProcessEnv} */
  const out = { ...env };
  /** @type {[keyof Inputs, string][]} */
  const roles = [
    ['key-variable', 'KGATE_KEY'],
    ['unsubscribed-key-variable', 'KGATE_KEY_UNSUBSCRIBED'],
    ['exhausted-key-variable', 'KGATE_KEY_EXHAUSTED'],
    ['against-key-variable', 'KGATE_AGAINST_KEY'],
  ];
  for (const [input, target] of roles) {
    const name = inputs[input];
    if (!name) continue;
    const value = env[name];
    if (value === undefined || value.trim() === '') {
      if (name === INPUTS[input]) continue;
      throw new GateError(
        `input ${input} names ${name}, which is not set in the step's environment (map the secret: env: ${name}: \${{ secrets.${name} }})`,
      );
    }
    out[target] = value;
  }
  if (inputs['unsubscribed-key-covers']) out.KGATE_KEY_UNSUBSCRIBED_COVERS = inputs['unsubscribed-key-covers'];
  return out;
}

/**
 * The step's outputs from kgate's summary.json (absent when kgate stopped before judging);
 * `report-html` is the report page, empty when there is none.
 * @param {{ verdict: string, requests?: number, reportDir?: string, shards?: { missing: number[] }, coverage?: { items: number, judged: number, notJudged?: string[], ledger?: { judged: number }, cycle?: number, never?: number }, targets: { counts: { passed: number, failed: number, known?: number, warned: number, skipped: number } }[] } | undefined} summary
 * @param {number} exitCode
 * @param {string} reportDir
 * @returns {Record<string, string>}
 */
export function outputsOf(summary, exitCode, reportDir) {
  const counts = summary?.targets[0]?.counts;
  const folder = summary?.reportDir ?? reportDir;
  return {
    verdict: summary ? summary.verdict : 'error',
    'exit-code': String(exitCode),
    passed: String(counts?.passed ?? 0),
    failed: String(counts?.failed ?? 0),
    known: String(counts?.known ?? 0),
    warnings: String(counts?.warned ?? 0),
    skipped: String(counts?.skipped ?? 0),
    requests: String(summary?.requests ?? 0),
    // What the run judged of the coverage model, and with a ledger, what its runs did and how many a cycle takes.
    'coverage-items': String(summary?.coverage?.items ?? 0),
    'coverage-judged': String(summary?.coverage?.judged ?? 0),
    'coverage-not-judged': String(summary?.coverage?.notJudged?.length ?? 0),
    'coverage-cycle': summary?.coverage?.cycle !== undefined ? String(summary.coverage.cycle) : '',
    'coverage-judged-since-ledger': summary?.coverage?.ledger ? String(summary.coverage.ledger.judged) : '',
    'coverage-never-judged': summary?.coverage?.never !== undefined ? String(summary.coverage.never) : '',
    'missing-shards': (summary?.shards?.missing ?? []).join(','),
    'report-dir': folder,
    'report-html': summary && folder ? join(folder, REPORT_HTML) : '',
  };
}

/**
 * The lines the action adds to the job summary after kgate's own: where the report page is.
 * @param {Record<string, string>} outputs
 * @returns {string}
 */
export function reportPageNote(outputs) {
  if (!outputs['report-html']) return '';
  return `Report page: \`${outputs['report-html']}\`. Upload the report folder (\`${outputs['report-dir']}\`) with actions/upload-artifact and open \`${REPORT_HTML}\` in it first: the verdict, the operation x check matrix, and every failure with its curl line.\n`;
}

/**
 * The comparison's outputs from kgate compare's summary.json (absent when it stopped before judging).
 * `differences` counts them by cause, as the terminal and the page do (one pointer and kind on
 * several operations is one); `difference-places` counts every operation each touched.
 * @param {{ verdict: string, differences: unknown[], causes?: number, latency: { regression: boolean }[] } | undefined} summary
 * @param {number} exitCode
 * @returns {Record<string, string>}
 */
export function compareOutputsOf(summary, exitCode) {
  return {
    'compare-verdict': summary ? summary.verdict : 'error',
    'compare-exit-code': String(exitCode),
    differences: String(summary?.causes ?? summary?.differences.length ?? 0),
    'difference-places': String(summary?.differences.length ?? 0),
    regressions: String(summary?.latency.filter((item) => item.regression).length ?? 0),
  };
}

/**
 * Runs kgate with its output in the job log; resolves to the exit code and the last line it wrote to stderr.
 * @param {string} kgate
 * @param {string[]} args
 * @param {string} cwd
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ code: number, lastError: string }>}
 */
async function runStep(kgate, args, cwd, env) {
  const child = spawn(kgate, args, { cwd, env, stdio: ['ignore', 'inherit', 'pipe'] });
  let lastError = '';
  child.stderr?.on('data', (chunk) => {
    process.stderr.write(chunk);
    const lines = chunk.toString('utf8').trim().split('\n');
    lastError = lines[lines.length - 1] ?? lastError;
  });
  /** @type {number} */
  const code = await new Promise((done) => child.on('close', (status) => done(status ?? 1)));
  return { code, lastError };
}

/**
 * Runs a command to completion, its output going to the job log.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv }} options
 */
function run(command, args, options) {
  const result = spawnSync(command, args, { ...options, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0)
    throw new GateError(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

const NPM_QUIET = ['--no-audit', '--no-fund', '--prefer-offline'];

/**
 * Packs a kgate checkout (its `prepare` builds dist/) and returns the tarball.
 * @param {string} checkout
 * @param {string} into
 * @returns {string}
 */
export function packCheckout(checkout, into) {
  if (!existsSync(join(checkout, 'node_modules'))) run('npm', ['ci', ...NPM_QUIET], { cwd: checkout });
  mkdirSync(into, { recursive: true });
  run('npm', ['pack', '--silent', '--pack-destination', into], { cwd: checkout });
  const tarball = readdirSync(into).find((name) => /^kgate-.*\.tgz$/.test(name));
  if (!tarball) throw new GateError(`npm pack wrote no kgate tarball into ${into}`);
  return join(into, tarball);
}

/**
 * Installs a package spec (a tarball, a registry version, a git URL) into a project folder of its
 * own and returns the kgate command there.
 * @param {string} spec
 * @param {string} project
 * @returns {string}
 */
export function installKgate(spec, project) {
  mkdirSync(project, { recursive: true });
  if (!existsSync(join(project, 'package.json')))
    writeFileSync(join(project, 'package.json'), '{ "name": "kgate-gate", "private": true }\n');
  run('npm', ['install', '--save-dev', ...NPM_QUIET, spec], { cwd: project });
  return join(project, 'node_modules', '.bin', 'kgate');
}

/**
 * The kgate command: the project's own (node_modules/.bin/kgate, when it depends on kgate) unless
 * a package is named; else kgate packed from the action's checkout and installed apart.
 * @param {Inputs} inputs
 * @param {string} workdir
 * @param {string} scratch
 * @returns {string}
 */
export function resolveKgate(inputs, workdir, scratch) {
  if (inputs['kgate-package']) return installKgate(inputs['kgate-package'], join(scratch, 'install'));
  const own = join(workdir, 'node_modules', '.bin', 'kgate');
  if (existsSync(own)) return own;
  const checkout = fileURLToPath(new URL('..', import.meta.url));
  return installKgate(packCheckout(checkout, join(scratch, 'pack')), join(scratch, 'install'));
}

/**
 * Writes outputs in the GitHub Actions format (name=value lines), or prints them elsewhere.
 * @param {Record<string, string>} outputs
 * @param {string | undefined} file
 */
export function writeOutputs(outputs, file) {
  const lines = Object.entries(outputs).map(([name, value]) => `${name}=${value}`);
  if (file) appendFileSync(file, `${lines.join('\n')}\n`);
  else console.log(lines.map((line) => `kgate gate output: ${line}`).join('\n'));
}

/**
 * The action: resolve kgate, run the gate, set outputs, exit with kgate's code.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>}
 */
export async function main(env = process.env) {
  let inputs;
  let childEnv;
  let kgate;
  try {
    inputs = readInputs(env);
    childEnv = conformEnv(inputs, env);
    const workdir = resolve(inputs['working-directory']);
    kgate = resolveKgate(
      inputs,
      workdir,
      env.RUNNER_TEMP ? join(env.RUNNER_TEMP, 'kgate') : join(tmpdir(), `kgate-gate-${process.pid}`),
    );
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    console.error(`::error title=kgate gate::${error.message}`);
    if (env.GITHUB_STEP_SUMMARY)
      appendFileSync(env.GITHUB_STEP_SUMMARY, `kgate gate could not run: ${error.message}\n`);
    writeOutputs(outputsOf(undefined, 2, ''), env.GITHUB_OUTPUT);
    return 2;
  }
  const workdir = resolve(inputs['working-directory']);
  const reportDir = resolve(workdir, inputs['report-dir']);
  const args = inputs.merge
    ? mergeArgs({ ...inputs, 'report-dir': reportDir })
    : conformArgs({ ...inputs, 'report-dir': reportDir });
  const what = inputs.merge ? 'kgate report merge' : 'kgate conform';
  // The outputs are read from this folder's summary.json: one left by an earlier run must not answer
  // for this one, nor an earlier report page.
  for (const file of ['summary.json', REPORT_HTML]) rmSync(join(reportDir, file), { force: true });
  const { code, lastError } = await runStep(kgate, args, workdir, childEnv);
  const summaryFile = join(reportDir, 'summary.json');
  const read = existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : undefined;
  // A folder kgate stopped in before a verdict (exit 2, or a signal) holds a summary without targets: no verdict.
  const summary = read && Array.isArray(read.targets) ? read : undefined;
  // kgate appends its own summary to the job summary; an early stop (exit 2) says why here.
  if (!summary) {
    console.error(`::error title=${what} (exit ${code})::${lastError}`);
    if (env.GITHUB_STEP_SUMMARY)
      appendFileSync(
        env.GITHUB_STEP_SUMMARY,
        `${what} could not ${inputs.merge ? 'merge the shards' : 'judge the target'} (exit ${code}): ${lastError}\n`,
      );
  }
  const outputs = outputsOf(summary, code, reportDir);
  if (env.GITHUB_STEP_SUMMARY && outputs['report-html'])
    appendFileSync(env.GITHUB_STEP_SUMMARY, reportPageNote(outputs));
  else if (outputs['report-html']) console.log(`kgate gate: ${reportPageNote(outputs).trim()}`);
  if (!inputs['against-url'] || inputs.merge) {
    writeOutputs(outputs, env.GITHUB_OUTPUT);
    return code;
  }
  // The release gate: the target against the deployment it replaces.
  const compareFile = join(reportDir, 'compare', 'summary.json');
  rmSync(compareFile, { force: true });
  const compared = await runStep(kgate, compareArgs({ ...inputs, 'report-dir': reportDir }), workdir, childEnv);
  const comparison = existsSync(compareFile) ? JSON.parse(readFileSync(compareFile, 'utf8')) : undefined;
  if (!comparison) {
    console.error(`::error title=kgate compare (exit ${compared.code})::${compared.lastError}`);
    if (env.GITHUB_STEP_SUMMARY)
      appendFileSync(
        env.GITHUB_STEP_SUMMARY,
        `kgate compare could not judge the deployments (exit ${compared.code}): ${compared.lastError}\n`,
      );
  }
  writeOutputs({ ...outputs, ...compareOutputsOf(comparison, compared.code) }, env.GITHUB_OUTPUT);
  // Bad usage or an unreachable target anywhere is the step's exit 2; else any failure is 1.
  return code === 2 || compared.code === 2 ? 2 : Math.max(code, compared.code);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
