// The store board_scale.test.mjs measures: 10,000 runs, 40 of which ran to success (so
// more than one column holds runs). Made by browser.board_scale_seed beside other tests,
// so that the timing test, which runs alone, spends its time on the board only; made by
// board_scale.test.mjs itself when it runs without that seed.
import fs from 'node:fs';
import path from 'node:path';
import { mock } from './fixtures.mjs';

export const RUNS = 10_000;
export const FINISHED = 40;
const PARALLEL = 8;

/// The directory browser.board_scale_seed fills (AGENTRY_BOARD_SCALE_DIR), or null.
export const seedDir = process.env.AGENTRY_BOARD_SCALE_DIR || null;
const seededMark = () => path.join(seedDir, 'seeded');

/// Whether the seed test filled seedDir completely.
export const seeded = () => seedDir !== null && fs.existsSync(seededMark());

/// Left in seedDir after its daemon stopped with every run made.
export const markSeeded = () => fs.writeFileSync(seededMark(), `${RUNS} runs\n`);

/// Makes the runs through `daemon`'s API: those that never ran cost it only a row each.
export async function seedBoard(daemon) {
  const started = Date.now();
  let made = 0;
  const worker = async () => {
    while (made < RUNS - FINISHED) {
      const i = made++;
      await daemon.createRun({ agent: 'mock', start: false, name: `seeded run ${String(i).padStart(5, '0')}`, message: 'later' });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const finished = [];
  for (let i = 0; i < FINISHED; i++) finished.push(await daemon.createRun({ agent: 'mock', name: `finished run ${i}`, message: mock({ say: 'done' }) }));
  await Promise.all(finished.map((id) => daemon.waitForStatus(id, 'success', { timeoutMs: 60_000 })));
  console.log(`seeded ${RUNS} runs in ${Date.now() - started} ms`);
}
