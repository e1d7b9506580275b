import { readFileSync } from 'node:fs';
import { join } from 'node:path';
export const hello = (): string => readFileSync(join(__dirname, 'x.lua'), 'utf8');
