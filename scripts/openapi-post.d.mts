export function ruleViolations(doc: object): string[];
export function finalize(tsoaDoc: object): Promise<{ doc: any; problems: string[] }>;
