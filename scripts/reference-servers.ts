// Reference servers for a test file that starts several: each quiet, all closed when the file's tests end.
import { after } from 'node:test';
import { type ReferenceServer, type ReferenceServerOptions, startReferenceServer } from '../reference/index.ts';

/** Call at the top of a test file; the function it returns starts a server the file's `after` closes. */
export function referenceServers(): (options?: ReferenceServerOptions) => Promise<ReferenceServer> {
  const started: ReferenceServer[] = [];
  after(() => Promise.all(started.map((server) => server.close())));
  return async (options = {}) => {
    const server = await startReferenceServer({ ...options, quiet: true });
    started.push(server);
    return server;
  };
}
