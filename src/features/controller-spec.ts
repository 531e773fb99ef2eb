// The route tables of the plain tsoa controllers: a controller whose every operation hands its
// parameters to one service method is described as data in `<name>.api.ts` beside its service,
// and scripts/generate-controllers.mjs writes the decorated class tsoa reads into
// src/generated/controllers/ (not committed, like the DTOs and tsoa's routes). Controllers that do
// more than that (auth, filters, daemons, search) stay hand-written `*Controller.ts`.
//
// An operation is one line, `'<VERB> <path> <operationId> = <call>'`, or that line with options:
// `'GET {id} get_map = service.get(id: Id): MapResponse'`. The path is relative to the
// controller's route (`/` for the route itself). `call` reads like the method it becomes: it
// declares the parameters in order and calls `this.service.get(id)`. A parameter named in the
// path is a path parameter, `body` the request body, `user` the caller (from the request), `req`
// the express request, anything else a query parameter; `{ a?: T, b?: U }` passes those query
// parameters to the service as one object. A literal, a quoted string (`"up"`, `'zoom in'`) or a
// number, is passed to the service as written and declares no parameter:
// `'POST monitors/{id}/move/up ptzMoveUp = ptz.move(user, id: Id, "up", body?: PtzMoveRequest): R'`.
// The generated method calls the service by its class's own method, so tsc rejects a misspelt
// method or a literal the method does not take. Without a return type the method answers no body.
// A line ending in ` [polled]` is a read that clients poll: the generator also writes its fast-path
// entry (PolledRead, into src/generated/controllers/polled-reads.ts), whose service call is
// rendered from the same signature, so the fast path passes on every query parameter it takes
// (src/http/fast-path/README.md). Only a GET of a fixed path whose parameters are the caller and
// optional query parameters can be polled.
import type { AuthUser } from '../auth/auth-service.js';
import type { Services } from '../registry.js';

export type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperationOptions {
  /** JSDoc lines of the method: the summary, `@param name text` descriptions. */
  doc?: string[];
  /** The success status and its description, when not 200. */
  status?: [number, string];
  /** Error responses of this operation: status → description. */
  responses?: Record<number, string>;
}

export type Operation = string | [line: string, options: OperationOptions];

export interface ControllerSpec {
  /** The class name, `<Something>Controller`. */
  name: string;
  /** A comment above the class: what it serves and why it is gated so. */
  comment?: string[];
  route: string;
  tag: string;
  /** The permission scopes of the `jwt` security scheme. */
  security: string[];
  /** Error responses every operation shares: status → description. */
  responses?: Record<number, string>;
  /** Imports by module (relative to the spec's folder): the services and the types used. */
  imports: Record<string, string[]>;
  /** The controller's fields: field name → service class (built by the registry). */
  services: Record<string, string>;
  /** Paginated response interfaces to declare: name → item type. */
  pages?: Record<string, string>;
  operations: Operation[];
}

/** A `[polled]` line's fast-path entry, as the generator renders it. */
export interface PolledRead {
  operationId: string;
  /** Every query parameter the call passes, in the call's order. */
  query: readonly string[];
  /**
   * The service call of the generated controller method. `query` holds the values the fast path
   * checked, typed as the document types them (integers as numbers); the others are absent.
   */
  answer(services: Services, user: AuthUser, query: Readonly<Record<string, unknown>>): Promise<unknown>;
}

/** Types a spec; the generator reads its default export. */
export function controller(spec: ControllerSpec): ControllerSpec {
  return spec;
}
