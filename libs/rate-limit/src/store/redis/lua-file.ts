import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MissingScriptError } from '../../errors/missing-script.error';

/** Where the `.lua` files are, next to the compiled code (the build copies them). */
export const LUA_DIR = join(__dirname, 'lua');

/** The text of `<dir>/<name>.lua`; a missing file names the path and the likely cause. */
export function readLuaFile(name: string, dir: string = LUA_DIR): string {
  const path = join(dir, `${name}.lua`);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new MissingScriptError(path, { cause: error });
  }
}
