import type { ConfigError } from '../../config/file.ts';
import { UsageError } from './args.ts';

/** A configuration file (or variable) that cannot be used, as the usage error of `command`: one line, its key and rule kept. */
export function configUsageError(error: ConfigError, command: string): UsageError {
  return new UsageError(error.message, { ...error.details, command });
}
