import { controller } from '../controller-spec.js';

export default controller({
  name: 'PtzController',
  comment: [
    "PTZ through ZoneMinder's zmcontrol.pl. Gated on Control by method: reads (capabilities, status,",
    'protocols) need View; every command needs Edit, since moving a camera changes its state. The',
    'monitor row ACL applies too: hidden monitors are 404, commands on view-only monitors 403.',
  ],
  route: 'api/v3/ptz',
  tag: 'PTZ',
  security: ['control'],
  responses: {
    400: 'Invalid input; the monitor has no PTZ control; or its control profile lacks the capability (details name it)',
    403: 'Control permission required (Edit for commands), or the monitor is view-only',
    404: 'Monitor not found, or hidden from this account',
    503: 'The control daemon (zmcontrol.pl) is not running for this monitor',
  },
  imports: {
    './ptz-capabilities.js': ['PtzCapabilitiesResponse'],
    './ptz-service.js': [
      'PtzService',
      'PtzAbsoluteRequest',
      'PtzCommandResponse',
      'PtzFocusRequest',
      'PtzMoveRequest',
      'PtzPresetRequest',
      'PtzProtocolListResponse',
      'PtzRelativeRequest',
      'PtzStatusResponse',
      'PtzZoomRequest',
    ],
  },
  services: { ptz: 'PtzService' },
  operations: [
    [
      'GET protocols listPtzProtocols = ptz.protocols(): PtzProtocolListResponse',
      { doc: ['The control protocols of the configured control profiles; all are driven by zmcontrol.pl.'] },
    ],
    [
      'GET monitors/{id}/capabilities getPtzCapabilities = ptz.capabilities(user, id: Id): PtzCapabilitiesResponse',
      { doc: ["What the monitor's camera can do, from its control profile."] },
    ],
    [
      'GET monitors/{id}/status getPtzStatus = ptz.status(user, id: Id): PtzStatusResponse',
      { doc: ['Capabilities and whether zmcontrol.pl is reachable for the monitor.'] },
    ],
    [
      'POST monitors/{id}/move/up ptzMoveUp = ptz.move(user, id: Id, "up", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera up (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/down ptzMoveDown = ptz.move(user, id: Id, "down", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera down (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/left ptzMoveLeft = ptz.move(user, id: Id, "left", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera left (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/right ptzMoveRight = ptz.move(user, id: Id, "right", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera right (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/up-left ptzMoveUpLeft = ptz.move(user, id: Id, "up-left", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera up and left (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/up-right ptzMoveUpRight = ptz.move(user, id: Id, "up-right", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera up and right (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/down-left ptzMoveDownLeft = ptz.move(user, id: Id, "down-left", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera down and left (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/down-right ptzMoveDownRight = ptz.move(user, id: Id, "down-right", body?: PtzMoveRequest): PtzCommandResponse',
      { doc: ['Moves the camera down and right (continuous when the profile can, else one step).'] },
    ],
    [
      'POST monitors/{id}/move/stop ptzMoveStop = ptz.moveStop(user, id: Id): PtzCommandResponse',
      { doc: ['Stops pan and tilt.'] },
    ],
    [
      'POST monitors/{id}/zoom/in ptzZoomIn = ptz.zoom(user, id: Id, "in", body?: PtzZoomRequest): PtzCommandResponse',
      { doc: ['Zooms in.'] },
    ],
    [
      'POST monitors/{id}/zoom/out ptzZoomOut = ptz.zoom(user, id: Id, "out", body?: PtzZoomRequest): PtzCommandResponse',
      { doc: ['Zooms out.'] },
    ],
    [
      'POST monitors/{id}/zoom/stop ptzZoomStop = ptz.lensStop(user, id: Id, "Zoom"): PtzCommandResponse',
      { doc: ['Stops zooming.'] },
    ],
    [
      'POST monitors/{id}/focus/near ptzFocusNear = ptz.focus(user, id: Id, "near", body?: PtzFocusRequest): PtzCommandResponse',
      { doc: ['Focuses nearer.'] },
    ],
    [
      'POST monitors/{id}/focus/far ptzFocusFar = ptz.focus(user, id: Id, "far", body?: PtzFocusRequest): PtzCommandResponse',
      { doc: ['Focuses farther.'] },
    ],
    [
      'POST monitors/{id}/focus/auto ptzFocusAuto = ptz.lensAuto(user, id: Id, "Focus"): PtzCommandResponse',
      { doc: ['Switches to auto focus.'] },
    ],
    [
      'POST monitors/{id}/focus/stop ptzFocusStop = ptz.lensStop(user, id: Id, "Focus"): PtzCommandResponse',
      { doc: ['Stops focusing.'] },
    ],
    [
      'POST monitors/{id}/iris/open ptzIrisOpen = ptz.iris(user, id: Id, "open"): PtzCommandResponse',
      { doc: ['Opens the iris.'] },
    ],
    [
      'POST monitors/{id}/iris/close ptzIrisClose = ptz.iris(user, id: Id, "close"): PtzCommandResponse',
      { doc: ['Closes the iris.'] },
    ],
    [
      'POST monitors/{id}/iris/auto ptzIrisAuto = ptz.lensAuto(user, id: Id, "Iris"): PtzCommandResponse',
      { doc: ['Switches to auto iris.'] },
    ],
    [
      'POST monitors/{id}/iris/stop ptzIrisStop = ptz.lensStop(user, id: Id, "Iris"): PtzCommandResponse',
      { doc: ['Stops the iris.'] },
    ],
    [
      'POST monitors/{id}/power/wake ptzPowerWake = ptz.power(user, id: Id, "wake"): PtzCommandResponse',
      { doc: ['Sends wake to the camera.'] },
    ],
    [
      'POST monitors/{id}/power/sleep ptzPowerSleep = ptz.power(user, id: Id, "sleep"): PtzCommandResponse',
      { doc: ['Sends sleep to the camera.'] },
    ],
    [
      'POST monitors/{id}/power/reset ptzPowerReset = ptz.power(user, id: Id, "reset"): PtzCommandResponse',
      { doc: ['Sends reset to the camera.'] },
    ],
    [
      'POST monitors/{id}/power/reboot ptzPowerReboot = ptz.power(user, id: Id, "reboot"): PtzCommandResponse',
      { doc: ['Sends reboot to the camera.'] },
    ],
    [
      'POST monitors/{id}/home ptzGotoHome = ptz.home(user, id: Id): PtzCommandResponse',
      { doc: ['Moves to the home position.'] },
    ],
    [
      'POST monitors/{id}/presets/{preset_id}/goto ptzGotoPreset = ptz.presetGoto(user, id: Id, preset_id: Id): PtzCommandResponse',
      { doc: ['Moves to a stored preset (numbered from 1).'] },
    ],
    [
      'POST monitors/{id}/presets/{preset_id}/set ptzSetPreset = ptz.presetSet(user, id: Id, preset_id: Id, body?: PtzPresetRequest): PtzCommandResponse',
      { doc: ['Stores the current position as a preset; `name` sets its ControlPresets label.'] },
    ],
    [
      'DELETE monitors/{id}/presets/{preset_id} ptzClearPreset = ptz.presetClear(user, id: Id, preset_id: Id): PtzCommandResponse',
      { doc: ['Clears a preset in the camera and removes its label.'] },
    ],
    [
      'POST monitors/{id}/relative ptzMoveRelative = ptz.relative(user, id: Id, body: PtzRelativeRequest): PtzCommandResponse',
      { doc: ["Relative steps in the profile's units (moveRel*, zoomRel*)."] },
    ],
    [
      'POST monitors/{id}/absolute ptzMoveAbsolute = ptz.absolute(user, id: Id, body: PtzAbsoluteRequest): PtzCommandResponse',
      { doc: ["An absolute pan/tilt position through zmcontrol.pl's moveMap."] },
    ],
  ],
});
