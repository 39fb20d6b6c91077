// test/backends/build.sh on a machine without Go: it must say why and exit 0, so that .ci/run
// goes on to the tests (which then skip the real-backend suite and say why), and it must not
// create the cache directory it would build into.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScript } from '../support/backend-binaries.js';
import { ON_LINUX, ON_WINDOWS } from '../support/platform.js';

const run = promisify(execFile);

describe.skipIf(ON_WINDOWS)(
  'test/backends/build.sh without Go (skipped on Windows: a bash script run by /bin/bash)',
  () => {
    let home = '';
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'ccotel-build-script-'));
    });
    afterAll(async () => {
      await rm(home, { recursive: true, force: true });
    });

    it('prints the reason and exits 0 without building anything', async () => {
      const { stdout } = await run('/bin/bash', [buildScript], {
        // Only the system dirs: no Go on PATH, and no fallback Go where CCOTEL_GO_BIN_DIR points.
        env: {
          PATH: '/usr/bin:/bin',
          HOME: home,
          XDG_CACHE_HOME: join(home, 'cache'),
          CCOTEL_GO_BIN_DIR: join(home, 'no-go-here'),
        },
      });
      expect(stdout).toMatch(/^backends: not built: no `go` on PATH .*will skip$/m);
      expect(existsSync(join(home, 'cache'))).toBe(false);
    });

    it.skipIf(!ON_LINUX)(
      'prints the three cache directories it builds into, named by version (Linux only: it hashes with GNU sha256sum)',
      async () => {
        const { stdout } = await run('/bin/bash', [buildScript, '--print-dirs'], {
          env: { PATH: '/usr/bin:/bin', HOME: home, XDG_CACHE_HOME: join(home, 'cache') },
        });
        const dirs = stdout.trim().split('\n');
        expect(dirs).toHaveLength(3);
        expect(dirs[0]).toMatch(/\/cache\/ccotel\/backends\/jaeger-v\d+\.\d+\.\d+-[0-9a-f]{12}$/);
        expect(dirs[1]).toMatch(/\/cache\/ccotel\/backends\/otelcol-v\d+\.\d+\.\d+-[0-9a-f]{12}$/);
        expect(dirs[2]).toMatch(
          /\/cache\/ccotel\/backends\/otelcol-gateway-v\d+\.\d+\.\d+-[0-9a-f]{12}$/,
        );
      },
    );
  },
);
