export function layerOf(rel: string): number;
export function violations(): Array<{ file: string; imports: string }>;
