export function layerOf(rel: string): number;
export function violations(): Array<{ file: string; imports: string; why: string }>;
/** Why an import from `fromRel` to `toRel` (paths relative to src/) is refused, or null when it is not. */
export function judge(fromRel: string, toRel: string): string | null;
/** Imports the layer order would refuse, kept on purpose: [from, to, why]. */
export const ALLOWED: Array<[string, string, string]>;

/** The committed generated sources whose checksum line no longer matches their text (edited by hand). */
export function handEdits(): string[];

/** Groups of files that import each other in a ring (type-only imports count too), each sorted. */
export function cycles(): string[][];
