// Who the audit log says made a change from the CLI: `cli:<user>`, the system user running the command (from the
// environment the command runs with, then the operating system), so an operator can tell colleagues apart.
import { userInfo } from 'node:os';
import type { Actor } from '../accounts/types.ts';
import type { CliIo } from './io.ts';

export function cliActor(io: CliIo): Actor {
  let user = io.env.USER ?? io.env.LOGNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  // The name lands in a log: no control characters, bounded length.
  return `cli:${user.replace(/[^\w.@-]/g, '_').slice(0, 64)}`;
}
