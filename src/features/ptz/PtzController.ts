import { Body, Delete, Get, OperationId, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id } from '../../api/params.js';
import { FeatureController } from '../feature-controller.js';
import type { PtzCapabilitiesResponse } from './ptz-capabilities.js';
import {
  PtzService,
  type PtzAbsoluteRequest,
  type PtzCommandResponse,
  type PtzFocusRequest,
  type PtzMoveRequest,
  type PtzPresetRequest,
  type PtzProtocolListResponse,
  type PtzRelativeRequest,
  type PtzStatusResponse,
  type PtzZoomRequest,
} from './ptz-service.js';
import { currentUser } from '../../auth/request-user.js';

const user = (req: ExRequest) => currentUser(req);

// PTZ through ZoneMinder's zmcontrol.pl. Gated on Control by method: reads (capabilities, status,
// protocols) need View; every command needs Edit, since moving a camera changes its state. The
// monitor row ACL applies too: hidden monitors are 404, commands on view-only monitors 403.
@Route('api/v3/ptz')
@Tags('PTZ')
@Security('jwt', ['control'])
@Response<AppResponseError>(
  400,
  'Invalid input; the monitor has no PTZ control; or its control profile lacks the capability (details name it)',
)
@Response<AppResponseError>(403, 'Control permission required (Edit for commands), or the monitor is view-only')
@Response<AppResponseError>(404, 'Monitor not found, or hidden from this account')
@Response<AppResponseError>(503, 'The control daemon (zmcontrol.pl) is not running for this monitor')
export class PtzController extends FeatureController {
  private readonly ptz = this.services.get(PtzService);

  /** The control protocols of the configured control profiles; all are driven by zmcontrol.pl. */
  @Get('protocols')
  @OperationId('listPtzProtocols')
  public async protocols(): Promise<PtzProtocolListResponse> {
    return this.ptz.protocols();
  }

  /**
   * What the monitor's camera can do, from its control profile.
   */
  @Get('monitors/{id}/capabilities')
  @OperationId('getPtzCapabilities')
  public async capabilities(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCapabilitiesResponse> {
    return this.ptz.capabilities(user(req), id);
  }

  /**
   * Capabilities and whether zmcontrol.pl is reachable for the monitor.
   */
  @Get('monitors/{id}/status')
  @OperationId('getPtzStatus')
  public async status(@Request() req: ExRequest, @Path() id: Id): Promise<PtzStatusResponse> {
    return this.ptz.status(user(req), id);
  }

  /**
   * Moves the camera up (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/up')
  @OperationId('ptzMoveUp')
  public async moveUp(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'up', body);
  }

  /**
   * Moves the camera down (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/down')
  @OperationId('ptzMoveDown')
  public async moveDown(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'down', body);
  }

  /**
   * Moves the camera left (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/left')
  @OperationId('ptzMoveLeft')
  public async moveLeft(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'left', body);
  }

  /**
   * Moves the camera right (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/right')
  @OperationId('ptzMoveRight')
  public async moveRight(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'right', body);
  }

  /**
   * Moves the camera up and left (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/up-left')
  @OperationId('ptzMoveUpLeft')
  public async moveUpLeft(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'up-left', body);
  }

  /**
   * Moves the camera up and right (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/up-right')
  @OperationId('ptzMoveUpRight')
  public async moveUpRight(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'up-right', body);
  }

  /**
   * Moves the camera down and left (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/down-left')
  @OperationId('ptzMoveDownLeft')
  public async moveDownLeft(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'down-left', body);
  }

  /**
   * Moves the camera down and right (continuous when the profile can, else one step).
   */
  @Post('monitors/{id}/move/down-right')
  @OperationId('ptzMoveDownRight')
  public async moveDownRight(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzMoveRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.move(user(req), id, 'down-right', body);
  }

  /**
   * Stops pan and tilt.
   */
  @Post('monitors/{id}/move/stop')
  @OperationId('ptzMoveStop')
  public async moveStop(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.moveStop(user(req), id);
  }

  /**
   * Zooms in.
   */
  @Post('monitors/{id}/zoom/in')
  @OperationId('ptzZoomIn')
  public async zoomIn(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzZoomRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.zoom(user(req), id, 'in', body);
  }

  /**
   * Zooms out.
   */
  @Post('monitors/{id}/zoom/out')
  @OperationId('ptzZoomOut')
  public async zoomOut(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzZoomRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.zoom(user(req), id, 'out', body);
  }

  /**
   * Stops zooming.
   */
  @Post('monitors/{id}/zoom/stop')
  @OperationId('ptzZoomStop')
  public async zoomStop(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.lensStop(user(req), id, 'Zoom');
  }

  /**
   * Focuses nearer.
   */
  @Post('monitors/{id}/focus/near')
  @OperationId('ptzFocusNear')
  public async focusNear(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzFocusRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.focus(user(req), id, 'near', body);
  }

  /**
   * Focuses farther.
   */
  @Post('monitors/{id}/focus/far')
  @OperationId('ptzFocusFar')
  public async focusFar(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body?: PtzFocusRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.focus(user(req), id, 'far', body);
  }

  /**
   * Switches to auto focus.
   */
  @Post('monitors/{id}/focus/auto')
  @OperationId('ptzFocusAuto')
  public async focusAuto(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.lensAuto(user(req), id, 'Focus');
  }

  /**
   * Stops focusing.
   */
  @Post('monitors/{id}/focus/stop')
  @OperationId('ptzFocusStop')
  public async focusStop(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.lensStop(user(req), id, 'Focus');
  }

  /**
   * Opens the iris.
   */
  @Post('monitors/{id}/iris/open')
  @OperationId('ptzIrisOpen')
  public async irisOpen(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.iris(user(req), id, 'open');
  }

  /**
   * Closes the iris.
   */
  @Post('monitors/{id}/iris/close')
  @OperationId('ptzIrisClose')
  public async irisClose(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.iris(user(req), id, 'close');
  }

  /**
   * Switches to auto iris.
   */
  @Post('monitors/{id}/iris/auto')
  @OperationId('ptzIrisAuto')
  public async irisAuto(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.lensAuto(user(req), id, 'Iris');
  }

  /**
   * Stops the iris.
   */
  @Post('monitors/{id}/iris/stop')
  @OperationId('ptzIrisStop')
  public async irisStop(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.lensStop(user(req), id, 'Iris');
  }

  /**
   * Sends wake to the camera.
   */
  @Post('monitors/{id}/power/wake')
  @OperationId('ptzPowerWake')
  public async powerWake(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.power(user(req), id, 'wake');
  }

  /**
   * Sends sleep to the camera.
   */
  @Post('monitors/{id}/power/sleep')
  @OperationId('ptzPowerSleep')
  public async powerSleep(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.power(user(req), id, 'sleep');
  }

  /**
   * Sends reset to the camera.
   */
  @Post('monitors/{id}/power/reset')
  @OperationId('ptzPowerReset')
  public async powerReset(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.power(user(req), id, 'reset');
  }

  /**
   * Sends reboot to the camera.
   */
  @Post('monitors/{id}/power/reboot')
  @OperationId('ptzPowerReboot')
  public async powerReboot(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.power(user(req), id, 'reboot');
  }

  /**
   * Moves to the home position.
   */
  @Post('monitors/{id}/home')
  @OperationId('ptzGotoHome')
  public async home(@Request() req: ExRequest, @Path() id: Id): Promise<PtzCommandResponse> {
    return this.ptz.home(user(req), id);
  }

  /**
   * Moves to a stored preset (numbered from 1).
   */
  @Post('monitors/{id}/presets/{preset_id}/goto')
  @OperationId('ptzGotoPreset')
  public async gotoPreset(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Path() preset_id: Id,
  ): Promise<PtzCommandResponse> {
    return this.ptz.presetGoto(user(req), id, preset_id);
  }

  /**
   * Stores the current position as a preset; `name` sets its ControlPresets label.
   */
  @Post('monitors/{id}/presets/{preset_id}/set')
  @OperationId('ptzSetPreset')
  public async setPreset(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Path() preset_id: Id,
    @Body() body?: PtzPresetRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.presetSet(user(req), id, preset_id, body);
  }

  /**
   * Clears a preset in the camera and removes its label.
   */
  @Delete('monitors/{id}/presets/{preset_id}')
  @OperationId('ptzClearPreset')
  public async clearPreset(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Path() preset_id: Id,
  ): Promise<PtzCommandResponse> {
    return this.ptz.presetClear(user(req), id, preset_id);
  }

  /**
   * Relative steps in the profile's units (moveRel*, zoomRel*).
   */
  @Post('monitors/{id}/relative')
  @OperationId('ptzMoveRelative')
  public async relative(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: PtzRelativeRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.relative(user(req), id, body);
  }

  /**
   * An absolute pan/tilt position through zmcontrol.pl's moveMap.
   */
  @Post('monitors/{id}/absolute')
  @OperationId('ptzMoveAbsolute')
  public async absolute(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: PtzAbsoluteRequest,
  ): Promise<PtzCommandResponse> {
    return this.ptz.absolute(user(req), id, body);
  }
}
