export function ruleViolations(doc: object): string[];
export function mergePaths(doc: object, paths: object): string[];
export function finalize(tsoaDoc: object, mediaPaths?: object): Promise<{ doc: any; problems: string[] }>;
