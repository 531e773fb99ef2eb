import { controller } from '../controller-spec.js';

export default controller({
  name: 'DaemonsController',
  comment: [
    "ZoneMinder's daemons under zmgate's supervisor (takeover mode). `{id}` is zmdc's key, URL-encoded,",
    'e.g. `zmc%20-m%201`. Actions answer 200 with `success: false` when the daemon is not running.',
  ],
  route: 'api/v3/daemons',
  tag: 'Daemons',
  security: ['system'],
  responses: {
    403: 'System permission required (View to read, Edit for actions)',
    503: 'Daemon manager not available (passive mode)',
  },
  imports: {
    './daemons-service.js': [
      'DaemonsService',
      'DaemonActionResponse',
      'DaemonListResponse',
      'DaemonStatusResponse',
      'StartDaemonRequest',
    ],
  },
  services: { daemons: 'DaemonsService' },
  operations: [
    [
      'GET',
      '',
      'list_daemons',
      'daemons.list(): DaemonListResponse',
      { doc: ['Every daemon the supervisor knows, with its state.'] },
    ],
    [
      'GET',
      '{id}',
      'get_daemon',
      'daemons.get(id: string): DaemonStatusResponse',
      { responses: { 404: 'Unknown daemon' } },
    ],
    [
      'POST',
      '{id}/start',
      'start_daemon',
      'daemons.start(id: string, body?: StartDaemonRequest | null): DaemonActionResponse',
      {
        doc: ['Starts the daemon; `args` are appended to those in the id.'],
        responses: { 400: "An argument outside zmdc.pl's whitelist", 404: 'Not a ZoneMinder daemon' },
      },
    ],
    [
      'POST',
      '{id}/stop',
      'stop_daemon',
      'daemons.stop(id: string): DaemonActionResponse',
      { doc: ['TERM, then KILL after daemon.stop_grace_secs; not restarted.'], responses: { 404: 'Unknown daemon' } },
    ],
    [
      'POST',
      '{id}/restart',
      'restart_daemon',
      'daemons.restart(id: string): DaemonActionResponse',
      { responses: { 404: 'Unknown daemon' } },
    ],
    [
      'POST',
      '{id}/reload',
      'reload_daemon',
      'daemons.reload(id: string): DaemonActionResponse',
      {
        doc: ['Sends a hang-up signal so the daemon reloads its configuration.'],
        responses: { 404: 'Unknown daemon' },
      },
    ],
  ],
});
