import { readEnv, WORKER_EXTRA_CA_VARIABLE } from '../config/env.ts';
import { registerSecret } from '../config/redact.ts';
import { MODULE_EXT } from '../config/runtime.ts';
import { clearTransportFailures } from '../contracts/api.ts';
import { newDiscoveryRun } from './discovery-share.ts';
import { readConformOptions, scratchOf } from './options.ts';

/**
 * Playwright global setup: hands the workers the extra CA certificates the runner started without,
 * forgets the timeouts of an earlier run, names the run for the test data
 * its workers share (KGATE_RUN_ID) and, with no KGATE_BASE_URL,
 * starts the embedded reference server in the runner process, handing its URL and keys to the
 * workers through the environment.
 */
export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  const options = readConformOptions();
  // The extra CA certificates the runner started without (run/run.ts), for the workers, forked
  // after this with the runner's environment, to load as they start.
  const extraCa = process.env[WORKER_EXTRA_CA_VARIABLE];
  if (extraCa) process.env.NODE_EXTRA_CA_CERTS = extraCa;
  clearTransportFailures(scratchOf(options));
  process.env.KGATE_RUN_ID = newDiscoveryRun(scratchOf(options));
  if (readEnv().baseUrl || options.sweep) return undefined;
  // Workers re-read the config: the settings derived from "no base URL" are pinned before one is set.
  // Loaded only here: `kgate conform` starts the server itself, and the runner of its runs need not load it.
  // A name in a variable: the package build (esbuild) would otherwise bundle the module in here.
  const reference = `../reference/index${MODULE_EXT}`;
  const { startReferenceServer } = (await import(reference)) as typeof import('../reference/index.ts');
  const server = await startReferenceServer({ quiet: true });
  for (const key of Object.values(server.keys)) registerSecret(key);
  process.env.KGATE_BASE_URL = server.url;
  process.env.KGATE_KEY = server.keys.full;
  process.env.KGATE_KEY_UNSUBSCRIBED = server.keys.academicOnly;
  process.env.KGATE_KEY_EXHAUSTED = server.keys.exhausted;
  process.env.KGATE_CONFORM_OPTIONS = JSON.stringify(options);
  return () => server.close();
}
