'use strict';
// Keeps V8's compiled code between runs, so that a process kgate starts does not compile again what
// an earlier one compiled: most of a small run is processes starting (contracts/README.md, "Where
// the time went").
//
// On Node 22 and later, Node keeps it itself (`module.enableCompileCache`): every module, ES modules
// and CommonJS, kgate's and the packages', dynamic imports included. Every process kgate starts turns
// it on before it loads anything: the CLI (bin/kgate.mjs), Playwright's runner and its workers
// (`run/run.ts` loads compile-cache-preload.cjs with `--require`, and the workers inherit it), the
// embedded server of a load run (load/target.ts). The folder is the user's cache folder
// (XDG_CACHE_HOME, else ~/.cache) /kgate/compile-cache-<Node version>, safe to delete at any time;
// KGATE_COMPILE_CACHE names another folder instead of <cache>/kgate, or says `off`. On Node 20, which
// has no such API, nothing is kept: kgate does not patch how Node or a package loads code.
//
// A cache that cannot be used costs speed, nothing else: a folder that cannot be made or written is
// left alone, entries of another Node version are in a folder of their own, and entries V8 rejects
// are compiled afresh. Nothing is printed either way. The CLI prunes the version's folder once a day
// (pruneNative).
const Module = /** @type {any} */ (require('node:module'));
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');

/** True when Node keeps compiled code itself (Node 22 and later): every process kgate starts turns it on. */
const NATIVE = typeof Module.enableCompileCache === 'function';

module.exports = { NATIVE, compileCacheFolder, enableCompileCache, pruneNative, nativeFolder };

/**
 * The folder kgate keeps compiled code in (each Node version in a folder of its own inside it), or
 * undefined when nothing is kept (Node 20, or KGATE_COMPILE_CACHE says `off`): the folder
 * KGATE_COMPILE_CACHE names; else kgate's folder in the user's cache folder (XDG_CACHE_HOME when it
 * is an absolute path, else ~/.cache).
 * @param {NodeJS.ProcessEnv} [env]
 * @param {boolean} [native] whether Node keeps the code itself (for the tests)
 * @returns {string | undefined}
 */
function compileCacheFolder(env = process.env, native = NATIVE) {
  const setting = env.KGATE_COMPILE_CACHE?.trim();
  if (setting === 'off' || !native) return undefined;
  if (setting) return path.resolve(setting);
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'kgate');
}

/**
 * The folder of this Node version's entries inside `folder` (Node 22 and later): Node puts its own
 * folder per version, architecture and V8 flags inside it.
 * @param {string} folder
 */
function nativeFolder(folder) {
  return path.join(folder, `compile-cache-${process.version}`);
}

/**
 * Keeps this process's compiled code in `folder` (compileCacheFolder) between runs, with Node's own
 * cache (Node 22 and later; on Node 20 nothing is kept). Whatever goes wrong costs only speed: it
 * never throws and prints nothing.
 * @param {string | undefined} folder
 * @returns {boolean} whether compiled code will be kept
 */
function enableCompileCache(folder) {
  if (!folder || folder === 'off' || !NATIVE) return false;
  const dir = nativeFolder(folder);
  try {
    // Made here, not by Node, which spins without end making a folder whose parent cannot hold one.
    makeFolder(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return false;
  }
  let enabled;
  try {
    const { status } = Module.enableCompileCache(dir);
    const { ENABLED, ALREADY_ENABLED } = Module.constants.compileCacheStatus;
    enabled = status === ENABLED || status === ALREADY_ENABLED;
  } catch {
    enabled = false;
  }
  return enabled;
}

/** An entry not rewritten for this long is removed when the cache is pruned (pruneNative). */
const STALE_MS = 30 * 24 * 3600 * 1000;

/**
 * Makes a folder and the missing ones above it, one at a time, and throws if one cannot be made.
 * Not `mkdirSync(dir, { recursive: true })`, nor Node's compile cache making its own: under a
 * parent that exists but cannot hold a folder (a path under /proc), Node 20 to 24 try again without
 * end, and the process spins.
 * @param {string} dir
 */
function makeFolder(dir) {
  const missing = [];
  for (let at = dir; !fs.existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      // Made by another process meanwhile.
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
  }
  if (!fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
}

/** When the native cache was last pruned (pruneNative): a file in each version's folder, also the time it was last used. */
const PRUNED_STAMP = '.pruned';
/** How often the native cache is pruned. */
const PRUNE_EVERY_MS = 24 * 3600 * 1000;
/** A version's folder: compile-cache-v<version>. */
const NATIVE_FOLDER = /^compile-cache-v\d+\.\d+\.\d+/;

/**
 * Keeps Node's own cache (Node 22 and later) from growing without end, at most once a day (the CLI
 * calls it as it ends): removes the folders of other Node versions in `folder` not used for
 * STALE_MS (another project may still run one), and the entries of this version's folder not
 * rewritten for STALE_MS (mostly of files an update or a clone's rebuild replaced; one still used is
 * compiled and written again by the next run). Another process may read and write meanwhile:
 * whatever fails to be removed stays for a later day.
 * @param {string} folder compileCacheFolder's
 * @param {number} [now]
 */
function pruneNative(folder, now = Date.now()) {
  const dir = nativeFolder(folder);
  const stamp = path.join(dir, PRUNED_STAMP);
  try {
    if (now - fs.statSync(stamp).mtimeMs < PRUNE_EVERY_MS) return;
  } catch {
    // Never pruned, or no folder at all (then the stamp below fails too).
  }
  try {
    fs.writeFileSync(stamp, '');
  } catch {
    return;
  }
  const before = now - STALE_MS;
  /** When a folder was last used: its stamp, else its own time of change. @param {string} file */
  const lastUsed = (file) => {
    try {
      return fs.statSync(path.join(file, PRUNED_STAMP)).mtimeMs;
    } catch {
      return fs.statSync(file).mtimeMs;
    }
  };
  for (const name of safeList(folder)) {
    const other = path.join(folder, name);
    try {
      if (name !== path.basename(dir) && NATIVE_FOLDER.test(name) && lastUsed(other) < before)
        fs.rmSync(other, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
  for (const name of safeList(dir)) {
    for (const entry of safeList(path.join(dir, name))) {
      const file = path.join(dir, name, entry);
      try {
        if (fs.statSync(file).mtimeMs < before) fs.rmSync(file, { force: true });
      } catch {
        // Removed by another process meanwhile.
      }
    }
  }
}

/** The names in a folder, none if it cannot be read (or is a file). @param {string} dir @returns {string[]} */
function safeList(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
