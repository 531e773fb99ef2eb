// Exact COUNT(*)s shared between concurrent requests without ever being stale.
//
// An unfiltered total over 1,000,000 events is an index scan of ~60 ms; under load every list
// request would run its own. Requests asking for the same count join one query, but only a
// query that has NOT started yet: a request arriving while a count is running waits for it to
// finish and then joins the next one, which starts after every member arrived. So each caller
// gets a count taken after its request arrived (as fresh as running its own query), and at
// most two counts per key are in flight (one running, one gathering members).
type Runner = () => Promise<number>;

interface KeyState {
  running: Promise<number> | null;
  gathering: Promise<number> | null;
}

export class CoalescedCount {
  private readonly keys = new Map<string, KeyState>();

  count(key: string, run: Runner): Promise<number> {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { running: null, gathering: null }));
    if (state.gathering) return state.gathering;
    const s = state;
    const previous = s.running ?? Promise.resolve(0);
    const next = previous
      .catch(() => 0)
      .then(() => {
        // From here the query starts: later arrivals must gather for the next one.
        if (s.gathering === next) s.gathering = null;
        const query = run();
        s.running = query;
        const done = () => {
          if (s.running === query) s.running = null;
          if (!s.running && !s.gathering) this.keys.delete(key);
        };
        query.then(done, done);
        return query;
      });
    s.gathering = next;
    return next;
  }
}

const perClient = new WeakMap<object, CoalescedCount>();

/** The coalescer of one database client (one per app; tests run several apps). */
export function coalescedCount(client: object): CoalescedCount {
  let c = perClient.get(client);
  if (!c) perClient.set(client, (c = new CoalescedCount()));
  return c;
}
