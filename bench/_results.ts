// Headline numbers for the summary table that bench/run.mjs prints after all benchmarks: each
// bench appends its rows (JSON lines) to $ZM_BENCH_RESULTS when run.mjs set it; run alone, a
// bench just prints its own tables (printTable).
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

/** Whether a row meets its target (true without one); bench/run.mjs marks its summary the same way. */
export function meets(row: SummaryRow): boolean {
  const t = row.target;
  return !t || ((t.max === undefined || row.value <= t.max) && (t.min === undefined || row.value >= t.min));
}

export function report(...rows: SummaryRow[]): void {
  const file = process.env.ZM_BENCH_RESULTS;
  if (!file) return;
  for (const row of rows) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/** Prints a markdown table: the first row is the header; columns padded to their widest cell. */
export function printTable(rows: string[][]): void {
  const head = rows[0]!;
  const width = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(width[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${width.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows.slice(1)) console.log(line(r));
}
