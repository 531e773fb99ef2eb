// Headline numbers for the summary table that bench/run.mjs prints after all benchmarks: each
// bench appends its rows (JSON lines) to $ZM_BENCH_RESULTS when run.mjs set it; run alone, a
// bench just prints its own tables.
import { appendFileSync } from 'node:fs';

export interface SummaryRow {
  /** what was measured, e.g. "ingest + LL-HLS, H.264 (realtime)" */
  measure: string;
  /** the unit the value is in, e.g. "% of one core per camera" */
  unit: string;
  value: number;
  /** the acceptance target, if there is one  */
  target?: { max?: number; min?: number; label: string };
  decimals?: number;
}

export function report(...rows: SummaryRow[]): void {
  const file = process.env.ZM_BENCH_RESULTS;
  if (!file) return;
  for (const row of rows) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
