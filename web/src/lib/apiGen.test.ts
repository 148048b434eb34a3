import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// api.gen.ts is committed; `npm run typecheck` and `npm run build` regenerate it from
// docs/openapi.yaml. This catches a document changed without the file following it.
describe('api.gen.ts', () => {
  it('is what docs/openapi.yaml generates', () => {
    const script = fileURLToPath(new URL('../../scripts/gen-types.mjs', import.meta.url));
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
