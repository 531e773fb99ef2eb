// Live images from a monitor's shared memory (zm.mmap.<id>, docs/zoneminder/shared-memory.md): the snapshot still and
// the frames of the live MJPEG stream, which is the live view stock ZoneMinder (no stream socket)
// can offer. Works on every supported layout (760, 768, 872, 888); the native reader picks it.
//
// Decisions:
// - Access: Stream View (route gate) + the row ACL; a hidden monitor is the same 404 as a missing one.
// - "Not capturing" is a 503 envelope: no file (zmc not running), valid = 0 (starting/stopping),
//   Capturing = None (1.36: not active), a heartbeat older than zmwatch's 45 s, no image yet, or
//   any other shared-memory failure (permission, unknown layout, geometry). Never a 500; the
//   native message (which names the path) goes to the log, not the body.
// - Orientation: zmc applies Monitors.Orientation itself before an image enters the ring
//   (Monitor::Capture: capture_image->Rotate((orientation-1)*90) / Flip(), then
//   image_buffer[index].image->Assign(); Monitor::Load swaps width and height for 90/270). So a
//   shared-memory image is already turned: it is served as it is (never turned a second time),
//   and for ROTATE_90/ROTATE_270 it is read as Height×Width. The row is read on every request.
//   (The reference turned its stills because its source, the stream socket's keyframe, carries
//   the camera's own unturned frames; the outcome, a still in the monitor's orientation, is the same.)
//   One exception (docs/zoneminder/orientation.md): a development zmc leaves 4:2:2 slots of a
//   ROTATE_90/270 monitor unturned at the camera's size; such a slot is read at that size and
//   turned here, once.
// - Geometry: slot and zone counts are solved from the file size (robust when the row was edited
//   after zmc started); only if that is ambiguous are ImageBufferCount and ZoneCount used to pin them.
import type { AuthUser } from '../auth/auth-service.js';
import { monitorNotFound, requireVisibleMonitor, type MonitorAcl } from '../auth/monitor-acl.js';
import type { PrismaClient } from '../db/prisma.js';
import { ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Services } from '../registry.js';
import { isUnturned422, turnUnturned422 } from '../media/yuv422-turn.js';
import {
  encodeJpeg,
  isCaptureAlive,
  SharedMemory,
  ZmNativeError,
  type Orientation,
  type RawImage,
  type SharedMemoryState,
} from '../native/index.js';

/** The Monitors columns a live image needs. */
export interface LiveMonitor {
  id: number;
  /** The image size in shared memory: Monitors.Width×Height, swapped for ROTATE_90/270 (zmc turned it). */
  width: number;
  height: number;
  orientation: Orientation;
  imageBufferCount: number;
  zoneCount: number;
}

export interface LiveJpeg {
  jpeg: Buffer;
  /** The slot's capture time, µs since the epoch (the MJPEG stream sends only new ones). */
  timestampUs: number;
}

const REASONS: Record<string, string> = {
  ERR_ZM_SHM_MISSING: 'no shared memory: the capture daemon is not running',
  ERR_ZM_SHM_INVALID: 'the capture daemon is starting or stopping',
  ERR_ZM_SHM_PERMISSION: 'the shared memory is not accessible to zmgate (add its user to the ZoneMinder group)',
  ERR_ZM_SHM_LAYOUT: 'unsupported shared memory layout',
  ERR_ZM_SHM_GEOMETRY: "the shared memory does not match the monitor's Width/Height",
  ERR_ZM_SHM_FORMAT: 'unsupported image format in shared memory',
  ERR_ZM_SHM_BUSY: 'the image kept changing while being read',
};

export function notCapturing(id: number, reason: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`Monitor ${id} is not capturing`, [
    ['monitor_id', String(id)],
    ['reason', reason],
  ]);
}

/** Why the state says zmc is not delivering images, or null when it is. */
export function notCapturingReason(state: SharedMemoryState, nowMs = Date.now()): string | null {
  if (!state.valid) return 'the capture daemon is starting or stopping';
  if (state.active === false || state.capturing === 'None') return 'capturing is off for this monitor';
  if (!isCaptureAlive(state, 45, nowMs)) return 'the capture daemon stopped updating its heartbeat';
  return null;
}

export class LiveImagesService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): LiveImagesService {
    return new LiveImagesService(s.prisma, s.acl, s.config.zoneminder.path_map, s.log);
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly mapDir: string,
    private readonly log?: Logger,
  ) {}

  /** The row, after the ACL check (hidden = missing = 404). */
  async monitor(user: AuthUser, id: number): Promise<LiveMonitor> {
    requireVisibleMonitor(await this.acl.scope(user), id);
    const row = await this.prisma.monitors.findUnique({
      where: { Id: id },
      select: { Width: true, Height: true, Orientation: true, ImageBufferCount: true, ZoneCount: true },
    });
    if (!row) throw monitorNotFound(id);
    const orientation = (row.Orientation ?? 'ROTATE_0') as Orientation;
    const swap = orientation === 'ROTATE_90' || orientation === 'ROTATE_270';
    return {
      id,
      width: swap ? row.Height : row.Width,
      height: swap ? row.Width : row.Height,
      orientation,
      imageBufferCount: row.ImageBufferCount,
      zoneCount: row.ZoneCount,
    };
  }

  /** Maps the monitor's file; 503 when it cannot be attached. The caller closes it. */
  open(m: LiveMonitor): SharedMemory {
    const geometry = m.width > 0 && m.height > 0 ? { width: m.width, height: m.height } : {};
    let shm: SharedMemory | null = null;
    try {
      shm = SharedMemory.open({ mapDir: this.mapDir, monitorId: m.id, ...geometry });
      const state = shm.read();
      if (state.geometry === null && m.width > 0 && m.imageBufferCount > 0) {
        // Ambiguous or mismatching solution: pin the counts from the row and try once more.
        shm.close();
        shm = SharedMemory.open({
          mapDir: this.mapDir,
          monitorId: m.id,
          ...geometry,
          imageBufferCount: m.imageBufferCount,
          zoneCount: Math.min(256, Math.max(0, m.zoneCount)),
        });
      }
      return shm;
    } catch (err) {
      shm?.close();
      throw this.unavailable(m.id, err);
    }
  }

  /**
   * The newest image as a JPEG (already in the monitor's orientation), or null when its capture
   * time equals `unlessTimestampUs` (nothing new). 503 when zmc is not capturing or has no image yet.
   */
  async jpeg(shm: SharedMemory, m: LiveMonitor, unlessTimestampUs?: number): Promise<LiveJpeg | null> {
    let image;
    try {
      const reason = notCapturingReason(shm.read());
      if (reason) throw notCapturing(m.id, reason);
      image = await shm.newestImage();
    } catch (err) {
      throw this.unavailable(m.id, err);
    }
    if (!image) throw notCapturing(m.id, 'no image captured yet');
    if (image.timestampUs === unlessTimestampUs) return null;
    let upright: RawImage = image;
    if (isUnturned422(image.format, m.orientation)) {
      const turned = turnUnturned422(
        image.data,
        image.format as 'yuv422p' | 'yuvj422p',
        m.height,
        m.width,
        m.orientation as 'ROTATE_90' | 'ROTATE_270',
      );
      if (!turned) throw notCapturing(m.id, 'an unturned 4:2:2 image does not fit its slot');
      upright = turned;
    }
    let jpeg: Buffer;
    try {
      jpeg = await encodeJpeg(upright);
    } catch (err) {
      throw this.unavailable(m.id, err);
    }
    return { jpeg, timestampUs: image.timestampUs };
  }

  /** GET /monitors/{id}/snapshot. */
  async snapshot(user: AuthUser, id: number): Promise<Buffer> {
    const m = await this.monitor(user, id);
    const shm = this.open(m);
    try {
      return (await this.jpeg(shm, m))!.jpeg;
    } finally {
      shm.close();
    }
  }

  private unavailable(id: number, err: unknown): Error {
    return shmFailure(id, err, this.log);
  }
}

/** Any failure to attach or read shared memory becomes a 503 naming the reason (the path only in the log). */
export function shmFailure(id: number, err: unknown, log?: Logger): Error {
  if (err instanceof ServiceUnavailableError) return err;
  const code = err instanceof ZmNativeError ? err.code : 'unknown';
  log?.warn({ monitor_id: id, code, err: { message: (err as Error)?.message } }, 'monitor shared memory unavailable');
  return notCapturing(id, REASONS[code] ?? 'the shared memory could not be read');
}
