// inOrder() and under() stand in for app.use() of each handler: the same order, the same error
// passing (a throw or a rejected promise becomes next(err)), the same mount-path test.
import test from 'ava';
import type { Request, RequestHandler, Response } from 'express';
import { inOrder, under } from '../../src/http/fast-path/in-order.js';

const run = (handler: RequestHandler, path = '/api/v3/x') =>
  new Promise<{ err: unknown; seen: string[] }>((resolve) => {
    const req = { path, seen: [] as string[] } as unknown as Request & { seen: string[] };
    handler(req, {} as Response, (err?: unknown) => resolve({ err, seen: req.seen }));
  });
const mark =
  (name: string): RequestHandler =>
  (req, _res, next) => {
    (req as unknown as { seen: string[] }).seen.push(name);
    next();
  };

test('handlers run in order, then the chain goes on', async (t) => {
  const { err, seen } = await run(inOrder(mark('a'), mark('b'), mark('c')));
  t.is(err, undefined);
  t.deepEqual(seen, ['a', 'b', 'c']);
});

test('next(err), a throw and a rejected promise stop the chain with that error', async (t) => {
  const boom = new Error('boom');
  const ways: RequestHandler[] = [
    (_req, _res, next) => next(boom),
    () => {
      throw boom;
    },
    async () => {
      throw boom;
    },
  ];
  for (const way of ways) {
    const { err, seen } = await run(inOrder(mark('a'), way, mark('never')));
    t.is(err, boom);
    t.deepEqual(seen, ['a']);
  }
});

test('under() runs its handler at or below its prefix only, whatever the case', async (t) => {
  const chain = (path: string) => run(inOrder(under('/api', mark('api')), mark('all')), path);
  t.deepEqual((await chain('/api')).seen, ['api', 'all']);
  t.deepEqual((await chain('/API/v3/monitors')).seen, ['api', 'all']);
  t.deepEqual((await chain('/apix/monitors')).seen, ['all']);
  t.deepEqual((await chain('/ui/app.js')).seen, ['all']);
});
