import type { ControllerSpec } from '../src/features/controller-spec.js';

export interface ParsedArg {
  name: string;
  optional: boolean;
  type?: string;
}
export function parseCall(
  call: string,
  where: string,
): { field: string; method: string; args: Array<ParsedArg | { group: ParsedArg[] }>; returns?: string };
export function render(spec: ControllerSpec, specPath: string, outPath: string): string;
/** Every controller as it should be on disk: path under src/generated/controllers/ → text. */
export function renderControllers(): Promise<Map<string, string>>;
export function generateControllers(): Promise<string[]>;
export function parseOperation(
  op: string | [string, object],
  controller: string,
): { verb: string; path: string; operationId: string; call: string; options: object };
