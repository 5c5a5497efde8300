// What the bench scripts share about waymark's runs: the shipped journeys the Playwright
// port covers, and a run's traces read back.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The shipped journeys the Playwright port covers (see tests/shipped.spec.mjs), as paths
// from the repository's root.
export const SHIPPED = ['approve_claim', 'submit_sales_order', 'dispatch_unassigned', 'return_reason', 'stage_new_rate']
  .map((j) => join('journeys', `${j}.rhai`));

// Each journey's trace in `dir` (`waymark run --trace DIR`): its steps in order, each with
// its verb, whether it is the journey's first `navigate` (which also pays the tab's first
// load), its time and its timing by phase; and its `end` line (null when it has none).
export function readTraces(dir) {
  return readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((file) => {
    const steps = [];
    let end = null, navigated = false;
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const d = JSON.parse(line);
      if (d.kind === 'end') end = d;
      if (d.kind !== 'step') continue;
      const verb = d.action.verb;
      steps.push({ verb, first: verb === 'navigate' && !navigated, ms: d.elapsed_ms, timing: d.timing || {} });
      if (verb === 'navigate') navigated = true;
    }
    return { steps, end };
  });
}
