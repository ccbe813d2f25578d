// What a run leaves behind, as the tests look at it: every file of its folder, and the scratch
// folders (named for the run folder) it left in the OS temp folder.
import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** Every file below `dir`, relative to it. */
export function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path).map((file) => join(name, file)) : [name];
  });
}

/** The scratch folders of the run whose folder is `runFolder` left in the OS temp folder. */
export function scratchLeft(runFolder: string): string[] {
  const name = `kgate-run-${basename(runFolder)}-`;
  return readdirSync(tmpdir()).filter((entry) => entry.startsWith(name));
}
