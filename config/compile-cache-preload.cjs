'use strict';
// Loaded with `--require` into the processes kgate starts (Playwright's runner, which hands it to
// its workers, and the embedded server of a load run): keeps their compiled code in the folder
// their parent resolved (KGATE_COMPILE_CACHE; compile-cache.cjs says how).
require('./compile-cache.cjs').enableCompileCache(process.env.KGATE_COMPILE_CACHE);
