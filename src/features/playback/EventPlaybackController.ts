import { Get, OperationId, Path, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { EventVideoInfo } from './event-playback-service.js';
import { playbackFor } from './playback.js';
import { FeatureController } from '../feature-controller.js';
import { currentUser } from '../../auth/request-user.js';

/** The JSON route of recorded playback; the media routes are plain handlers (src/features/playback/playback-routes.ts). */
@Route('api/v3/events')
@Tags('Events Playback')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid id')
@Response<AppResponseError>(401, 'Missing, invalid or revoked token (header or `?token=`)')
@Response<AppResponseError>(403, 'Events permission required')
@Response<AppResponseError>(404, 'No such event, or its monitor is hidden')
export class EventPlaybackController extends FeatureController {
  private readonly videos = playbackFor(this.services).videos;

  /**
   * How to play the event: codec, size, duration and file size of its recording, and the mode a
   * v3 client should use (`direct`, `hls`, `event` while recording, `mjpeg` for JPEG-only
   * events, `none` without media). Accepts the token as `?token=` too.
   * @isLong id must be an integer >= 0
   * @minimum id 0
   */
  @Get('{id}/info')
  @OperationId('get_event_info')
  public async info(@Request() req: ExRequest, @Path() id: number): Promise<EventVideoInfo> {
    return this.videos.info(currentUser(req), BigInt(id));
  }
}
