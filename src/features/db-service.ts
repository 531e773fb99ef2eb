// The base of the domain services that need only the database (DbService) or the database and
// the per-monitor ACL (AclDbService): the registry (Services.get) builds them from the app's
// Prisma client and ACL through the inherited `from`, so such a service declares neither.
import type { MonitorAcl } from '../auth/monitor-acl.js';
import type { PrismaClient } from '../db/prisma.js';
import type { Services } from '../registry.js';

export abstract class DbService {
  static from<T>(this: new (prisma: PrismaClient) => T, s: Services): T {
    return new this(s.prisma);
  }

  constructor(protected readonly prisma: PrismaClient) {}
}

export abstract class AclDbService {
  static from<T>(this: new (prisma: PrismaClient, acl: MonitorAcl) => T, s: Services): T {
    return new this(s.prisma, s.acl);
  }

  constructor(
    protected readonly prisma: PrismaClient,
    protected readonly acl: MonitorAcl,
  ) {}
}
