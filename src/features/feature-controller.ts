// The base of every tsoa controller: the app's registry (src/app/ioc.ts passes it in), from
// which a controller takes its services as field initialisers, e.g.
// `private readonly monitors = this.services.get(MonitorsService);`.
import { Controller } from '@tsoa/runtime';
import type { Services } from '../registry.js';

export abstract class FeatureController extends Controller {
  constructor(protected readonly services: Services) {
    super();
  }
}
