// Splicing data-migration steps into the converger's plan next to the schema change they depend
// on. The anchors are tried in order; one that is not in the plan (the table already had its 1.39
// shape) falls through to the next, then to just before the trigger steps (every table and column
// is final there, and no trigger of the new set runs yet), then to the end.
import type { SchemaStep } from '../converge/index.js';

export type Anchor = { after: string } | { before: string };
export type Placement = Anchor[] | 'end';

const TRIGGER_KINDS = new Set(['drop-trigger', 'create-trigger', 'replace-trigger']);

export function placeStep(steps: SchemaStep[], step: SchemaStep, placement: Placement): SchemaStep[] {
  const out = [...steps];
  if (placement !== 'end') {
    for (const anchor of placement) {
      const id = 'after' in anchor ? anchor.after : anchor.before;
      const at = out.findIndex((s) => s.id === id);
      if (at === -1) continue;
      out.splice('after' in anchor ? at + 1 : at, 0, step);
      return out;
    }
    const firstTrigger = out.findIndex((s) => TRIGGER_KINDS.has(s.kind));
    if (firstTrigger !== -1) {
      out.splice(firstTrigger, 0, step);
      return out;
    }
  }
  out.push(step);
  return out;
}
