// Child process that runs the embedded reference server for `kgate load` and `kgate probe`, so the
// server has an event loop of its own instead of sharing one with the load generator. The parent
// receives the URL and key over IPC (never on stdout); the child exits when the parent goes away.
import { startReferenceServer } from '../reference/index.ts';

const options = JSON.parse(process.env.KGATE_EMBEDDED_OPTIONS ?? '{}') as { rateLimit?: number; bodyLimit?: number };
const server = await startReferenceServer({ ...options, quiet: true });
process.send?.({ url: server.url, key: server.keys.full });
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
