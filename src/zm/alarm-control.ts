// PATCH /monitors/{id}/alarm on the capture daemon's TriggerData (docs/zoneminder/shared-memory.md), the same bytes
// zmu -a (on), -n (off), -c (cancel) and -s (state) use. The native writer keeps zmc's ordering:
// for ON every field before the state; for OFF/CANCEL the state first, then the fields cleared.
import { InvalidInputError } from '../errors.js';
import { SharedMemory, type SharedMemoryState } from '../native/index.js';
import { notCapturing, notCapturingReason, shmFailure } from './live-images.js';

export type AlarmAction = 'on' | 'off' | 'cancel' | 'status';

export interface AlarmCommand {
  action: AlarmAction;
  cause?: string | null;
  score?: number | null;
  text?: string | null;
}

/** What the browser client's Force Alarm button sends when it sends nothing else. */
export const DEFAULT_FORCED_SCORE = 100;
export const DEFAULT_FORCED_CAUSE = 'API';

/**
 * Applies the command and returns the state read before it (status = just that read). 503 when
 * zmc is not capturing, so nobody would act on the trigger, or the file is not writable.
 */
export function controlAlarm(mapDir: string, id: number, command: AlarmCommand): SharedMemoryState {
  // zmc's fields are byte arrays (31 + NUL, 255 + NUL): the character limits of the request are not enough.
  const problems: Array<[string, string]> = [];
  if (command.cause && Buffer.byteLength(command.cause) > 31)
    problems.push(['cause', 'must be at most 31 UTF-8 bytes']);
  if (command.text && Buffer.byteLength(command.text) > 255) problems.push(['text', 'must be at most 255 UTF-8 bytes']);
  if ([command.cause, command.text].some((v) => v?.includes('\0'))) problems.push(['cause', 'must not contain NUL']);
  if (problems.length) throw new InvalidInputError('Invalid input', problems);
  let shm: SharedMemory | null = null;
  try {
    shm = SharedMemory.open({ mapDir, monitorId: id });
    const state = shm.read();
    const reason = notCapturingReason(state);
    if (reason) throw notCapturing(id, reason);
    switch (command.action) {
      case 'on':
        shm.trigger({
          action: 'on',
          score: command.score ?? DEFAULT_FORCED_SCORE,
          cause: command.cause || DEFAULT_FORCED_CAUSE,
          text: command.text ?? '',
        });
        break;
      case 'off':
      case 'cancel':
        shm.trigger({ action: command.action });
        break;
      case 'status':
        break;
    }
    return state;
  } catch (err) {
    throw shmFailure(id, err);
  } finally {
    shm?.close();
  }
}
