export function compareOpenapi(baseDoc: object, curDoc: object): string[];
export function addedEndpoints(baseDoc: object, curDoc: object): string[];
