// The fast path cannot take a query parameter and ignore it: every parameter the hot-read lane
// takes for a polled read (laneOf, from the OpenAPI document and the read's generated entry)
// reaches the service call, and a generated entry that does not pass a documented parameter is
// refused when the lane is built. No database: the services record the calls they get.
import test from 'ava';
import type { AuthUser } from '../../src/auth/auth-service.js';
import { POLLED_READS } from '../../src/generated/controllers/polled-reads.js';
import { laneOf, type LaneParam, type OpenApiDocument } from '../../src/http/fast-path/hot-reads.js';
import { readOpenapiDocument } from '../../src/openapi/document.js';
import type { Services } from '../../src/registry.js';

const document = JSON.parse(readOpenapiDocument().toString('utf8')) as OpenApiDocument;
const user = {} as AuthUser;

interface Call {
  service: string;
  method: string;
  args: unknown[];
}

/** Services whose every method records its arguments. */
function recording(): { services: Services; calls: Call[] } {
  const calls: Call[] = [];
  const get = (cls: { name: string }) =>
    new Proxy(
      {},
      {
        get:
          (_target, method) =>
          (...args: unknown[]) => {
            calls.push({ service: cls.name, method: String(method), args });
            return Promise.resolve({});
          },
      },
    );
  return { services: { get } as unknown as Services, calls };
}

const holds = (value: unknown, probe: unknown): boolean =>
  value === probe || (typeof value === 'object' && value !== null && Object.values(value).some((v) => holds(v, probe)));

/** A value the lane would hand over for the parameter, told apart from any other. */
const probeFor = (name: string, param: LaneParam, i: number): number | string =>
  param.kind === 'string' ? `probe-${name}` : param.min + ((4099 + i) % (param.max - param.min + 1));

test('every query parameter the lane takes for a polled read is passed to its service call', async (t) => {
  t.deepEqual(POLLED_READS.map((r) => r.operationId).sort(), [
    'listEvents',
    'list_monitor_statuses',
    'list_monitors',
    'me',
  ]);
  let taken = 0;
  for (const read of POLLED_READS) {
    const { params } = laneOf(read, document);
    let i = 0;
    for (const [name, param] of params) {
      const probe = probeFor(name, param, i++);
      const { services, calls } = recording();
      await read.answer(services, user, { [name]: probe });
      t.is(calls.length, 1, `${read.operationId}: one service call`);
      t.true(
        holds(calls[0]?.args, probe),
        `${read.operationId}: ?${name}=${probe} taken by the lane, not passed to ${calls[0]?.service}.${calls[0]?.method}`,
      );
      taken++;
    }
    // With no parameter, the call gets the caller and nothing of the query.
    const { services, calls } = recording();
    await read.answer(services, user, {});
    t.is(calls[0]?.args[0], user, `${read.operationId}: the caller first`);
  }
  // The monitor list's paging and the event list's filters are on the lane; a boolean is not.
  t.true(taken >= 12, `${taken} parameters on the lane`);
  const events = laneOf(
    POLLED_READS.find((r) => r.operationId === 'listEvents')!,
    document,
  ).params;
  t.true(events.has('start_time') && events.has('page_size'));
  t.false(events.has('archived'), 'archived (a boolean) is left to the full chain');
});

test('a polled read whose call does not pass a documented parameter, or names one the document lacks, is refused', (t) => {
  const monitors = POLLED_READS.find((r) => r.operationId === 'list_monitors')!;
  t.deepEqual([...laneOf(monitors, document).params.keys()].sort(), ['page', 'page_size']);
  t.throws(() => laneOf({ ...monitors, query: ['page'] }, document), {
    message: /list_monitors: its call does not pass the query parameter page_size/,
  });
  t.throws(() => laneOf({ ...monitors, query: ['page', 'page_size', 'sort'] }, document), {
    message: /list_monitors: the document has no query parameter sort/,
  });
});
