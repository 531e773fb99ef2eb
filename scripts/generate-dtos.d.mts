import type { DtoTable } from '../src/features/field-table.js';

/** The TypeScript source of one table's generated interfaces. */
export function render(table: DtoTable): string;
