'use strict';
// Keeps V8's compiled code of the packages a Playwright process loads, between runs. Most of a
// Playwright process's start-up is compiling Playwright's own bundles (contracts/README.md,
// "Where the time went"); with the code V8 compiled in an earlier run, the runner and each worker
// load them faster. `run/run.ts` loads this file with `--require` into the runner, and the
// runner's workers inherit it.
//
// Only CommonJS files under a node_modules folder go through it (the packages); the suite's own
// modules load as before. A module is compiled the way Node compiles it (the module wrapper, run in
// the main context), but V8 is handed the code an earlier process stored.
//
// One limit of Node 20 decides which modules may be cached: code V8 takes from a cache loses what a
// dynamic `import()` needs (it fails with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), in the module
// itself and in code it evaluates (`eval`, `new Function`). So a module whose text spells `import(`
// anywhere but after a `.` or a name's letter (`builder.import(`, `_import(`: calls of functions
// so named) is compiled by Node itself, in strings and comments too, unless it is one of
// KNOWN_IMPORTS: modules read here whose every such `import(` was found never to run in kgate's
// processes, and only while they spell it exactly that many times (a release that adds one is
// compiled by Node again).
// The cache folder is KGATE_COMPILE_CACHE (set by `run/run.ts`; unset: the hook does nothing).
// An entry is named for the file's path, size, modification time and the source's length, under a
// folder per Node version, platform and these rules, so a changed package, another Node or other
// rules never read stale code;
// V8 checks the code it is handed too, and compiles afresh what it rejects. Entries are written when
// the process ends, so they hold the functions the run actually compiled; a write goes to a temporary
// file renamed into place, so processes writing the same entry never tear it. A process that writes
// entries also prunes the cache (see prune).
const Module = /** @type {any} */ (require('node:module'));
const vm = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

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

module.exports = { cacheable, prune };

const folder = process.env.KGATE_COMPILE_CACHE;
/** The rules that decide what may be cached, in the folder's name: rules that change start a new folder. */
const rules = crypto
  .createHash('sha1')
  .update(JSON.stringify([...KNOWN_IMPORTS, DYNAMIC_IMPORT.source]))
  .digest('hex')
  .slice(0, 8);
if (folder) install(path.join(folder, `${process.version}-${process.platform}-${process.arch}-${rules}`));

/** @param {string} dir */
function install(dir) {
  const previousCompile = Module.prototype._compile;
  /** @type {{ script: import('node:vm').Script, entry: string }[]} Scripts compiled without usable cached code, to store when the process ends. */
  const pending = [];
  const packageFile = /[\\/]node_modules[\\/].*\.c?js$/;

  /** @this {any} @param {string} content @param {string} filename */
  Module.prototype._compile = function compile(content, filename) {
    if (!packageFile.test(filename)) return previousCompile.call(this, content, filename);
    let entry;
    try {
      const stat = fs.statSync(filename);
      const key = `${filename}\0${stat.size}\0${stat.mtimeMs}\0${content.length}`;
      entry = path.join(dir, `${crypto.createHash('sha1').update(key).digest('hex')}.bin`);
    } catch {
      return previousCompile.call(this, content, filename);
    }
    // An entry is written only for a module found cacheable, under the same rules (the folder's
    // name), so a module that has one is not searched again.
    let cachedData;
    try {
      cachedData = fs.readFileSync(entry);
    } catch {
      if (!cacheable(content, filename)) return previousCompile.call(this, content, filename);
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(withoutShebang(content)), { filename, cachedData });
    } catch {
      // Not a CommonJS module after all (Node may load such a file as ES module syntax): Node's own way.
      return previousCompile.call(this, content, filename);
    }
    if (cachedData === undefined || script.cachedDataRejected) pending.push({ script, entry });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
  };

  process.once('exit', () => {
    if (pending.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const { script, entry } of pending) {
        const temporary = `${entry}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, entry);
      }
      prune(dir);
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
