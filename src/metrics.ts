// Prometheus metrics (prom-client): one registry per app, the instruments the request path feeds,
// and gauges read when a scrape arrives. Every metric is listed in docs/operations/metrics.md.
//
// With `metrics.enabled = false` (the default) nothing is recorded: the request path checks
// `enabled` once per request and returns, and no collector is registered.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Labels and their values for one sample of a gauge read at scrape time. */
export type Sample = readonly [labels: Record<string, string | number>, value: number];

export interface GaugeSpec {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** The samples now; the gauge is emptied first, so series of things gone disappear. */
  read(): Sample[] | Promise<Sample[]>;
}

/** Latency buckets in seconds: a polled read takes well under 1 ms, a blocked LL-HLS reload up to ~3 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'route' | 'method' | 'status'>;
  readonly #duration: Histogram<'route' | 'method'>;
  readonly #fastPath: Counter<'route'>;
  readonly #liveBytes: Counter<'monitor' | 'transport'>;
  readonly #pushMessages: Counter<'type'>;
  readonly #pushDeliveries: Counter<'type'>;
  readonly #pushEnded: Counter<'reason'>;

  constructor(readonly enabled: boolean) {
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'zmgate_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'zmgate_http_request_duration_seconds',
      help: 'Time from a request’s arrival to the end of its answer, by route pattern and method',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#fastPath = new Counter({
      name: 'zmgate_http_fast_path_total',
      help: 'Requests answered by the hot-read lane (before express), by route pattern',
      labelNames: ['route'],
      registers,
    });
    this.#liveBytes = new Counter({
      name: 'zmgate_live_bytes_sent_total',
      help: 'Live video bytes sent to viewers, by monitor and transport (HLS files and playlists, WebRTC media, MJPEG parts)',
      labelNames: ['monitor', 'transport'],
      registers,
    });
    this.#pushMessages = new Counter({
      name: 'zmgate_push_messages_total',
      help: 'Push messages published (event_start, alarm, monitor_status, …), by type',
      labelNames: ['type'],
      registers,
    });
    this.#pushDeliveries = new Counter({
      name: 'zmgate_push_deliveries_total',
      help: "Push messages handed to this host's connections (one per connection a message went to), by type",
      labelNames: ['type'],
      registers,
    });
    this.#pushEnded = new Counter({
      name: 'zmgate_push_connections_ended_total',
      help: 'Push connections the server ended, by reason (slow_consumer: dropped for not reading)',
      labelNames: ['reason'],
      registers,
    });
    if (enabled) collectDefaultMetrics({ register: this.registry, prefix: 'zmgate_' });
  }

  /**
   * One answered request. `route` is the matched route's pattern (`/api/v3/monitors/:id`), never
   * the URL, so the number of series stays bounded.
   */
  request(route: string, method: string, status: number, seconds: number, fastPath = false): void {
    if (!this.enabled) return;
    this.#requests.inc({ route, method, status: String(status) });
    this.#duration.observe({ route, method }, seconds);
    if (fastPath) this.#fastPath.inc({ route });
  }

  /**
   * A counter of one viewer's live bytes: the child is looked up once, so a frame costs one add.
   * A no-op when metrics are off.
   */
  liveBytes(monitor: number, transport: 'hls' | 'webrtc' | 'mjpeg'): (bytes: number) => void {
    if (!this.enabled) return () => {};
    const child = this.#liveBytes.labels({ monitor: String(monitor), transport });
    return (bytes) => child.inc(bytes);
  }

  /** One push message published, and the number of this host's connections it went to. */
  pushMessage(type: string, deliveries: number): void {
    if (!this.enabled) return;
    this.#pushMessages.inc({ type });
    if (deliveries > 0) this.#pushDeliveries.inc({ type }, deliveries);
  }

  /** A push connection ended by the server. */
  pushEnded(reason: string): void {
    if (this.enabled) this.#pushEnded.inc({ reason });
  }

  /** A gauge whose samples are read when a scrape arrives (no-op when metrics are off). */
  gauge(spec: GaugeSpec): void {
    if (!this.enabled) return;
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: [...(spec.labelNames ?? [])],
      registers: [this.registry],
      async collect() {
        const samples = await spec.read();
        this.reset();
        for (const [labels, value] of samples) {
          if (Object.keys(labels).length) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
