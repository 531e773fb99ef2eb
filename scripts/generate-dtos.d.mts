import type { DtoTable } from '../src/features/field-table.js';

/** The TypeScript source of one table's generated interfaces. */
export function render(table: DtoTable): string;

/** Every DTO module as it should be on disk: file name under src/generated/dto/ → text. */
export function renderDtos(): Map<string, string>;
