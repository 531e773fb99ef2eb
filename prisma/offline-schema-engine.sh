#!/bin/sh
# Stand-in for Prisma's native schema engine, which these machines cannot download
# (binaries.prisma.sh is unreachable). `prisma generate` and `prisma validate` only check that
# PRISMA_SCHEMA_ENGINE_BINARY names an existing file and never run it, so pointing the variable
# here keeps them offline. Anything that really needs the engine (db pull, migrate, db push)
# lands here and fails loudly; zmgate never runs those against ZoneMinder's database anyway.
echo "zmgate: Prisma's schema engine is not installed (offline stub: $0)." >&2
echo "zmgate: use 'npm run db:introspect' instead of 'prisma db pull'; never migrate ZoneMinder's database." >&2
exit 1
