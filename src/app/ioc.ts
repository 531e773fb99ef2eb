// tsoa asks this for controller instances. Each app keeps its own Services in app.locals, so
// several apps (tests) can live in one process.
import type { IocContainer, IocContainerFactory, ServiceIdentifier } from '@tsoa/runtime';
import type { Request } from 'express';
import type { Services } from './services.js';

type ControllerClass<T> = new (services: Services) => T;

export const iocContainer: IocContainerFactory<Request> = (request: Request): IocContainer =>
  ({
    get<T>(controller: ServiceIdentifier<T>): T {
      const services = request.app.locals.services as Services;
      return new (controller as ControllerClass<T>)(services);
    },
  }) as IocContainer;
