export function layerOf(rel: string): number;
export function violations(): Array<{ file: string; imports: string }>;

/** The committed generated sources whose checksum line no longer matches their text (edited by hand). */
export function handEdits(): string[];
