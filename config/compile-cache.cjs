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
// KGATE_COMPILE_CACHE names another folder instead of <cache>/kgate, or says `off`. Node stores a
// module's code as compiled when it loads, so the hook below keeps the CommonJS packages it may
// cache beside it (in the version's folder, `packages`): its entries hold the functions the run
// went on to compile too, which for Playwright's bundles is about a tenth of a second less of each
// process's start.
//
// On Node 20, which has no such API, the hook alone keeps the compiled code of the packages
// Playwright's processes load, in node_modules/.cache/kgate; the CLI and other processes keep none.
//
// A cache that cannot be used costs speed, nothing else: a folder that cannot be made or written is
// left alone, entries of another Node version are in a folder of their own, and entries V8 rejects
// are compiled afresh. Nothing is printed either way.
//
// The hook: only CommonJS files under a node_modules folder go through it (the packages); other
// modules load as before (on Node 22 and later, through Node's own cache). A module is compiled the
// way Node compiles it (the module wrapper, run in the main context), but V8 is handed the code an
// earlier process stored.
//
// One limit decides which modules may be cached: code V8 takes from a cache loses what a dynamic
// `import()` needs (it fails with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), in the module
// itself and in code it evaluates (`eval`, `new Function`). So a module whose text spells `import(`
// anywhere but after a `.` or a name's letter (`builder.import(`, `_import(`: calls of functions
// so named) is compiled by Node itself, in strings and comments too, unless it is one of
// KNOWN_IMPORTS: modules read here whose every such `import(` was found never to run in kgate's
// processes, and only while they spell it exactly that many times (a release that adds one is
// compiled by Node again). (Node 22 and later name a loader for such code, vm's
// USE_MAIN_CONTEXT_DEFAULT_LOADER, but as an experimental feature that prints a warning when used.)
// An entry is named for the file's path, size, modification time and the source's length, under a
// folder per Node version, platform and these rules, so a changed package, another Node or other
// rules never read stale code;
// V8 checks the code it is handed too, and compiles afresh what it rejects. Entries are written when
// the process ends, so they hold the functions the run actually compiled; a write goes to a temporary
// file renamed into place, so processes writing the same entry never tear it. On Node 20 a process
// that writes entries also prunes the cache (see prune); on Node 22 and later the CLI prunes the
// version's folder once a day (pruneNative).
const Module = /** @type {any} */ (require('node:module'));
const vm = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const os = require('node:os');

/**
 * Package files that spell `import(` and may still be cached, with how many times they spell it.
 * playwright-core's coreBundle.js: once, in `new Function('return import("vite")')` of component
 * testing. utilsBundle.js: `import("kerberos")` of Kerberos proxy authentication, a comment, and
 * `import("node:crypto")` of a dependency's fallback for Node releases without `globalThis.crypto`.
 * Playwright's Babel bundle: four error messages, a method named `import`, and Babel's loading of
 * configuration files, which Playwright turns off (`configFile: false, babelrc: false`). Not
 * Playwright's `common` bundle: it imports the configuration through `import()`.
 */
const KNOWN_IMPORTS = new Map([
  [path.join('playwright-core', 'lib', 'coreBundle.js'), 1],
  [path.join('playwright-core', 'lib', 'utilsBundle.js'), 3],
  [path.join('playwright', 'lib', 'transform', 'babelBundle.js'), 6],
]);
/** `import(` as a dynamic import may be spelled: not a member call (`.import(`) nor the end of a name (`_import(`). */
const DYNAMIC_IMPORT = /(?<![\w$.])import\s*\(/g;

/** True when Node keeps compiled code itself (Node 22 and later): every process kgate starts turns it on. */
const NATIVE = typeof Module.enableCompileCache === 'function';

module.exports = { NATIVE, compileCacheFolder, enableCompileCache, cacheable, prune, pruneNative, nativeFolder };

/** The rules that decide what may be cached, in the folder's name: rules that change start a new folder. */
const rules = crypto
  .createHash('sha1')
  .update(JSON.stringify([...KNOWN_IMPORTS, DYNAMIC_IMPORT.source]))
  .digest('hex')
  .slice(0, 8);

/**
 * The folder kgate keeps compiled code in (each Node version in a folder of its own inside it), or
 * undefined when KGATE_COMPILE_CACHE says `off`: the folder KGATE_COMPILE_CACHE names; else, on
 * Node 22 and later, kgate's folder in the user's cache folder (XDG_CACHE_HOME when it is an
 * absolute path, else ~/.cache), and on Node 20 `.cache/kgate` in the node_modules folder
 * Playwright is installed in (where other tools keep their caches).
 * @param {NodeJS.ProcessEnv} [env]
 * @param {boolean} [native] whether Node keeps the code itself (for the tests)
 * @returns {string | undefined}
 */
function compileCacheFolder(env = process.env, native = NATIVE) {
  const setting = env.KGATE_COMPILE_CACHE?.trim();
  if (setting === 'off') return undefined;
  if (setting) return path.resolve(setting);
  if (native) {
    const xdg = env.XDG_CACHE_HOME;
    return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'kgate');
  }
  const playwright = require.resolve('@playwright/test/package.json');
  return path.join(path.dirname(path.dirname(path.dirname(playwright))), '.cache', 'kgate');
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
 * Keeps this process's compiled code in `folder` (compileCacheFolder) between runs: on Node 22 and
 * later Node's own cache with the hook beside it for the packages, on Node 20 the hook alone.
 * Whatever goes wrong costs only speed: it never throws and prints nothing.
 * @param {string | undefined} folder
 * @returns {boolean} whether compiled code will be kept
 */
function enableCompileCache(folder) {
  if (!folder || folder === 'off') return false;
  if (!NATIVE) {
    install(path.join(folder, `${process.version}-${process.platform}-${process.arch}-${rules}`), { native: false });
    return true;
  }
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
  // Node's cache holds a module's code as compiled when it loads; the hook's, the functions the run
  // went on to compile too, written as the process ends: for Playwright's bundles, about a tenth
  // of a second less of each process's start than Node's own.
  if (enabled) install(path.join(dir, PACKAGES_FOLDER), { native: true });
  return enabled;
}

/** The hook's folder in a Node version's folder (Node 22 and later). */
const PACKAGES_FOLDER = 'packages';

/**
 * The hook: compiles the CommonJS package modules it may cache (cacheable) itself, with the code an
 * earlier process stored. `native` (Node 22 and later): Node keeps every other module's code, those
 * that import dynamically included, Node's other formats pass through untouched, and the version's
 * folder is pruned with Node's own cache (pruneNative).
 * @param {string} dir
 * @param {{ native: boolean }} options
 */
function install(dir, { native }) {
  const previousCompile = Module.prototype._compile;
  /** @type {{ script: import('node:vm').Script, entry: string }[]} Scripts compiled without usable cached code, to store when the process ends. */
  const pending = [];
  const packageFile = /[\\/]node_modules[\\/].*\.c?js$/;

  /**
   * @this {any} @param {string} content @param {string} filename
   * @param {unknown} [format] Node 22 and later: the module's format (a boolean on some releases, which the hook leaves to Node)
   */
  Module.prototype._compile = function compile(content, filename, format) {
    const nodes = () => previousCompile.call(this, content, filename, format);
    if (!packageFile.test(filename) || (format !== undefined && format !== 'commonjs')) return nodes();
    let entry;
    try {
      const stat = fs.statSync(filename);
      const key = `${filename}\0${stat.size}\0${stat.mtimeMs}\0${content.length}`;
      entry = path.join(dir, `${crypto.createHash('sha1').update(key).digest('hex')}.bin`);
    } catch {
      return nodes();
    }
    // An entry is written only for a module found cacheable, under the same rules (the folder's
    // name), so a module that has one is not searched again.
    let cachedData;
    try {
      cachedData = fs.readFileSync(entry);
    } catch {
      if (!cacheable(content, filename)) return nodes();
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(withoutShebang(content)), { filename, cachedData });
    } catch {
      // Not a CommonJS module after all (Node may load such a file as ES module syntax): Node's own way.
      return nodes();
    }
    if (cachedData === undefined || script.cachedDataRejected) pending.push({ script, entry });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
  };

  process.once('exit', () => {
    if (pending.length === 0) return;
    try {
      makeFolder(dir);
      for (const { script, entry } of pending) {
        const temporary = `${entry}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, entry);
      }
      if (!native) prune(dir);
    } catch {
      // A cache that cannot be written costs the next run its speed, nothing else.
    }
  });
}

/** An entry not rewritten for this long is removed when new entries are written (see prune). */
const STALE_MS = 30 * 24 * 3600 * 1000;
/** The name of a folder of entries: a Node version, platform, architecture and rules. */
const ENTRIES_FOLDER = /^v\d+\.\d+\.\d+-[a-z0-9]+-[a-z0-9]+(-[0-9a-f]{8})?$/;

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

/**
 * Keeps the cache from growing without end. A process that wrote entries (a package, Node or the
 * rules changed, or this is a first run) removes the folders of other Node versions and rules
 * beside `dir` (a folder of an earlier Node or of earlier rules is never read again) and the
 * entries of `dir` not rewritten for STALE_MS (most are of files an update replaced; one still
 * used is compiled and written again by the next run). Other processes may read and write the
 * same folders meanwhile: whatever fails to be removed stays for a later run.
 * @param {string} dir
 */
function prune(dir) {
  const parent = path.dirname(dir);
  for (const name of fs.readdirSync(parent)) {
    if (name !== path.basename(dir) && ENTRIES_FOLDER.test(name))
      fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  const before = Date.now() - STALE_MS;
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    try {
      if (fs.statSync(file).mtimeMs < before) fs.rmSync(file, { force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

/** @param {string} content @param {string} filename */
function cacheable(content, filename) {
  if (!content.includes('import')) return true;
  const count = content.match(DYNAMIC_IMPORT)?.length ?? 0;
  if (count === 0) return true;
  for (const [file, known] of KNOWN_IMPORTS) {
    if (filename.endsWith(path.sep + file)) return count === known;
  }
  return false;
}

/**
 * The `require` a module compiled by Node gets (Node's makeRequireFunction).
 * @param {any} mod
 */
function requireFor(mod) {
  /** @param {string} id */
  const require = (id) => mod.require(id);
  /** @param {string} request @param {unknown} [options] */
  const resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  /** @param {string} request */
  resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

/**
 * A `#!` line is allowed only at the very start of a script, so inside the module wrapper it is blanked.
 * @param {string} content
 */
function withoutShebang(content) {
  if (!content.startsWith('#!')) return content;
  const end = content.search(/\r?\n/);
  return end === -1 ? '' : content.slice(end);
}
