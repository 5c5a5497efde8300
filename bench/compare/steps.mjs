// Where a suite's time goes, from waymark's traces: each step's time by kind (a journey's
// first navigate apart, as it also pays the tab's first load), and what lies between the
// steps (the script's own work and the engine). Run after a `waymark run` (traces in
// target/waymark/traces/, or the folder given).
// Usage: node bench/compare/steps.mjs [TRACES_DIR]
import { median } from './dense.mjs';
import { readTraces } from './traces.mjs';

const dir = process.argv[2] || 'target/waymark/traces';
const kinds = new Map();
let journeys = 0, total = 0, between = 0;
const add = (kind, ms) => {
  const k = kinds.get(kind) || { ms: [] };
  k.ms.push(ms);
  kinds.set(kind, k);
};
for (const { steps, end } of readTraces(dir)) {
  if (!end) continue;
  let stepped = 0;
  for (const step of steps) {
    add(step.first ? 'navigate (the first)' : step.verb, step.ms);
    stepped += step.ms;
  }
  journeys++;
  total += end.elapsed_ms;
  between += end.elapsed_ms - stepped;
}
const f = (ms) => `${ms.toFixed(1)} ms`.padStart(10);
console.log(`${journeys} journeys, ${(total / 1000).toFixed(2)} s of journey time (from ${dir})`);
console.log('step                   count     median      total  share');
for (const [kind, k] of [...kinds].sort((a, b) => b[1].ms.reduce((x, y) => x + y) - a[1].ms.reduce((x, y) => x + y))) {
  const sum = k.ms.reduce((x, y) => x + y, 0);
  console.log(`${kind.padEnd(22)} ${String(k.ms.length).padStart(5)} ${f(median(k.ms))} ${f(sum)}  ${(100 * sum / total).toFixed(0).padStart(3)} %`);
}
console.log(`${'between steps'.padEnd(22)} ${''.padStart(5)} ${''.padStart(10)} ${f(between)}  ${(100 * between / total).toFixed(0).padStart(3)} %`);
