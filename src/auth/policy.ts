// Route policies. Every protected tsoa operation declares exactly one scope on its
// @Security('jwt', [...]) decorator, so the policy is visible next to the route and in the
// OpenAPI document:
//   'events'        the Events area, level from the method (GET reads → View, writes → Edit)
//   'stream:View'   an explicit level (live start/stop are POST/DELETE yet need Stream View)
//   'authenticated' any valid token (/me)
import { FEATURES, levelForMethod, type Feature, type RequiredLevel } from './permissions.js';

export interface Policy {
  feature: Feature | null;
  /** null: the level follows the request method. */
  level: RequiredLevel | null;
}

/** Operations that need no token at all. */
export const PUBLIC_OPERATIONS = new Set(['login', 'refresh_token', 'health_check', 'get_version']);

export function parsePolicy(scope: string): Policy | null {
  if (scope === 'authenticated') return { feature: null, level: null };
  const [feature, level, ...rest] = scope.split(':');
  if (rest.length || !(FEATURES as readonly string[]).includes(feature)) return null;
  if (level !== undefined && level !== 'View' && level !== 'Edit') return null;
  return { feature: feature as Feature, level: (level as RequiredLevel | undefined) ?? null };
}

export function requiredLevel(policy: Policy, method: string): RequiredLevel {
  return policy.level ?? levelForMethod(method);
}
