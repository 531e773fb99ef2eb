// The part of `negotiator` 0.6 used here (it ships no types): the same call the compression
// middleware makes, with its `preferred` tie-break.
declare module 'negotiator' {
  export default class Negotiator {
    constructor(req: { headers: Record<string, string | string[] | undefined> });
    encoding(available: string[], preferred?: string[]): string | undefined;
  }
}
