// Two waymark builds against each other on a whole run: each runs the same journeys
// (`waymark run`, the embedded demo app started afresh each time), in turns, and the
// medians of their wall times (process start to exit) are printed with each build's step
// time (the journeys' steps summed, from their traces) and its first `navigate`'s load.
// What a change to the run's fixed costs (a tab, the collector a document compiles, a load)
// does to a suite, which one run of each cannot tell on a shared machine.
//
// Usage: scripts/with-chromium node bench/compare/builds.mjs A B [--jobs N] [--runs R]
//          [JOURNEY...]
// A and B are waymark binaries (build one, copy it aside, build the other); the journeys
// default to the five shipped ones suite.mjs runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './dense.mjs';
import { SHIPPED, readTraces } from './traces.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const usage = 'node bench/compare/builds.mjs A B [--jobs N] [--runs R] [JOURNEY...]';
let parsed;
try {
  parsed = parseArgs({ allowPositionals: true, options: { jobs: { type: 'string', default: '1' }, runs: { type: 'string', default: '16' } } });
} catch (e) {
  console.error(`${e.message}\nusage: ${usage}`);
  process.exit(2);
}
const { values: v, positionals } = parsed;
const [a, b, ...named] = positionals;
const runs = Number(v.runs);
if (!a || !b || !(runs >= 2)) {
  console.error(`usage: ${usage}`);
  process.exit(2);
}
const journeys = named.length ? named : SHIPPED;

// One run of `bin`: its wall time, its steps' time and each journey's first load.
function run(bin, traces) {
  rmSync(traces, { recursive: true, force: true });
  const start = performance.now();
  const r = spawnSync(bin, ['run', ...journeys, '--jobs', v.jobs, '--trace', traces], { cwd: ROOT, encoding: 'utf8' });
  const wall = performance.now() - start;
  if (r.status !== 0) throw new Error(`${bin} run exited ${r.status}:\n${r.stdout}${r.stderr}`);
  const all = readTraces(traces).flatMap((t) => t.steps);
  const steps = all.reduce((sum, step) => sum + step.ms, 0);
  const firsts = all.filter((step) => step.first).map((step) => step.timing.load_ms || 0);
  return { wall, steps, firsts };
}

const dir = mkdtempSync(join(tmpdir(), 'waymark-builds-'));
const sides = [{ bin: a, wall: [], steps: [], firsts: [] }, { bin: b, wall: [], steps: [], firsts: [] }];
try {
  for (let i = 0; i < runs; i++) {
    for (const s of i % 2 ? sides : [...sides].reverse()) {
      const r = run(s.bin, join(dir, sides.indexOf(s) ? 'b' : 'a'));
      s.wall.push(r.wall);
      s.steps.push(r.steps);
      s.firsts.push(...r.firsts);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${journeys.length} journeys, --jobs ${v.jobs}, ${runs} runs of each build in turns (medians)`);
console.log('build                                    wall       steps      first load');
for (const s of sides) {
  console.log(`${s.bin.slice(-40).padEnd(40)} ${(median(s.wall) / 1000).toFixed(3).padStart(7)} s ${median(s.steps).toFixed(0).padStart(7)} ms ${median(s.firsts).toFixed(1).padStart(9)} ms`);
}
console.log(`B - A: ${(median(sides[1].wall) - median(sides[0].wall)).toFixed(0)} ms of wall time`);
