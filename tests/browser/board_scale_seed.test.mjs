// ctest's fixture for browser.board_scale: a daemon home with its 10,000 runs, made in
// AGENTRY_BOARD_SCALE_DIR while other tests run (no browser; run.mjs --api).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Daemon } from './harness.mjs';
import { standardConfig } from './fixtures.mjs';
import { markSeeded, seedBoard, seedDir } from './board_scale_seed.mjs';

test('a daemon home with the board_scale runs', { timeout: 280_000 }, async () => {
  assert.ok(seedDir, 'AGENTRY_BOARD_SCALE_DIR names the directory to fill');
  fs.rmSync(seedDir, { recursive: true, force: true });
  const daemon = await Daemon.start({ config: standardConfig(), dir: seedDir, name: 'seeding daemon' });
  try {
    await seedBoard(daemon);
  } finally {
    await daemon.stop();
  }
  // Only once the daemon has stopped: its store is closed and whole.
  markSeeded();
});
