// ccotel's own version, from the package.json it ships with.
import { readFileSync } from 'node:fs';

export function ccotelVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
